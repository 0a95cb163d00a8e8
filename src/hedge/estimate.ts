// What a percentile hedge delay is read from: a worker's earlier requests' times in fixed
// log-linear buckets, kept across a contender's runs, and the duplicates' budget beside them.
import type { HedgeJob } from './policy.js';

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

/** Values below this (µs) have a bucket each; above, each power of two has SUB_BUCKETS. */
const LINEAR_BELOW = 128;
const SUB_BUCKETS = 64;
/** Values are clamped to 2^31 - 1 µs (~36 minutes): 1,664 buckets in all. */
const MAX_US = 0x7fffffff;
const BUCKETS = (31 - 5) * SUB_BUCKETS;

/**
 * Counts of request times (µs) in log-linear buckets, each within 1/64 (1.6%) of its values: a
 * delay needs no more. A record is a few integer operations and no allocation, cheaper than an HDR
 * histogram's on every answer of a run of small files that is CPU-bound in the client. Only the
 * hedger reads it, in this process: it is never encoded or merged.
 */
export class RequestTimes {
  private readonly counts = new Float64Array(BUCKETS);
  /** The highest bucket with a count: where a walk for a rank may stop. */
  private top = 0;
  totalCount = 0;

  recordValue(us: number): void {
    const at = bucketOf(us);
    this.counts[at]!++;
    if (at > this.top) this.top = at;
    this.totalCount++;
  }

  /**
   * The highest value of the bucket that holds the `rank`-th smallest time (1-based), as an HDR histogram's
   * percentile reads; 0 when empty.
   */
  valueAtRank(rank: number): number {
    const counts = this.counts;
    let seen = 0;
    for (let at = 0; at <= this.top; at++) {
      seen += counts[at]!;
      if (seen >= rank) return highestOf(at);
    }
    return highestOf(this.top);
  }
}

/**
 * A time's bucket: its value below LINEAR_BELOW, else its power of two and the 6 bits after its leading one.
 */
function bucketOf(us: number): number {
  const v = us < 1 ? 1 : us > MAX_US ? MAX_US : us | 0;
  if (v < LINEAR_BELOW) return v;
  const exp = 31 - Math.clz32(v);
  return (exp - 5) * SUB_BUCKETS + ((v >>> (exp - 6)) & (SUB_BUCKETS - 1));
}

/** The highest value a bucket holds. */
function highestOf(at: number): number {
  if (at < LINEAR_BELOW) return at;
  const shift = (at >>> 6) - 1;
  return ((at & (SUB_BUCKETS - 1)) + SUB_BUCKETS + 1) * 2 ** shift - 1;
}

/**
 * Earlier requests of one kind: their times (sent to last byte, µs), how many were sent, and the delay as
 * last read from them.
 */
export interface EarlierRequests {
  earlier: RequestTimes;
  issued: number;
  /**
   * How many had finished when the percentile delay was last read (-1: not read since a hedger started), and
   * what it was then: numbers, not an object made at each reading.
   */
  readAt: number;
  readMs: number | undefined;
}

/**
 * What a percentile delay is read from: this worker's earlier requests, those on a reused connection
 * and those on one opened for them apart. A run's first requests each open a connection, and the
 * server takes them all at once: compared with the requests on warm connections (most of a run of
 * small files) they are late by design, and hedging them would duplicate many requests that have no
 * straggler, each one's abort costing a connection. Kept across a contender's runs
 * (`KeptBuffers.keep`): a fresh estimate every run would leave each run's first requests unhedged
 * (none before 10 have finished) and read its delay from a handful of samples.
 */
export interface HedgeEstimate {
  reused: EarlierRequests;
  fresh: EarlierRequests;
  /**
   * The duplicates' budget left, in credits (`HEDGE_BUDGET`): kept across the contender's runs with the
   * times.
   */
  credits: number;
}

export const newHedgeEstimate = (): HedgeEstimate => ({
  reused: earlierRequests(),
  fresh: earlierRequests(),
  credits: HEDGE_BUDGET.reserve,
});
const earlierRequests = (): EarlierRequests => ({
  earlier: new RequestTimes(),
  issued: 0,
  readAt: -1,
  readMs: undefined,
});

/** The jobs whose requests are alike enough to share an estimate: one contender's runs in a worker. */
export function hedgeEstimateKey(job: EstimateJob, items: number): string {
  const h = job.hedge;
  const shape = `${job.strategy}|${job.objectSizeBytes}|${items}|${job.concurrency}|${job.maxSockets}`;
  return `hedge|${shape}|${h?.percentile ?? ''}|${h?.afterMs ?? ''}|${h?.on ?? ''}`;
}

/** What an estimate's key reads of the job. */
export interface EstimateJob {
  strategy: string;
  objectSizeBytes: number;
  concurrency: number;
  maxSockets: number;
  hedge?: HedgeJob;
}
