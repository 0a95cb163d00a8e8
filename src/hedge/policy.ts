// How the get kind sends each item's GET: once, or watched and duplicated when it is late (--hedge).
// The kind asks a policy for every item and never tests whether hedging is on: with --hedge off it
// holds the null policy, which sends each request once (as azcopy's concurrency tuner is a policy
// behind an interface, with a null one where tuning is off).
import type { OpRecord } from '../metrics/records.js';
import type { WorkItem } from '../plan/items.js';
import type { SentWatch, StopSignal } from '../transport/http-client.js';

/**
 * get: --hedge. A request with no first byte (`on` 'first-byte') or not finished ('finish') after
 * `afterMs`, or after the `percentile` of this worker's earlier requests' times, gets a duplicate:
 * to the next of `copies` when the object is read from copies, else to the same URL.
 */
export interface HedgeJob {
  afterMs?: number;
  percentile?: number;
  on: 'first-byte' | 'finish';
  copies?: readonly string[];
}

/** What hedging reads of a kind's context: the worker's stop, its lanes, the URLs made before the barrier. */
export interface HedgeContext {
  signal: AbortSignal;
  lanes: number;
  urls?: ReadonlyMap<number, URL>;
}

/**
 * What a GET tells as it goes: each try written to its socket, and its body's first byte; and its own stop.
 */
export interface GetWatch {
  /** Told when each try is written to its socket (on a reused connection or a new one). */
  sent?: SentWatch;
  onFirstByte?(): void;
  /** Stops this request alone (the hedger's); else the worker's stop does. */
  signal?: StopSignal;
}

/** One GET of an item, into `sink`. */
export type GetRun<C extends HedgeContext = HedgeContext, S = unknown> = (
  ctx: C,
  item: WorkItem,
  sink: S,
  queuedAt: number | undefined,
  watch?: GetWatch,
) => Promise<OpRecord>;

/** How each item of a job is sent. */
export interface HedgePolicy {
  /** The item's record: its GET's, or the first to finish of its GET and a duplicate. */
  run(item: WorkItem, queuedAt: number | undefined): Promise<OpRecord>;
  /** The job is over: a timer it holds goes. */
  close(): void;
}

/** The null policy (--hedge off): each item's GET, once. */
export class SendOnce<C extends HedgeContext, S> implements HedgePolicy {
  private readonly ctx: C;
  private readonly sink: S;
  private readonly get: GetRun<C, S>;

  constructor(ctx: C, sink: S, get: GetRun<C, S>) {
    this.ctx = ctx;
    this.sink = sink;
    this.get = get;
  }

  run(item: WorkItem, queuedAt: number | undefined): Promise<OpRecord> {
    return this.get(this.ctx, item, this.sink, queuedAt);
  }

  close(): void {}
}
