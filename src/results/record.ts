// From what the workers sent to one RunRecord: counts, phase sums and merged histograms, nothing
// derived that analysis cannot recompute. The in-memory form keeps every raw request; the stored
// form keeps rows, sampled evenly past MAX_RECORDS_PER_RUN.
import type { OpRecord } from '../metrics/records.js';
import { PHASES, type Phase } from '../transport/phases.js';
import type { MergedRun } from '../workers/pool.js';
import type { WorkerResult } from '../workers/protocol.js';
import type { MergedSteady } from '../workers/steady.js';
import type { SteadyOptions } from '../config/load.js';
import { MAX_RECORDS_PER_RUN, type Cell, type RecordRow, type RunParams, type RunRecord, type WorkerEvidence } from './schema.js';

/** A run as the engine holds it: the record with every raw request as an object. */
export interface MeasuredRun extends Omit<RunRecord, 'records' | 'recordsSampled'> {
  records: OpRecord[];
}

export interface RunIdentity {
  strategy: string;
  description: string;
  cell?: Cell;
  params?: RunParams;
  run: number;
  warmup: boolean;
  objectSizeBytes: number;
}

export interface Verification {
  verified: boolean;
  verification: string;
  error?: string;
}

/** What a steady run was asked for (its options and one pass over its items), beside what it measured. */
export type SteadyPlan = SteadyOptions & { lapBytes: number; lapRequests: number };

/** What one worker measured about itself; a steady run's requests are its totals, not its records. */
const evidenceOf = (w: WorkerResult): WorkerEvidence => ({
  index: w.workerIndex, requests: w.steady?.totals.requests ?? w.records.length, activeMs: w.endEpochMs - w.startEpochMs, cpuUserMs: w.cpuUserMs,
  cpuSystemMs: w.cpuSystemMs, peakRssBytes: w.peakRssBytes, eventLoopDelayP99Ms: w.eventLoopDelayP99Ms,
});

export function measuredRun(id: RunIdentity, merged: MergedRun, check: Verification, plan?: SteadyPlan): MeasuredRun {
  if (merged.steady && plan) return steadyRun(id, merged, check, plan, merged.steady);
  const ok = merged.records.filter((r) => !r.error);
  const phaseSumsMs: Partial<Record<Phase, number>> = {};
  for (const p of PHASES) {
    if (ok.some((r) => r.phases[p] !== undefined)) phaseSumsMs[p] = ok.reduce((s, r) => s + (r.phases[p] ?? 0), 0);
  }
  const sum = (f: (r: OpRecord) => number) => merged.records.reduce((s, r) => s + f(r), 0);
  return {
    ...id,
    wallMs: merged.wallMs,
    bytes: sum((r) => r.bytes),
    requests: merged.records.length,
    failedRequests: merged.records.length - ok.length,
    reusedSockets: merged.records.filter((r) => r.reused).length,
    retries: sum((r) => r.retries),
    throttled: sum((r) => r.throttled),
    backoffMs: sum((r) => r.backoffMs),
    phaseSumsMs,
    requestSumMs: ok.reduce((s, r) => s + r.totalMs, 0),
    histograms: merged.histograms.encode(),
    ...check,
    workers: merged.workers.map(evidenceOf),
    records: merged.records,
  };
}

/** Every lap counted from the workers' totals; the evidence per worker is the same as a plain run's. */
function steadyRun(id: RunIdentity, merged: MergedRun, check: Verification, plan: SteadyPlan, steady: MergedSteady): MeasuredRun {
  // The pool has counted a step after the workers (an upload's commit) into the totals.
  const t = steady.totals;
  return {
    ...id,
    wallMs: merged.wallMs,
    bytes: t.bytes,
    requests: t.requests,
    failedRequests: t.failed,
    reusedSockets: t.reused,
    retries: t.retries,
    throttled: t.throttled,
    backoffMs: t.backoffMs,
    phaseSumsMs: t.phaseSumsMs,
    requestSumMs: t.requestSumMs,
    histograms: merged.histograms.encode(),
    ...check,
    workers: merged.workers.map(evidenceOf),
    steady: {
      releaseEpochMs: steady.releaseEpochMs, durationMs: plan.durationMs, intervalMs: steady.intervalMs, lapBytes: plan.lapBytes, lapRequests: plan.lapRequests, laps: steady.laps,
      workers: steady.workers, series: steady.series,
      ...(merged.autotermAtMs !== undefined && plan.autoterm ? { autoterm: { atMs: merged.autotermAtMs, ...plan.autoterm } } : {}),
    },
    records: merged.records,
  };
}

/** A run that could not be measured at all (its workers never started): it still counts, as failed. */
export function failedRun(id: RunIdentity, error: string): MeasuredRun {
  return {
    ...id, wallMs: 0, bytes: 0, requests: 0, failedRequests: 0, reusedSockets: 0, retries: 0, throttled: 0, backoffMs: 0,
    phaseSumsMs: {}, requestSumMs: 0, histograms: {}, verified: false, verification: 'not run', error, workers: [], records: [],
  };
}

const ms3 = (v: number) => Math.round(v * 1000) / 1000;

function toRow(r: OpRecord): RecordRow {
  return [
    r.worker, r.item, r.offsetBytes, r.bytes, r.status, ms3(r.startEpochMs), ms3(r.totalMs),
    ...PHASES.map((p) => (r.phases[p] === undefined ? null : ms3(r.phases[p]))), r.reused, r.retries, r.throttled, Math.round(r.backoffMs), r.error ?? null,
  ];
}

/** Evenly spaced sample when there are more records than a results file keeps. */
function sample<T>(items: readonly T[], max: number): { kept: T[]; sampled: boolean } {
  if (items.length <= max) return { kept: [...items], sampled: false };
  const step = items.length / max;
  return { kept: Array.from({ length: max }, (_, i) => items[Math.floor(i * step)]!), sampled: true };
}

export function toRunRecord(m: MeasuredRun): RunRecord {
  const { records, ...rest } = m;
  const { kept, sampled } = sample(records, MAX_RECORDS_PER_RUN);
  return { ...rest, records: kept.map(toRow), recordsSampled: sampled };
}
