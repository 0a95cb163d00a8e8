// --hedge for GETs ("The Tail at Scale", Dean and Barroso, 2013): a request that has had no first
// byte (or not finished) after a delay gets a duplicate, to the next copy of the object where it is
// read from copies, else to the same URL; the first to finish wins and the other is aborted. Both
// write the same bytes to the same place in the sink, so what is verified is what the winner brought.
import { performance } from 'node:perf_hooks';
import type { OpRecord } from '../metrics/records.js';
import type { WorkItem } from '../plan/items.js';
import { HEDGE_BUDGET, newHedgeEstimate, type EarlierRequests, type HedgeEstimate } from './estimate.js';
import type { GetRun, GetWatch, HedgeContext, HedgeJob, HedgePolicy } from './policy.js';
import type { SentWatch, StopSignal } from '../transport/http-client.js';

/** A percentile of fewer earlier requests than this is noise: until then a request is not hedged. */
export const MIN_HEDGE_SAMPLES = 10;

/**
 * A stop for one request. An AbortController (an EventTarget) per hedged GET, with the closures and
 * promises around it, costs a sizeable share of a small GET's CPU, and a run of many small files is
 * CPU-bound in the client.
 */
export class Stop implements StopSignal {
  aborted = false;
  /** The one listener a request's transport adds (no array for it); more, in a list. */
  private listener?: () => void;
  private more?: (() => void)[];

  addEventListener(_type: 'abort', listener: () => void): void {
    if (!this.listener) this.listener = listener;
    else (this.more ??= []).push(listener);
  }

  removeEventListener(_type: 'abort', listener: () => void): void {
    if (this.listener === listener) {
      this.listener = this.more?.shift();
      return;
    }
    const at = this.more?.indexOf(listener) ?? -1;
    if (at >= 0) this.more!.splice(at, 1);
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    const listeners = [this.listener, ...(this.more ?? [])];
    this.listener = undefined;
    this.more = undefined;
    for (const listener of listeners) listener?.();
  }
}

/**
 * One item's first request as the hedger watches it: one object, its own stop and the watch its
 * transport tells, its callbacks methods of it (no closure for the transport, no second object
 * for the stop), and its links in its kind's queue of deadlines. Beside it, only the callback that
 * lands its answer. Most requests answer before their delay, and each object made per request is
 * garbage that a run of many small files, CPU-bound in the client, pays for in GC. The race is
 * made only when a duplicate goes.
 */
class Flight extends Stop implements GetWatch, SentWatch {
  /** Told when the request is written (Hedger.sentNow). */
  readonly hedger: { sentNow(f: Flight): void };
  readonly item: WorkItem;
  /** Its stop, and what its transport tells of its sending, are itself. */
  readonly signal: StopSignal;
  readonly sent: SentWatch;
  first!: Promise<OpRecord>;
  /** When the request was written to its socket; until then its age does not run. */
  sentMs?: number;
  /** Written on a connection opened for it (its age is compared with other such requests'). */
  fresh = false;
  /**
   * Items answered by when it could count as overtaken: those answered at its sending, and the ones then in
   * flight before it.
   */
  passMark = 0;
  /** Watched against its delay (until it answers or is checked). */
  watched = true;
  /** The queue it waits in (sent, watched and not yet fired), and its neighbours there. */
  queue?: Deadlines;
  prev?: Flight;
  next?: Flight;
  firstByte = false;
  /** It answered before its check: the item is done. */
  done = false;
  /** Once checked past its delay: what the item's record is then (the race, or the first request alone). */
  decided?: Promise<OpRecord>;

  constructor(hedger: Flight['hedger'], item: WorkItem) {
    super();
    this.hedger = hedger;
    this.item = item;
    this.signal = this;
    this.sent = this;
  }

  /** Its age runs from when it is written to its socket. */
  onSent(reused: boolean): void {
    if (this.sentMs !== undefined) return;
    this.sentMs = performance.now();
    this.fresh = !reused;
    this.hedger.sentNow(this);
  }

  onFirstByte(): void {
    this.firstByte = true;
  }
}

/**
 * The requests of one kind (on a reused connection, or on one opened for them) that were sent, are
 * watched and have not gone to their check, in the order they were sent: a list through the
 * flights themselves, so a request joins and leaves it without an allocation. All of them share
 * one delay, so the oldest is due first, and it has the lowest pass mark, so it is the first that
 * later requests overtake. Whether any request may be duplicated is read from the head alone, and
 * the late ones are the first few: an answer's look is O(1), where it walked every request in
 * flight, and a look for late requests walks only the late.
 */
class Deadlines {
  readonly fresh: boolean;
  head?: Flight;
  private tail?: Flight;

  constructor(fresh: boolean) {
    this.fresh = fresh;
  }

  push(f: Flight): void {
    f.queue = this;
    f.prev = this.tail;
    f.next = undefined;
    if (this.tail) this.tail.next = f;
    else this.head = f;
    this.tail = f;
  }

  remove(f: Flight): void {
    if (f.prev) f.prev.next = f.next;
    else this.head = f.next;
    if (f.next) f.next.prev = f.prev;
    else this.tail = f.prev;
    f.queue = f.prev = f.next = undefined;
  }

  clear(): void {
    while (this.head) this.remove(this.head);
  }
}

type Settled = { who: 'first' | 'hedge'; record: OpRecord };

/** The clock's origin, read once: a record's end on performance.now()'s clock is its epoch end less it. */
const TIME_ORIGIN_MS = performance.timeOrigin;

/**
 * The policy of --hedge: each item's GET watched against its delay, duplicated when it is late.
 */
export class Hedger<C extends HedgeContext, S> implements HedgePolicy {
  private readonly ctx: C;
  private readonly sink: S;
  private readonly get: GetRun<C, S>;
  private readonly hedge: HedgeJob;
  /** This worker's earlier requests' times and the items issued: what a percentile delay is read from. */
  private readonly estimate: HedgeEstimate;
  /**
   * The items in flight, each first request's Flight (its own Stop, which the worker's stop pulls):
   * one set for both jobs, one add and one delete a request.
   */
  private readonly flights = new Set<Flight>();
  /** How many of them are watched against their delay (sent or not). */
  private watching = 0;
  /** The duplicates' stops in flight, pulled by the worker's stop too. */
  private readonly duplicates = new Set<Stop>();
  /** The watched requests sent and not yet checked, by kind, each in the order they were sent. */
  private readonly reusedQueue = new Deadlines(false);
  private readonly freshQueue = new Deadlines(true);
  /**
   * The timer, only where answers may not come to look for late requests: one lane, or half the
   * lanes or fewer still waiting (the tail of a run, the last ranges of a split object). One for all
   * of them: a timer set and cleared per request costs CPU on every request. Elsewhere late requests
   * are looked for as answers come.
   */
  private timer?: NodeJS.Timeout;
  private timerAtMs = Infinity;
  /** The context of a duplicate to another copy: its URL made from its name. */
  private readonly otherCopyCtx: C;
  /**
   * Items answered so far, and those sent and not yet answered: what tells a request overtaken by later ones.
   */
  private answered = 0;
  private outstanding = 0;

  /** `estimate`: one kept from this contender's earlier runs, else a fresh one. */
  constructor(ctx: C, sink: S, get: GetRun<C, S>, hedge: HedgeJob, estimate = newHedgeEstimate()) {
    this.ctx = ctx;
    this.sink = sink;
    this.get = get;
    this.hedge = hedge;
    // Every item of the earlier runs has settled: those that failed (not counted in the times) must
    // not count as still running, or a high percentile's rank would stay out of reach.
    for (const kind of [estimate.reused, estimate.fresh]) {
      kind.issued = kind.earlier.totalCount;
      kind.readAt = -1;
    }
    estimate.credits = Math.max(estimate.credits, HEDGE_BUDGET.reserve);
    this.estimate = estimate;
    this.otherCopyCtx = { ...ctx, urls: undefined };
    ctx.signal.addEventListener(
      'abort',
      () => {
        for (const f of this.flights) f.abort();
        for (const stop of this.duplicates) stop.abort();
      },
      { once: true },
    );
  }

  /**
   * The delay now: fixed, or the percentile of this worker's requests so far (each from being
   * written to its socket to its last byte), counting those still running as slower than any
   * finished one (a percentile of the finished alone is biased low: the slow ones are the ones not
   * yet back). It is of their whole time even with `on` 'first-byte': a request with no byte by the
   * time that share of requests had finished is stuck.
   */
  delayMs(fresh = false): number | undefined {
    if (this.hedge.afterMs !== undefined) return this.hedge.afterMs;
    const kind = this.kindOf(fresh);
    const finished = kind.earlier.totalCount;
    // A rank's walk of the buckets is read once per few requests settled, not at every look.
    if (kind.readAt >= 0 && finished - kind.readAt < Math.max(1, finished >> 6)) return kind.readMs;
    const rank = Math.ceil(((this.hedge.percentile ?? 95) / 100) * kind.issued);
    const ms =
      finished < MIN_HEDGE_SAMPLES || rank > finished ? undefined : kind.earlier.valueAtRank(rank) / 1000;
    kind.readAt = finished;
    kind.readMs = ms;
    return ms;
  }

  run(item: WorkItem, queuedAt: number | undefined): Promise<OpRecord> {
    const f = new Flight(this, item);
    // Watched from the start: a transport may tell of its sending before get() returns.
    if (this.ctx.signal.aborted) f.abort();
    this.flights.add(f);
    this.watching++;
    f.first = this.get(this.ctx, item, this.sink, queuedAt, f);
    return f.first.then((record) => this.landed(f, record));
  }

  /** The first request answered: the item is done, unless its check came first (then that decides). */
  private landed(f: Flight, record: OpRecord): OpRecord | Promise<OpRecord> {
    if (f.decided) return f.decided;
    f.done = true;
    this.unwatch(f);
    return this.settle(f, record);
  }

  /**
   * Stops watching `f`. With nothing left to watch the timer goes (it would hold this hedger, its
   * sink included, until it fired); with few left, answers may stop coming, and the timer starts.
   */
  private unwatch(f: Flight): void {
    if (!f.watched) return;
    f.watched = false;
    this.watching--;
    f.queue?.remove(f);
    if (this.watching === 0 || this.timerNeeded()) this.syncTimer();
  }

  /**
   * A request past its delay, checked after the loop's I/O: a duplicate goes, unless an answer is on its way.
   */
  private readonly check = (f: Flight): void => {
    if (f.done) {
      // Answered since it fired: no duplicate goes, and its cost goes back.
      this.estimate.credits += HEDGE_BUDGET.perDuplicate;
      return;
    }
    this.unwatch(f);
    // With a first byte, an answer is coming: it is left to finish.
    if (this.ctx.signal.aborted || (this.hedge.on === 'first-byte' && f.firstByte)) {
      // Its duplicate's cost, taken when it fired, goes back.
      this.estimate.credits += HEDGE_BUDGET.perDuplicate;
      f.decided = f.first.then((record) => this.settle(f, record));
      return;
    }
    f.decided = this.duplicate(f);
  };

  /** Sends the duplicate, takes whichever succeeds first, aborts the other and awaits it. */
  private async duplicate(f: Flight): Promise<OpRecord> {
    const { item, first } = f;
    const hedgeStop = new Stop();
    if (this.ctx.signal.aborted) hedgeStop.abort();
    else this.duplicates.add(hedgeStop);
    const copy = this.copyOf(item);
    const second = this.get(copy === item ? this.ctx : this.otherCopyCtx, copy, this.sink, undefined, {
      signal: hedgeStop,
    });
    const winner = await firstSucceeded(
      first.then((record): Settled => ({ who: 'first', record })),
      second.then((record): Settled => ({ who: 'hedge', record })),
    );
    (winner.who === 'first' ? hedgeStop : f).abort();
    // The loser is awaited: its last writes into the sink (the same bytes) land before the item is done.
    const loser = await (winner.who === 'first' ? second : first);
    this.duplicates.delete(hedgeStop);
    const [original, duplicate] = winner.who === 'first' ? [winner.record, loser] : [loser, winner.record];
    return this.settle(f, {
      ...winner.record,
      hedge: {
        won: winner.who,
        afterMs: Math.max(0, duplicate.startEpochMs - sentEpochMs(original)),
        loserBytes: loser.bytes,
      },
    });
  }

  /** The job is over: no timer may outlive it. */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAtMs = Infinity;
    for (const f of this.flights) f.watched = false;
    this.reusedQueue.clear();
    this.freshQueue.clear();
    this.watching = 0;
  }

  /**
   * A request was written to its socket: its clock starts, it joins its kind's queue, and the timer (if one
   * runs) is brought forward if it is due first.
   */
  sentNow(f: Flight): void {
    this.kindOf(f.fresh).issued++;
    f.passMark = this.answered + this.outstanding++;
    const budget = this.estimate;
    if (budget.credits < HEDGE_BUDGET.max) budget.credits++;
    if (!f.watched) return;
    (f.fresh ? this.freshQueue : this.reusedQueue).push(f);
    if (!this.timerNeeded()) return;
    const delay = this.delayMs(f.fresh);
    if (delay !== undefined && f.sentMs! + delay < this.timerAtMs) this.armAt(f.sentMs! + delay);
  }

  /**
   * Where answers may not come to look for late requests: one lane, or half the lanes or fewer still waiting.
   */
  private timerNeeded(): boolean {
    return this.ctx.lanes < 2 || this.watching * 2 <= this.ctx.lanes;
  }

  private kindOf(fresh: boolean): EarlierRequests {
    return fresh ? this.estimate.fresh : this.estimate.reused;
  }

  /**
   * Whether a late request is a straggler: requests sent after it have answered while it waits (a
   * lane's worth of them: every other lane has moved on), or it is the only one left waiting (its
   * peers all answered: the last range of a split object), or there is no other lane to compare
   * with. A request that nothing later has passed is waiting in a queue the others share (the
   * server's, or this process's): its duplicate would join the back of that queue, answer after it,
   * take a socket from the next item and cost a connection when aborted. Without stalls, a bar
   * lower than a lane's worth still sends duplicates, in bursts, that nearly all lose (a busy server
   * answers a few requests out of order; bench case 12 counts what duplicates cost). A stalled
   * request is passed by every later one, and soon.
   */
  private straggling(f: Flight): boolean {
    const lanes = this.ctx.lanes;
    return lanes < 2 || this.watching === 1 || this.answered - f.passMark >= lanes;
  }

  /**
   * An item is done: a finished request's time becomes an earlier request's (a percentile delay's).
   * If a request is now late and overtaken, the late requests are looked for.
   */
  private settle(f: Flight, record: OpRecord): OpRecord {
    this.flights.delete(f);
    if (f.sentMs !== undefined) {
      this.outstanding--;
      this.answered++;
    }
    if (!record.error && this.hedge.afterMs === undefined) {
      const fresh = !record.reused;
      const kind = this.kindOf(fresh);
      kind.earlier.recordValue(Math.round(sinceSentMs(record) * 1000));
      // A changed delay moves the timer's deadline, where one runs (elsewhere the delay is read as answers
      // come).
      if (this.watching && this.timerNeeded()) {
        const before = kind.readMs;
        if (this.delayMs(fresh) !== before) this.syncTimer();
      }
    }
    // Now, as the request's own end says (no performance.now() call per answer).
    if (this.watching) {
      const nowMs = record.startEpochMs - TIME_ORIGIN_MS + record.totalMs;
      if (this.dueHead(this.reusedQueue, nowMs) || this.dueHead(this.freshQueue, nowMs)) this.lookForLate();
    }
    return record;
  }

  private readonly onTimer = (): void => {
    this.timer = undefined;
    this.timerAtMs = Infinity;
    this.lookForLate();
  };

  /**
   * The late requests that may be duplicated get their check, after the loop's I/O (setImmediate
   * runs after the poll phase): an answer that came while this process was busy is read first, not
   * taken for a stall. Then the timer is set, where one is needed.
   *
   * Most lanes late at once is a slowdown of the server's (or of this machine) that every request
   * meets, not a straggler: a duplicate would wait behind it, take a socket from the next item, and
   * its abort cost a connection. (Without this rule, a pause of the server's sent a duplicate for
   * every lane.) So is a late request that no later one has passed (`straggling`). Such requests are
   * held at the head of their queue and looked at again as answers come (or in a millisecond where
   * a timer runs); one still late once later ones pass it is a straggler.
   */
  private lookForLate(): void {
    const now = performance.now();
    const late = this.lateIn(this.reusedQueue, now) + this.lateIn(this.freshQueue, now);
    if (late && !commonSlowdown(late, this.ctx.lanes)) {
      // The oldest first. Past the budget, a straggler is held like the rest: it may go once later requests
      // earn credit.
      while (this.estimate.credits >= HEDGE_BUDGET.perDuplicate) {
        const reused = this.dueHead(this.reusedQueue, now);
        const fresh = this.dueHead(this.freshQueue, now);
        const f = reused && fresh ? (reused.passMark <= fresh.passMark ? reused : fresh) : (reused ?? fresh);
        if (!f) break;
        this.estimate.credits -= HEDGE_BUDGET.perDuplicate;
        f.queue!.remove(f);
        setImmediate(this.check, f);
      }
    }
    this.syncTimer();
  }

  /** A queue's head, if it is past its delay at `nowMs` and a straggler; else none of the queue is. */
  private dueHead(queue: Deadlines, nowMs: number): Flight | undefined {
    const f = queue.head;
    if (f === undefined) return undefined;
    const delay = this.delayMs(queue.fresh);
    return delay !== undefined && f.sentMs! + delay <= nowMs && this.straggling(f) ? f : undefined;
  }

  /** How many of a queue are past their delay at `nowMs`: the first few. */
  private lateIn(queue: Deadlines, nowMs: number): number {
    const delay = this.delayMs(queue.fresh);
    if (delay === undefined) return 0;
    let late = 0;
    for (let f = queue.head; f !== undefined && f.sentMs! + delay <= nowMs; f = f.next) late++;
    return late;
  }

  /** The earliest deadline in a queue: its head's. */
  private dueAt(queue: Deadlines): number {
    const f = queue.head;
    const delay = f === undefined ? undefined : this.delayMs(queue.fresh);
    return delay === undefined ? Infinity : f!.sentMs! + delay;
  }

  /**
   * The timer where one is needed, at the next deadline: a late request held at a queue's head has
   * one past, so it is looked at again in a millisecond. Left as it is when its deadline is the same.
   */
  private syncTimer(): void {
    const at =
      this.watching && this.timerNeeded()
        ? Math.min(this.dueAt(this.reusedQueue), this.dueAt(this.freshQueue))
        : Infinity;
    if (at === Infinity) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.timerAtMs = Infinity;
    } else if (this.timer === undefined || at !== this.timerAtMs) this.armAt(at);
  }

  private armAt(atMs: number): void {
    clearTimeout(this.timer);
    this.timerAtMs = atMs;
    // Whole ms, at least 1. Unref'd: a request in flight keeps the worker alive, not its hedge's timer.
    this.timer = setTimeout(this.onTimer, Math.max(1, Math.ceil(atMs - performance.now())));
    this.timer.unref();
  }

  /** The duplicate's item: the next copy where the object is read from copies, else the same. */
  private copyOf(item: WorkItem): WorkItem {
    const copies = this.hedge.copies;
    if (!copies || copies.length < 2 || item.blob === undefined) return item;
    const at = copies.indexOf(item.blob);
    return at < 0 ? item : { ...item, blob: copies[(at + 1) % copies.length] };
  }
}

/** Late requests that are more than half the lanes (and more than one): all slowed by one cause. */
export const commonSlowdown = (late: number, lanes: number): boolean => late >= 2 && late > lanes / 2;

/** A request's time from being written to its socket to its last byte (what the age is compared with). */
function sinceSentMs(r: OpRecord): number {
  const p = r.phases;
  return p.firstByte !== undefined ? p.firstByte + (p.download ?? 0) : r.totalMs - (p.wait ?? 0);
}

/** When a request left its queue for a socket. */
const sentEpochMs = (r: OpRecord): number => r.startEpochMs + (r.phases.wait ?? 0);

/** The first of two requests to succeed; if both fail, the first to fail. */
async function firstSucceeded(a: Promise<Settled>, b: Promise<Settled>): Promise<Settled> {
  const first = await Promise.race([a, b]);
  if (!first.record.error) return first;
  const other = await (first.who === 'first' ? b : a);
  return other.record.error ? first : other;
}
