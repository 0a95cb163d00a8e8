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

/** One GET of an item; `onFirstByte` is told when its body's first byte came. */
export type GetRun = (ctx: KindContext, item: WorkItem, sink: Sink, queuedAt: number | undefined, watch?: { onFirstByte(): void }) => Promise<OpRecord>;

interface Waiting {
  startMs: number;
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
  /** Items issued so far (duplicates not counted). */
  private issued = 0;

  constructor(ctx: KindContext, sink: Sink, get: GetRun, hedge: HedgeJob) {
    this.ctx = ctx;
    this.sink = sink;
    this.get = get;
    this.hedge = hedge;
    // Two significant digits are plenty for a delay, and a tenth of the buckets to walk.
    this.earlier = newHistogram(2);
  }

  /**
   * The delay now: fixed, or the percentile of this worker's requests so far, counting those still
   * running as slower than any finished one (a percentile of the finished alone is biased low: the
   * slow ones are the ones not yet back). It is of their whole time even with `on` 'first-byte': a
   * request with no byte by the time that share of requests had finished is stuck.
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
    // Its age counts from now, when its lane sends it: time queued behind the batch is not its own.
    const startMs = performance.now();
    this.issued++;
    const firstStop = new AbortController();
    let firstByte = false;
    const firstScope = this.scoped(firstStop);
    const first = this.get(firstScope.ctx, item, this.sink, queuedAt, { onFirstByte: () => void (firstByte = true) })
      .then((record): Settled => ({ who: 'first', record }))
      .finally(firstScope.done);
    // Re-armed as the delay changes (each finished request moves the percentile); fired, it is checked once.
    for (;;) {
      let waiting!: Waiting;
      const due = new Promise<'due'>((resolve) => (waiting = { startMs, fire: () => resolve('due') }));
      this.waiting.add(waiting);
      this.arm(waiting);
      const got = await Promise.race([first, due]);
      clearTimeout(waiting.timer);
      this.waiting.delete(waiting);
      if (got !== 'due') return this.settle(got.record);
      if (this.ctx.signal.aborted) return this.settle((await first).record);
      // With a first byte, an answer is coming: it is left to finish (no duplicate, no re-arm).
      if (this.hedge.on === 'first-byte' && firstByte) return this.settle((await first).record);
      break;
    }
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
      this.earlier.recordValue(Math.max(1, Math.round((record.totalMs - (record.phases.wait ?? 0)) * 1000)));
      if (this.hedge.afterMs === undefined && this.waiting.size) {
        const before = this.delay?.ms;
        if (this.delayMs() !== before) for (const w of this.waiting) this.arm(w);
      }
    }
    return record;
  }

  private arm(w: Waiting): void {
    clearTimeout(w.timer);
    const delay = this.delayMs();
    if (delay === undefined) return;
    w.timer = setTimeout(w.fire, Math.max(0, w.startMs + delay - performance.now()));
  }

  /** The duplicate's item: the next copy where the object is read from copies, else the same. */
  private copyOf(item: WorkItem): WorkItem {
    const copies = this.hedge.copies;
    if (!copies || copies.length < 2 || item.blob === undefined) return item;
    const at = copies.indexOf(item.blob);
    return at < 0 ? item : { ...item, blob: copies[(at + 1) % copies.length] };
  }

  /**
   * The context a request of its own runs in: its own stop, which the worker's stop also pulls (a
   * listener for the request's life: AbortSignal.any would hang one more dependant on the worker's
   * signal per request); another copy's URL made from its name.
   */
  private scoped(stop: AbortController, otherBlob = false): { ctx: KindContext; done(): void } {
    const pull = () => stop.abort();
    if (this.ctx.signal.aborted) stop.abort();
    else this.ctx.signal.addEventListener('abort', pull, { once: true });
    return {
      ctx: { ...this.ctx, signal: stop.signal, ...(otherBlob ? { urls: undefined } : {}) },
      done: () => this.ctx.signal.removeEventListener('abort', pull),
    };
  }
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
