// Whole-object completion beside request latency, and what --hedge did: per contender, over its
// measured runs, from what every run carried (the `object` histogram, its sums, its hedge counts),
// so that it adds up however many runs and workers there were.
import { type LatencySummaryMs, sumEncoded, summarizeHistogram } from '../metrics/histograms.js';
import type { RunRecord } from '../results/schema.js';

export interface ObjectCompletion {
  /** Objects that completed, and their completion time (first request's start to last part's end). */
  latencyMs: LatencySummaryMs;
  /**
   * Of the summed completion time, the share the slowest part ran on alone; undefined where every object was
   * one request.
   */
  stragglerShare?: number;
}

export interface HedgeSummary {
  /** Duplicates issued (extra requests, billed), and those that finished first. */
  issued: number;
  won: number;
  /** Issued per request the run counted (its items), and the losers' bytes. */
  extraRequestShare: number;
  extraBytes: number;
}

type Measured = Pick<RunRecord, 'warmup' | 'histograms' | 'objects' | 'hedge' | 'requests'>;

export function objectCompletion(runs: readonly Measured[]): ObjectCompletion | undefined {
  const counted = runs.filter((r) => !r.warmup && r.objects && r.histograms.object);
  const h = sumEncoded(counted.map((r) => r.histograms.object!));
  let completion = 0;
  let straggler = 0;
  let split = false;
  for (const { objects, requests } of counted) {
    completion += objects!.completionMsSum;
    straggler += objects!.stragglerMsSum;
    // A split object's run is one object of many requests; many files are one request each.
    split ||= objects!.objects < requests;
  }
  if (!h || h.totalCount === 0) return undefined;
  return {
    latencyMs: summarizeHistogram(h),
    ...(split && completion > 0 ? { stragglerShare: straggler / completion } : {}),
  };
}

/** What --hedge did over the measured runs; undefined where it did not run. */
export function hedgeSummary(runs: readonly Measured[]): HedgeSummary | undefined {
  const hedged = runs.filter((r) => !r.warmup && r.hedge);
  if (!hedged.length) return undefined;
  const sum = (f: (r: Measured) => number) => hedged.reduce((s, r) => s + f(r), 0);
  const issued = sum((r) => r.hedge!.issued);
  const requests = sum((r) => r.requests);
  return {
    issued,
    won: sum((r) => r.hedge!.won),
    extraRequestShare: requests > 0 ? issued / requests : 0,
    extraBytes: sum((r) => r.hedge!.extraBytes),
  };
}
