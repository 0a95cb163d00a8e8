// --hedge for GETs ("The Tail at Scale", Dean and Barroso, 2013): a request that has had no first
// byte (or not finished) after a delay gets a duplicate, to the next copy of the object where it is
// read from copies, else to the same URL; the first to finish wins and the other is aborted. Both
// write the same bytes to the same place in the sink, so what is verified is what the winner brought.
import { performance } from 'node:perf_hooks';
import type * as Hdr from 'hdr-histogram-js';
import { newHistogram } from '../metrics/histograms.js';
import type { OpRecord } from '../metrics/records.js';
import type { WorkItem } from '../plan/items.js';
import type { KindContext } from './kind.js';
import type { HedgeJob } from './job.js';
import type { Sink } from './sinks.js';
import type { SentWatch, StopSignal } from '../transport/http-client.js';

/** A percentile of fewer earlier requests than this is noise: until then a request is not hedged. */
export const MIN_HEDGE_SAMPLES = 10;

/**
 * The duplicates' budget, as Finagle's backup requests and gRPC's hedging throttle bound theirs: a
 * token bucket in whole credits (no float drift), each item sent earning 1 and a duplicate costing
 * `perDuplicate` (20: at most 5% extra requests), topped up to `reserve` when a run starts (two
 * duplicates: a run of a few requests, as round-robin's four, may still hedge its stragglers, as
 * Finagle's retry budget keeps a floor a second for clients that send few requests), up to `max`
 * (a burst of at most 10 duplicates at once). Whatever the hedger's rules
 * miss (`straggling`, `commonSlowdown`: a server that answers out of order when overloaded, or
 * too many stragglers to be worth it), the extra load stays bounded.
 */
export const HEDGE_BUDGET = { perDuplicate: 20, reserve: 40, max: 200 } as const;

/** What a GET tells as it goes: each try written to its socket, and its body's first byte; and its own stop. */
export interface GetWatch {
  /** Told when each try is written to its socket (on a reused connection or a new one). */
  sent?: SentWatch;
  onFirstByte?(): void;
  /** Stops this request alone (the hedger's); else the worker's stop does. */
  signal?: StopSignal;
}

/** One GET of an item. */
export type GetRun = (ctx: KindContext, item: WorkItem, sink: Sink, queuedAt: number | undefined, watch?: GetWatch) => Promise<OpRecord>;

/**
 * A stop for one request. An AbortController (an EventTarget) per hedged GET, with the closures and
 * promises around it, cost ~4 µs of CPU a request: a tenth of a 4 KiB GET's, and a run of many
 * small files is CPU-bound in the client.
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
 * for the stop). Beside it, only the callback that lands its answer. Most requests answer before
 * their delay, and each object made per request was garbage that a run of 2,000 small files,
 * CPU-bound in the client, paid for in GC. The race is made only when a duplicate goes.
 */
class Flight extends Stop implements GetWatch, SentWatch {
  readonly hedger: Hedger;
  readonly item: WorkItem;
  /** Its stop, and what its transport tells of its sending, are itself. */
  readonly signal: StopSignal;
  readonly sent: SentWatch;
  first!: Promise<OpRecord>;
  /** When the request was written to its socket; until then its age does not run. */
  sentMs?: number;
  /** Written on a connection opened for it (its age is compared with other such requests'). */
  fresh = false;
  /** Items answered by when it could count as overtaken: those answered at its sending, and the ones then in flight before it. */
  passMark = 0;
  /** Watched against its delay (until it answers or is checked). */
  watched = true;
  /** Its delay has passed and its check is queued. */
  fired = false;
  firstByte = false;
  /** It answered before its check: the item is done. */
  done = false;
  /** Once checked past its delay: what the item's record is then (the race, or the first request alone). */
  decided?: Promise<OpRecord>;

  constructor(hedger: Hedger, item: WorkItem) {
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

type Settled = { who: 'first' | 'hedge'; record: OpRecord };

/** Earlier requests of one kind: their times (sent to last byte, µs), how many were sent, and the delay as last read from them. */
export interface EarlierRequests {
  earlier: Hdr.Histogram;
  issued: number;
  /** How many had finished when the percentile delay was last read (-1: not read since a hedger started), and what it was then: numbers, not an object made at each reading. */
  readAt: number;
  readMs: number | undefined;
}

/**
 * What a percentile delay is read from: this worker's earlier requests, those on a reused connection
 * and those on one opened for them apart. A run's first requests each open a connection, and the
 * server takes them all at once: compared with the requests on warm connections (most of a run of
 * small files) they were late by design, and their duplicates were ~40% of those that went without
 * stragglers, each one's abort costing a connection. Kept across a contender's runs
 * (`KeptBuffers.keep`): a fresh estimate every run left each run's first requests unhedged (none
 * before 10 had finished) and read its delay from a handful of samples.
 */
export interface HedgeEstimate {
  reused: EarlierRequests;
  fresh: EarlierRequests;
  /** The duplicates' budget left, in credits (`HEDGE_BUDGET`): kept across the contender's runs with the times. */
  credits: number;
}

// Two significant digits are plenty for a delay, and a tenth of the buckets to walk.
export const newHedgeEstimate = (): HedgeEstimate => ({ reused: earlierRequests(), fresh: earlierRequests(), credits: HEDGE_BUDGET.reserve });
const earlierRequests = (): EarlierRequests => ({ earlier: newHistogram(2), issued: 0, readAt: -1, readMs: undefined });

/** The jobs whose requests are alike enough to share an estimate: one contender's runs in a worker. */
export function hedgeEstimateKey(job: KindContext['job'], items: number): string {
  const h = job.hedge;
  return `hedge|${job.strategy}|${job.objectSizeBytes}|${items}|${job.concurrency}|${job.maxSockets}|${h?.percentile ?? ''}|${h?.afterMs ?? ''}|${h?.on ?? ''}`;
}

export class Hedger {
  private readonly ctx: KindContext;
  private readonly sink: Sink;
  private readonly get: GetRun;
  private readonly hedge: HedgeJob;
  /** This worker's earlier requests' times and the items issued: what a percentile delay is read from. */
  private readonly estimate: HedgeEstimate;
  /**
   * The items in flight, each first request's Flight (its own Stop, which the worker's stop pulls):
   * one set for both jobs, one add and one delete a request.
   */
  private readonly flights = new Set<Flight>();
  /** How many of them are watched against their delay. */
  private watching = 0;
  /** The duplicates' stops in flight, pulled by the worker's stop too. */
  private readonly duplicates = new Set<Stop>();
  /**
   * The earliest deadline of those sent and not yet checked (it may be early, once that request has
   * answered; never late). Late requests are looked for as answers come, when it has passed: no
   * timer while the lanes are busy, where one a millisecond or two away was re-armed as it fired.
   */
  private dueMs = Infinity;
  /**
   * The timer, only where answers may not come to look for late requests: one lane, or half the
   * lanes or fewer still waiting (the tail of a run, the last ranges of a split object). One for all
   * of them: a timer set and cleared per request cost ~2 µs of CPU each.
   */
  private timer?: NodeJS.Timeout;
  private timerAtMs = Infinity;
  /** The context of a duplicate to another copy: its URL made from its name. */
  private readonly otherCopyCtx: KindContext;
  /** Items answered so far, and those sent and not yet answered: what tells a request overtaken by later ones. */
  private answered = 0;
  private outstanding = 0;

  /** `estimate`: one kept from this contender's earlier runs, else a fresh one. */
  constructor(ctx: KindContext, sink: Sink, get: GetRun, hedge: HedgeJob, estimate = newHedgeEstimate()) {
    this.ctx = ctx;
    this.sink = sink;
    this.get = get;
    this.hedge = hedge;
    // Every item of the earlier runs has settled: those that failed (not in the histogram) must not
    // count as still running, or a high percentile's rank would stay out of reach.
    for (const kind of [estimate.reused, estimate.fresh]) {
      kind.issued = kind.earlier.totalCount;
      kind.readAt = -1;
    }
    estimate.credits = Math.max(estimate.credits, HEDGE_BUDGET.reserve);
    this.estimate = estimate;
    this.otherCopyCtx = { ...ctx, urls: undefined };
    ctx.signal.addEventListener('abort', () => {
      for (const f of this.flights) f.abort();
      for (const stop of this.duplicates) stop.abort();
    }, { once: true });
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
    // A histogram's percentile walks its buckets (~2 µs here): read once per few requests settled, not per request sent.
    if (kind.readAt >= 0 && finished - kind.readAt < Math.max(1, finished >> 6)) return kind.readMs;
    const rank = Math.ceil(((this.hedge.percentile ?? 95) / 100) * kind.issued);
    const ms = finished < MIN_HEDGE_SAMPLES || rank > finished ? undefined : kind.earlier.getValueAtPercentile((100 * rank) / finished) / 1000;
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
   * No longer watched. With nothing left to watch the timer goes (it would hold this hedger, its
   * sink included, until it fired); with few left, answers may stop coming, and the timer starts.
   */
  private unwatch(f: Flight): void {
    if (!f.watched) return;
    f.watched = false;
    this.watching--;
    if (this.watching === 0 || this.timerNeeded()) this.rearm();
  }

  /** A request past its delay, checked after the loop's I/O: a duplicate goes, unless an answer is on its way. */
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
    const second = this.get(copy === item ? this.ctx : this.otherCopyCtx, copy, this.sink, undefined, { signal: hedgeStop });
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
      hedge: { won: winner.who, afterMs: Math.max(0, duplicate.startEpochMs - sentEpochMs(original)), loserBytes: loser.bytes },
    });
  }

  /** The job is over: no timer may outlive it. */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.timerAtMs = Infinity;
    this.dueMs = Infinity;
    for (const f of this.flights) f.watched = false;
    this.watching = 0;
  }

  /** A request was written to its socket: its clock starts, and the next deadline (and the timer, if one runs) is brought forward if it is due first. */
  sentNow(f: Flight): void {
    this.kindOf(f.fresh).issued++;
    f.passMark = this.answered + this.outstanding++;
    const budget = this.estimate;
    if (budget.credits < HEDGE_BUDGET.max) budget.credits++;
    if (!f.watched) return;
    const delay = this.delayMs(f.fresh);
    if (delay === undefined) return;
    const at = f.sentMs! + delay;
    if (at < this.dueMs) this.dueMs = at;
    if (at < this.timerAtMs && this.timerNeeded()) this.armAt(at);
  }

  /** Where answers may not come to look for late requests: one lane, or half the lanes or fewer still waiting. */
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
   * take a socket from the next item and cost a connection when aborted. On the emulated target
   * without stalls, 2.5-5 duplicates a run of 2,000 files went so, in bursts, and 9 in 10 lost; a
   * quarter of the lanes' worth still let ~1.3 a run go, 1 in 60 winning (a busy server answers a
   * few requests out of order). A stalled request is passed by every later one: 16 lanes pass it in
   * about a millisecond.
   */
  private straggling(f: Flight): boolean {
    const lanes = this.ctx.lanes;
    return lanes < 2 || this.watching === 1 || this.answered - f.passMark >= lanes;
  }

  /**
   * An item is done: a finished request's time becomes an earlier request's (a percentile delay's);
   * a changed delay moves the deadlines. Past the next deadline, the late requests are looked for.
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
      kind.earlier.recordValue(Math.max(1, Math.round(sinceSentMs(record) * 1000)));
      if (this.watching) {
        const before = kind.readMs;
        if (this.delayMs(fresh) !== before) this.rearm();
      }
    }
    // Now, as the request's own end says (performance.now() costs ~130 ns on this VM, a call per answer).
    if (this.watching && this.dueMs <= record.startEpochMs - performance.timeOrigin + record.totalMs) this.lookForLate();
    return record;
  }

  private readonly onTimer = (): void => {
    this.timer = undefined;
    this.timerAtMs = Infinity;
    this.lookForLate();
  };

  /**
   * Each request sent longer ago than the delay is checked, after the loop's I/O (setImmediate runs
   * after the poll phase): an answer that came while this process was busy is read first, not taken
   * for a stall. Then the next deadline is found.
   */
  private lookForLate(): void {
    const now = performance.now();
    // Most lanes late at once is a slowdown of the server's (or of this machine) that every request
    // meets, not a straggler: a duplicate would wait behind it, take a socket from the next item,
    // and its abort cost a connection. (Without this rule, a pause of the server's sent a duplicate
    // for every lane.) So is a late request that no later one has passed (`straggling`). Such
    // requests are held and looked at again with the next answer (or in a millisecond where a timer
    // runs); one still late once later ones pass it is a straggler. Two passes over the few in
    // flight, not an array of the late made at every turn.
    let late = 0;
    for (const f of this.flights) if (this.isLate(f, now)) late++;
    if (late && !commonSlowdown(late, this.ctx.lanes)) {
      for (const f of this.flights) {
        // Past the budget, a straggler is held like the rest: it may go once later requests earn credit.
        if (this.estimate.credits < HEDGE_BUDGET.perDuplicate) break;
        if (!this.isLate(f, now) || !this.straggling(f)) continue;
        this.estimate.credits -= HEDGE_BUDGET.perDuplicate;
        f.fired = true;
        setImmediate(this.check, f);
      }
    }
    this.rearm();
  }

  /** Watched, sent, not yet checked, and past its delay at `now`. */
  private isLate(f: Flight, now: number): boolean {
    if (!f.watched || f.fired || f.sentMs === undefined) return false;
    const delay = this.delayMs(f.fresh);
    return delay !== undefined && f.sentMs + delay <= now;
  }

  /**
   * The next deadline: the earliest of the requests sent and not yet checked, a late one held among
   * them (so it is looked at again with the next answer, or in a millisecond), if any; the timer at
   * it where one is needed.
   */
  private rearm(): void {
    let at = Infinity;
    if (this.watching) {
      for (const f of this.flights) {
        if (!f.watched || f.fired || f.sentMs === undefined) continue;
        const delay = this.delayMs(f.fresh);
        if (delay !== undefined) at = Math.min(at, f.sentMs + delay);
      }
    }
    this.dueMs = at;
    if (at === Infinity || !this.timerNeeded()) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.timerAtMs = Infinity;
    } else this.armAt(at);
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
