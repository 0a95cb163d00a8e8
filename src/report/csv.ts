// The report as CSV: one row per contender, each swept option in its own column, with the rank,
// tie, cost and verdict fields; an empty cell where a figure does not exist.
import type { Report, ReportContender } from '../analysis/report-model.js';
import { PHASES } from '../transport/phases.js';
import { axesOf } from './format.js';
import { openLoopCells, openLoopColumns } from './open-loop.js';
import { csvCell } from './safe-text.js';
import { thresholdColumns } from './thresholds.js';
import { sizeBucketCsv } from './size-buckets.js';
import { mixCsv } from './mix.js';
import { checkpointCsv } from './checkpoint.js';
import { trainCsv } from './train.js';

/** The verdict that names this contender: tied with the leader, or how much slower. */
function verdictOf(
  r: Report,
  s: ReportContender,
): { kind: string; ratio?: number; low?: number; high?: number } {
  for (const v of r.verdicts) {
    if (v.kind === 'tie' && v.contenders.includes(s.label)) return { kind: 'tie' };
    if (v.kind === 'faster' && v.slower === s.label)
      return { kind: 'slower', ratio: v.ratio, low: v.ratioLow, high: v.ratioHigh };
    if (v.kind === 'faster' && v.faster === s.label) return { kind: 'leader' };
  }
  return { kind: r.contenders.length === 1 ? 'only' : '' };
}

/** Faults in the contender's warm-up runs, apart from the measured ones: 0 where it met none. */
function warmupCells(r: Report, label: string): number[] {
  const f = r.warmupFaults.find((w) => w.contender === label);
  return [f?.retries ?? 0, f?.throttled ?? 0, f?.failedRequests ?? 0];
}

export function renderCsv(r: Report): string {
  const axes = r.sweep || r.tune ? axesOf(r.contenders) : [];
  // A tune's cells: the step each was measured at (1 first) and whether it is the search's answer.
  const stepOf = (label: string) => r.tune?.path.find((p) => p.label === label);
  const tiers = r.contenders[0]?.cost.tiers.map((t) => t.tier) ?? [];
  const gate = thresholdColumns(r);
  const bySize = sizeBucketCsv(r);
  const byOp = mixCsv(r);
  const checkpoint = checkpointCsv(r);
  const train = trainCsv(r);
  const columns = [
    'rank',
    'strategy',
    'runs',
    ...axes.map((a) => a.replace(/^--/, '')),
    'tied',
    'contender',
    'samples',
    'unit',
    'wall_ms_median',
    'wall_ms_min',
    'wall_ms_max',
    'wall_ms_ci95_low',
    'wall_ms_ci95_high',
    'throughput_mibps_median',
    'ops_per_s_median',
    'blobs_per_s_median',
    'requests_per_run',
    'failed_requests',
    ...['firstByte', 'total'].flatMap((m) => ['p50', 'p90', 'p99', 'max'].map((q) => `${m}_${q}_ms`)),
    ...PHASES.map((p) => `${p}_share`),
    'retries',
    'throttled',
    'backoff_ms',
    'warmup_retries',
    'warmup_throttled',
    'warmup_failed_requests',
    'ops_read',
    'ops_write',
    'ops_list',
    'ops_other',
    'requests_per_object',
    ...tiers.flatMap((t) => [`cost_per_1000_objects_${t}`, `cost_per_gib_${t}`]),
    'server_span_ms_median',
    'over_server_span_ms',
    'server_span_bound_ms',
    'verdict',
    'slower_ratio',
    'slower_ratio_ci95_low',
    'slower_ratio_ci95_high',
    'recommended',
    'sweep_best',
    'sweep_tied',
    'verified',
    'objects',
    ...['p50', 'p90', 'p99', 'max'].map((q) => `object_${q}_ms`),
    'straggler_share',
    'hedges_issued',
    'hedges_won',
    'hedge_extra_request_share',
    'hedge_extra_bytes',
    ...(r.tune ? ['tune_step', 'tune_reason', 'tune_best', 'tune_throttled'] : []),
    ...gate.names,
    ...openLoopColumns(r),
    ...bySize.columns,
    ...byOp.columns,
    ...checkpoint.columns,
    ...train.columns,
  ];
  const rows = r.contenders.map((s) => {
    const v = verdictOf(r, s);
    return [
      s.rank,
      s.strategy,
      s.runs,
      ...axes.map((a) => s.cell?.[a]),
      s.tied,
      s.label,
      s.samples.n,
      s.unit,
      s.wallMs.median,
      s.wallMs.min,
      s.wallMs.max,
      s.wallMs.ci95Low,
      s.wallMs.ci95High,
      s.throughputMiBps.median,
      s.opsPerSecond.median,
      s.blobsPerSecond?.median,
      s.requestsPerRun,
      s.failedRequests,
      ...(['firstByte', 'total'] as const).flatMap((m) =>
        (['p50', 'p90', 'p99', 'max'] as const).map((q) => s.latencyMs[m]?.[q]),
      ),
      ...PHASES.map((p) => s.phaseShare[p]),
      s.retries,
      s.throttled,
      s.backoffMs,
      ...warmupCells(r, s.label),
      s.cost.operations.read,
      s.cost.operations.write,
      s.cost.operations.list,
      s.cost.operations.other,
      s.cost.requestsPerObject,
      ...tiers.flatMap((t) => {
        const c = s.cost.tiers.find((x) => x.tier === t);
        return [c?.per1000Objects, c?.perGiB];
      }),
      // The server clock, where it was read: its span, the client's time above it, and the bound.
      ...((g) => [g?.serverMs, g?.ms, g?.boundMs])(r.serverClock.find((c) => c.contender === s.label)),
      v.kind,
      v.ratio,
      v.low,
      v.high,
      r.recommendation?.contender === s.label,
      r.sweep ? r.sweep.best === s.label : undefined,
      r.sweep ? r.sweep.tied.includes(s.label) : undefined,
      s.notVerified ? 'not verified' : s.verified,
      s.completion?.latencyMs.count,
      ...(['p50', 'p90', 'p99', 'max'] as const).map((q) => s.completion?.latencyMs[q]),
      s.completion?.stragglerShare,
      s.hedge?.issued,
      s.hedge?.won,
      s.hedge?.extraRequestShare,
      s.hedge?.extraBytes,
      ...(r.tune
        ? [
            (stepOf(s.label)?.step ?? -1) + 1 || undefined,
            stepOf(s.label)?.reason,
            r.tune.best?.label === s.label,
            stepOf(s.label)?.throttled,
          ]
        : []),
      ...gate.cells(s.label),
      ...openLoopCells(r, s),
      ...bySize.cells(s.label),
      ...byOp.cells(s.label),
      ...checkpoint.cells(s.label),
      ...train.cells(s.label),
    ];
  });
  return [columns, ...rows].map((row) => row.map(csvCell).join(',')).join('\n');
}
