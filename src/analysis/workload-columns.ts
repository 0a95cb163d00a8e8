// The ranked table's columns of the workloads with figures of their own (a mix's operations, a
// checkpoint's phases and ranks, a training run's utilisation): each contender's figures as cells
// of its row, in the CSV view. Built from the report's figures; renderers only format them.
import type { Figure } from './checkpoint.js';
import { raw, type CellValue, type Column } from './columns.js';
import type { ReportFigures as Report } from './report-types.js';

/** Columns from ids and each contender's cells (in the ids' order). */
function columnsOf(r: Report, ids: readonly string[], cells: (label: string) => CellValue[]): Column[] {
  const rows = r.contenders.map((c) => cells(c.label));
  return ids.map((id, i) =>
    raw(
      id,
      rows.map((row) => row[i]),
    ),
  );
}

/** Per operation of a mix: requests, failures, rate and latency; and the combined rate. */
export function mixColumns(r: Report): Column[] {
  const m = r.mix;
  if (!m) return [];
  const fields = ['requests', 'failed', 'ops_per_s', 'p50_ms', 'p90_ms', 'p99_ms'] as const;
  const ids = [...m.ops.flatMap((op) => fields.map((f) => `mix_${op}_${f}`)), 'mix_ops_per_s'];
  return columnsOf(r, ids, (contender) => {
    const c = m.contenders.find((x) => x.contender === contender);
    return [
      ...m.ops.flatMap((op) => {
        const o = c?.ops.find((x) => x.op === op);
        return o
          ? [o.requests, o.failed, o.opsPerSecond, o.p50Ms, o.p90Ms, o.p99Ms]
          : fields.map(() => undefined);
      }),
      c?.combinedOpsPerSecond,
    ];
  });
}

/** A checkpoint's figures with their intervals, its read-back, and each rank's write and read. */
export function checkpointColumns(r: Report): Column[] {
  const k = r.checkpoint;
  if (!k) return [];
  const ranks = k.mostRanks;
  const rankFields = ['write_mibps', 'write_end_ms', 'read_mibps', 'read_end_ms'] as const;
  const ids = [
    ...['consistent_ms', 'write_mibps', 'read_mibps', 'straggler_share', 'slowest_over_median'].flatMap((f) =>
      ['median', 'ci95_low', 'ci95_high'].map((q) => `checkpoint_${f}_${q}`),
    ),
    'checkpoint_read_verified_runs',
    ...Array.from({ length: ranks }, (_, i) => rankFields.map((f) => `checkpoint_rank_${i}_${f}`)).flat(),
  ];
  const trio = (f?: Figure) => [f?.median, f?.low, f?.high];
  return columnsOf(r, ids, (label) => {
    const c = k.contenders.find((x) => x.contender === label);
    if (!c) return ids.map(() => undefined);
    const figures = [c.consistentMs, c.writeMiBps, c.readMiBps, c.stragglerShare, c.slowestOverMedian];
    const byRank = Array.from({ length: ranks }, (_, i) => {
      const p = c.perRank[i];
      return [p?.writeMiBps, p?.writeEndMs, p?.readMiBps, p?.readEndMs];
    });
    return [...figures.flatMap(trio), c.readVerified, ...byRank.flat()];
  });
}

/** A training run's prefetch, utilisation (overall and per epoch), rates, waits and pass mark. */
export function trainColumns(r: Report): Column[] {
  const t = r.train;
  if (!t) return [];
  const epochs = Array.from({ length: t.epochs }, (_, i) => `train_epoch_${i + 1}_utilisation`);
  const ids = [
    'train_prefetch',
    'train_utilisation',
    ...epochs,
    'train_samples_per_s',
    'train_mibps',
    'train_wait_p50_ms',
    'train_wait_p99_ms',
    'train_pass_mark',
    'train_pass',
  ];
  return columnsOf(r, ids, (contender) => {
    const c = t.contenders.find((x) => x.contender === contender);
    if (!c) return ids.map(() => undefined);
    const perEpoch = epochs.map((_, i) => c.perEpoch[i]);
    const figures = [c.samplesPerSecond, c.mibPerSecond, c.waitP50Ms, c.waitP99Ms, c.passMark];
    return [c.prefetch, c.utilisation, ...perEpoch, ...figures, c.passes ? 'yes' : 'no'];
  });
}
