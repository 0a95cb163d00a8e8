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

/** A percentile of fewer earlier requests than this is noise: until then a request is not hedged. */
export const MIN_HEDGE_SAMPLES = 10;

/** What a GET tells as it goes: each try written to its socket, and its body's first byte. */
export interface GetWatch {
  onSent?(): void;
  onFirstByte?(): void;
}

/** One GET of an item. */
export type GetRun = (ctx: KindContext, item: WorkItem, sink: Sink, queuedAt: number | undefined, watch?: GetWatch) => Promise<OpRecord>;

interface Waiting {
  /** When the request was written to its socket; until then its age does not run. */
  sentMs?: number;
  timer?: NodeJS.Timeout;
  fire(): void;
}

type Settled = { who: 'first' | 'hedge'; record: OpRecord };

export class Hedger {
  private readonly ctx: KindContext;
  private readonly sink: Sink;
  private readonly get: GetRun;
  private readonly hedge: HedgeJob;
  /** This worker's earlier requests' times (issue to last byte, µs): what a percentile delay is read from. */
  private readonly earlier: Hdr.Histogram;
  private readonly waiting = new Set<Waiting>();
  /** The percentile delay as last read, and how many had finished then. */
  private delay?: { at: number; ms: number | undefined };
  /** The stops of the requests in flight, pulled by the worker's stop. */
  private readonly live = new Set<AbortController>();
  /** Items issued so far (duplicates not counted). */
  private issued = 0;

  constructor(ctx: KindContext, sink: Sink, get: GetRun, hedge: HedgeJob) {
    this.ctx = ctx;
    this.sink = sink;
    this.get = get;
    this.hedge = hedge;
    // Two significant digits are plenty for a delay, and a tenth of the buckets to walk.
    this.earlier = newHistogram(2);
    ctx.signal.addEventListener('abort', () => {
      for (const stop of this.live) stop.abort();
    }, { once: true });
  }

  /**
   * The delay now: fixed, or the percentile of this worker's requests so far (each from being
   * written to its socket to its last byte), counting those still running as slower than any
   * finished one (a percentile of the finished alone is biased low: the slow ones are the ones not
   * yet back). It is of their whole time even with `on` 'first-byte': a request with no byte by the
   * time that share of requests had finished is stuck.
   */
  delayMs(): number | undefined {
    if (this.hedge.afterMs !== undefined) return this.hedge.afterMs;
    const finished = this.earlier.totalCount;
    // A histogram's percentile walks its buckets (~0.1 ms): read once per few requests settled, not per request armed.
    if (this.delay && finished - this.delay.at < Math.max(1, finished >> 6)) return this.delay.ms;
    const rank = Math.ceil(((this.hedge.percentile ?? 95) / 100) * this.issued);
    const ms = finished < MIN_HEDGE_SAMPLES || rank > finished ? undefined : this.earlier.getValueAtPercentile((100 * rank) / finished) / 1000;
    this.delay = { at: finished, ms };
    return ms;
  }

  async run(item: WorkItem, queuedAt: number | undefined): Promise<OpRecord> {
    this.issued++;
    const firstStop = new AbortController();
    let firstByte = false;
    let waiting!: Waiting;
    // Checked after the loop's I/O (setImmediate runs after the poll phase, timers before it): an
    // answer that came while this process was busy is read first, not taken for a stall.
    const due = new Promise<'due'>((resolve) => (waiting = { fire: () => void setImmediate(() => resolve('due')) }));
    // Its age runs from when it is written to its socket: time queued for a socket or spent
    // connecting is not a stall of the server's, and a duplicate would queue and connect as well.
    const onSent = () => {
      if (waiting.sentMs !== undefined) return;
      waiting.sentMs = performance.now();
      if (this.waiting.has(waiting)) this.arm(waiting);
    };
    const firstScope = this.scoped(firstStop);
    const first = this.get(firstScope.ctx, item, this.sink, queuedAt, { onSent, onFirstByte: () => void (firstByte = true) })
      .then((record): Settled => ({ who: 'first', record }))
      .finally(firstScope.done);
    // Re-armed as the delay changes (each finished request moves the percentile); fired, it is checked once.
    this.waiting.add(waiting);
    this.arm(waiting);
    const got = await Promise.race([first, due]);
    clearTimeout(waiting.timer);
    this.waiting.delete(waiting);
    if (got !== 'due') return this.settle(got.record);
    // With a first byte, an answer is coming: it is left to finish.
    if (this.ctx.signal.aborted || (this.hedge.on === 'first-byte' && firstByte)) return this.settle((await first).record);
    const hedgeStop = new AbortController();
    const copy = this.copyOf(item);
    const secondScope = this.scoped(hedgeStop, copy !== item);
    const second = this.get(secondScope.ctx, copy, this.sink, undefined)
      .then((record): Settled => ({ who: 'hedge', record }))
      .finally(secondScope.done);
    const winner = await firstSucceeded(first, second);
    (winner.who === 'first' ? hedgeStop : firstStop).abort();
    // The loser is awaited: its last writes into the sink (the same bytes) land before the item is done.
    const loser = (await (winner.who === 'first' ? second : first)).record;
    const [original, duplicate] = winner.who === 'first' ? [winner.record, loser] : [loser, winner.record];
    return this.settle({
      ...winner.record,
      hedge: { won: winner.who, afterMs: Math.max(0, duplicate.startEpochMs - sentEpochMs(original)), loserBytes: loser.bytes },
    });
  }

  /** A finished request's time becomes an earlier request's; the waiting ones are re-armed on it. */
  private settle(record: OpRecord): OpRecord {
    if (!record.error) {
      this.earlier.recordValue(Math.max(1, Math.round(sinceSentMs(record) * 1000)));
      if (this.hedge.afterMs === undefined && this.waiting.size) {
        const before = this.delay?.ms;
        if (this.delayMs() !== before) for (const w of this.waiting) this.arm(w);
      }
    }
    return record;
  }

  private arm(w: Waiting): void {
    clearTimeout(w.timer);
    const delay = w.sentMs === undefined ? undefined : this.delayMs();
    if (delay === undefined) return;
    // Whole ms: Node keeps one list per timer duration, and a fractional duration made a new list
    // (and a new libuv timer) for every request.
    w.timer = setTimeout(w.fire, Math.max(1, Math.ceil(w.sentMs! + delay - performance.now())));
  }

  /** The duplicate's item: the next copy where the object is read from copies, else the same. */
  private copyOf(item: WorkItem): WorkItem {
    const copies = this.hedge.copies;
    if (!copies || copies.length < 2 || item.blob === undefined) return item;
    const at = copies.indexOf(item.blob);
    return at < 0 ? item : { ...item, blob: copies[(at + 1) % copies.length] };
  }

  /**
   * The context a request of its own runs in: its own stop, which the worker's stop also pulls (one
   * listener on the worker's signal for all of them: a listener added and removed per request, or
   * AbortSignal.any, cost each GET); another copy's URL made from its name.
   */
  private scoped(stop: AbortController, otherBlob = false): { ctx: KindContext; done(): void } {
    if (this.ctx.signal.aborted) stop.abort();
    else this.live.add(stop);
    return {
      ctx: { ...this.ctx, signal: stop.signal, ...(otherBlob ? { urls: undefined } : {}) },
      done: () => void this.live.delete(stop),
    };
  }
}

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
