// Per-operation figures of a mixed run (--mix): each request's operation is drawn again from the
// run's own params (the weights, the seed, its item index: plan/mix.ts), so the results file keeps
// no list of operations. For each contender and operation: requests, failures, the rate at which
// the mix completed them (requests of that operation over the run's wall time, median of the
// measured runs), and request-time percentiles; and the combined rate of every operation together.
// A request's time leaves out what it queued for a socket, as the size buckets' does.
// Percentiles come from the kept records (a sample past MAX_RECORDS_PER_RUN, said so).
import { MIX_OPS, mixText, opAt, type MixDraw, type MixOp } from '../plan/mix.js';
import { cellLabel } from '../results/label.js';
import { RECORD_COLUMNS, type RunRecord } from '../results/schema.js';
import type { OperationClass } from './prices.js';
import { median } from './stats.js';

const ITEM = RECORD_COLUMNS.indexOf('item');
const TOTAL_MS = RECORD_COLUMNS.indexOf('totalMs');
const ERROR = RECORD_COLUMNS.indexOf('error');
const WAIT = RECORD_COLUMNS.indexOf('wait');
const RETRIES = RECORD_COLUMNS.indexOf('retries');

/** How the service bills each operation: Delete Blob and Get Blob Properties are neither read nor write. */
const BILLED_AS: Readonly<Record<MixOp, OperationClass>> = {
  get: 'read',
  put: 'write',
  head: 'other',
  list: 'list',
  delete: 'other',
};

/** The first `count` requests of a mix by billing class: what a run of it asks, before retries. */
export function plannedClasses(mix: MixDraw, count: number): Record<OperationClass, number> {
  const out: Record<OperationClass, number> = { read: 0, write: 0, list: 0, other: 0 };
  for (let i = 0; i < count; i++) out[BILLED_AS[opAt(mix, i)]]++;
  return out;
}

/**
 * A mixed run's requests tried (retries included) by billing class, each by its own operation;
 * undefined for a run that is no mix. A run that kept a sample of its records: its plan's counts,
 * and its retries billed as reads.
 */
export function mixOperationClasses(run: RunRecord): Record<OperationClass, number> | undefined {
  const weights = run.params?.mixWeights;
  if (!weights?.length) return undefined;
  const mix: MixDraw = { weights, seed: run.params?.mixSeed ?? 0 };
  if (run.recordsSampled) {
    const out = plannedClasses(mix, run.params?.fileCount ?? 0);
    out.read += run.retries;
    return out;
  }
  const out: Record<OperationClass, number> = { read: 0, write: 0, list: 0, other: 0 };
  for (const row of run.records) {
    const item = row[ITEM];
    const retries = row[RETRIES];
    if (typeof item !== 'number') continue;
    out[BILLED_AS[opAt(mix, item)]] += 1 + (typeof retries === 'number' ? retries : 0);
  }
  return out;
}

export interface MixOpFigures {
  op: MixOp;
  /** Over every measured run. */
  requests: number;
  failed: number;
  /** Completed requests of this operation a second, while the whole mix ran: median of the runs. */
  opsPerSecond: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
}

export interface ContenderMix {
  contender: string;
  ops: MixOpFigures[];
  /** Every operation together a second: median of the runs. */
  combinedOpsPerSecond: number;
  /** Every operation together: requests and failures. */
  requests: number;
  failed: number;
}

export interface ReportMix {
  /** By operation, in MIX_OPS order (0: not in the mix). */
  weights: number[];
  /** The weights as a user types them: `get:60,put:40`. */
  text: string;
  seed: number;
  /** Some runs kept a sample of their records: counts are the plan's, percentiles the sample's. */
  sampled: boolean;
  /** The operations in the mix, in MIX_OPS order: the columns. */
  ops: MixOp[];
  contenders: ContenderMix[];
}

/** Nearest-rank percentile of ascending values. */
function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

const waitOf = (wait: unknown) => (typeof wait === 'number' ? wait : 0);

/** One run's requests and failures by operation (the plan's counts where records were sampled). */
function countRun(run: RunRecord, mix: MixDraw, times: Map<MixOp, number[]>) {
  const counts = new Map<MixOp, { requests: number; failed: number }>(
    MIX_OPS.map((op) => [op, { requests: 0, failed: 0 }]),
  );
  for (const row of run.records) {
    const item = row[ITEM];
    const total = row[TOTAL_MS];
    if (typeof item !== 'number') continue;
    const op = opAt(mix, item);
    const c = counts.get(op)!;
    c.requests++;
    if (row[ERROR] !== null) c.failed++;
    // Time queued for a socket is the client's backlog, the same for every operation: left out.
    else if (typeof total === 'number') times.get(op)!.push(Math.max(0, total - waitOf(row[WAIT])));
  }
  if (run.recordsSampled) {
    for (const c of counts.values()) c.requests = 0;
    for (let i = 0; i < (run.params?.fileCount ?? 0); i++) counts.get(opAt(mix, i))!.requests++;
  }
  return counts;
}

function contenderMix(contender: string, runs: readonly RunRecord[], mix: MixDraw): ContenderMix {
  const times = new Map<MixOp, number[]>(MIX_OPS.map((op) => [op, []]));
  const totals = new Map<MixOp, { requests: number; failed: number; rates: number[] }>(
    MIX_OPS.map((op) => [op, { requests: 0, failed: 0, rates: [] }]),
  );
  const combined: number[] = [];
  for (const run of runs) {
    const seconds = run.wallMs / 1000;
    let done = 0;
    for (const [op, c] of countRun(run, mix, times)) {
      const t = totals.get(op)!;
      t.requests += c.requests;
      t.failed += c.failed;
      t.rates.push(seconds > 0 ? (c.requests - c.failed) / seconds : 0);
      done += c.requests - c.failed;
    }
    combined.push(seconds > 0 ? done / seconds : 0);
  }
  const ops = MIX_OPS.filter((_, k) => (mix.weights[k] ?? 0) > 0).map((op): MixOpFigures => {
    const t = totals.get(op)!;
    const sorted = times.get(op)!.sort((a, b) => a - b);
    return {
      op,
      requests: t.requests,
      failed: t.failed,
      opsPerSecond: median(t.rates),
      p50Ms: percentile(sorted, 50),
      p90Ms: percentile(sorted, 90),
      p99Ms: percentile(sorted, 99),
    };
  });
  return {
    contender,
    ops,
    combinedOpsPerSecond: median(combined),
    requests: ops.reduce((a, o) => a + o.requests, 0),
    failed: ops.reduce((a, o) => a + o.failed, 0),
  };
}

/** Per-operation figures of each contender whose runs were a mix; undefined when none was. */
export function mixFigures(runs: readonly RunRecord[]): ReportMix | undefined {
  const measured = runs.filter((r) => !r.warmup && r.params?.mixWeights?.length);
  const first = measured[0]?.params;
  if (!first?.mixWeights) return undefined;
  const mix: MixDraw = { weights: first.mixWeights, seed: first.mixSeed ?? 0 };
  const byLabel = new Map<string, RunRecord[]>();
  for (const r of measured) {
    const label = cellLabel(r.strategy, r.cell);
    byLabel.set(label, [...(byLabel.get(label) ?? []), r]);
  }
  // Each contender's own draw: a sweep may give its cells seeds of their own.
  const drawOf = (own: readonly RunRecord[]): MixDraw => ({
    weights: own[0]!.params?.mixWeights ?? mix.weights,
    seed: own[0]!.params?.mixSeed ?? mix.seed,
  });
  const contenders = [...byLabel].map(([label, own]) => contenderMix(label, own, drawOf(own)));
  return {
    weights: [...mix.weights],
    text: mixText(mix.weights),
    seed: mix.seed,
    sampled: measured.some((r) => r.recordsSampled),
    ops: MIX_OPS.filter((_, k) => (mix.weights[k] ?? 0) > 0),
    contenders,
  };
}
