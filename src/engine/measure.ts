// From what the workers sent to one MeasuredRun, built once and complete: counts, phase sums and
// merged histograms, nothing derived that analysis cannot recompute; what the run cost outside its
// timed span; and its verification.
import type { SteadyOptions } from '../config/load.js';
import { splitObject } from '../metrics/objects.js';
import { countInto, emptyTotals } from '../metrics/totals.js';
import type { MeasuredRun, RunIdentity, Verification } from '../results/record.js';
import type { WorkerEvidence } from '../results/schema.js';
import type { MergedRun, WorkerSummary } from '../workers/pool.js';

/** What a steady run was asked for (its options and one pass over its items), beside what it measured. */
export type SteadyPlan = SteadyOptions & { lapBytes: number; lapRequests: number };

/** What one worker measured about itself; a steady run's requests are its totals, not its records. */
const evidenceOf = (w: WorkerSummary): WorkerEvidence => ({
  index: w.workerIndex,
  requests: w.steady?.totals.requests ?? w.requests,
  activeMs: w.endEpochMs - w.startEpochMs,
  cpuUserMs: w.cpuUserMs,
  cpuSystemMs: w.cpuSystemMs,
  peakRssBytes: w.peakRssBytes,
  eventLoopDelayP99Ms: w.eventLoopDelayP99Ms,
});

/** What a run measured besides its requests. */
export interface RunExtras {
  plan?: SteadyPlan;
  /** The same span on the server's clock, where it was read. */
  serverSpanMs?: number;
  untimedMs?: MeasuredRun['untimedMs'];
  /** --hedge ran: its counts are recorded, zeros included. */
  hedged?: boolean;
}

/** --connections warm: the sockets every worker had open at the release, summed. */
function warmSocketsOf(merged: MergedRun): { warmSockets?: number } {
  const warm = merged.workers.filter((w) => w.warmSockets !== undefined);
  return warm.length ? { warmSockets: warm.reduce((a, w) => a + w.warmSockets!, 0) } : {};
}

/** A steady run's series and laps, and where --autoterm ended it. */
function steadyRecord(
  merged: MergedRun,
  steady: NonNullable<MergedRun['steady']>,
  plan: NonNullable<RunExtras['plan']>,
): NonNullable<MeasuredRun['steady']> {
  return {
    releaseEpochMs: steady.releaseEpochMs,
    durationMs: plan.durationMs,
    intervalMs: steady.intervalMs,
    lapBytes: plan.lapBytes,
    lapRequests: plan.lapRequests,
    laps: steady.laps,
    workers: steady.workers,
    series: steady.series,
    ...(merged.autotermAtMs !== undefined && plan.autoterm
      ? { autoterm: { atMs: merged.autotermAtMs, ...plan.autoterm } }
      : {}),
  };
}

/**
 * One run's record. Its counts are totals over every request: a steady run's from the workers'
 * meters (every lap; the pool has counted a step after the workers, an upload's commit, into them),
 * a many-file run's from the workers' summaries, any other's summed here over its records, the same way.
 */
export function measuredRun(
  id: RunIdentity,
  merged: MergedRun,
  check: Verification,
  extra: RunExtras = {},
): MeasuredRun {
  const hedged = extra.hedged === true;
  const { plan } = extra;
  const steady = plan ? merged.steady : undefined;
  // Many files: the workers counted every request; the records are a sample.
  let t = steady?.totals ?? merged.train?.totals ?? merged.summary?.totals;
  if (!t) {
    t = emptyTotals();
    for (const r of merged.records) countInto(t, r);
  }
  // Many files: the workers timed each one. One object (counted in MiB/s): one per run, split into
  // its requests. Listings and HEADs move no object; a steady run's records keep each item's last only.
  const objects =
    merged.objects ??
    (steady || merged.train || id.unit !== 'MiB/s'
      ? undefined
      : splitObject(merged.records, merged.histograms));
  return {
    ...id,
    wallMs: merged.wallMs,
    bytes: t.bytes,
    requests: t.requests,
    failedRequests: t.failed,
    reusedSockets: t.reused,
    retries: t.retries,
    throttled: t.throttled,
    ...(t.throttledBy ? { throttledBy: t.throttledBy } : {}),
    ...(t.faults ? { faults: t.faults } : {}),
    backoffMs: t.backoffMs,
    phaseSumsMs: t.phaseSumsMs,
    requestSumMs: t.requestSumMs,
    histograms: merged.histograms.encode(),
    ...(objects && objects.objects > 0 ? { objects } : {}),
    ...(hedged
      ? { hedge: { issued: t.hedges ?? 0, won: t.hedgesWon ?? 0, extraBytes: t.hedgeBytes ?? 0 } }
      : {}),
    ...check,
    workers: merged.workers.map(evidenceOf),
    ...(steady && plan ? { steady: steadyRecord(merged, steady, plan) } : {}),
    ...(merged.openLoop ? { openLoop: merged.openLoop } : {}),
    ...(merged.train ? { train: merged.train.record } : {}),
    records: merged.records,
    ...(merged.summary ? { recordsSampled: true } : {}),
    ...(extra.serverSpanMs === undefined ? {} : { serverSpanMs: extra.serverSpanMs }),
    ...(extra.untimedMs ? { untimedMs: extra.untimedMs } : {}),
    ...warmSocketsOf(merged),
  };
}
