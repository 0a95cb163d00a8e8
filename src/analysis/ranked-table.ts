// The ranked contender table as columns: every figure a row of the table can carry, and which of them
// the console, Markdown, HTML and CSV show, in their order. CSV is the whole table (a column per
// figure, an empty cell where a figure does not exist); the others a few columns each.
import { PHASES } from '../transport/phases.js';
import type { CellFormat, CellValue, Column, Table } from './columns.js';
import { raw } from './columns.js';
import type { ReportContender, ReportFigures as Report } from './report-types.js';
import { sizeBucketTable } from './tables.js';
import { checkpointColumns, mixColumns, trainColumns } from './workload-columns.js';

type Row = ReportContender;
const QUANTILES = ['p50', 'p90', 'p99', 'max'] as const;
const OPEN_LOOP_QUANTILES = ['p50', 'p99'] as const;

/** Sweep axes as columns: the swept flags, in order of first appearance. */
export function axesOf(contenders: readonly ReportContender[]): string[] {
  const seen: string[] = [];
  for (const c of contenders) for (const k of Object.keys(c.cell ?? {})) if (!seen.includes(k)) seen.push(k);
  return seen;
}

/** The verdict that names this contender: tied with the leader, or how much slower. */
function verdictOf(r: Report, s: Row): { kind: string; ratio?: number; low?: number; high?: number } {
  for (const v of r.verdicts) {
    if (v.kind === 'tie' && v.contenders.includes(s.label)) return { kind: 'tie' };
    if (v.kind === 'faster' && v.slower === s.label)
      return { kind: 'slower', ratio: v.ratio, low: v.ratioLow, high: v.ratioHigh };
    if (v.kind === 'faster' && v.faster === s.label) return { kind: 'leader' };
  }
  return { kind: r.contenders.length === 1 ? 'only' : '' };
}

/** Builds columns whose values are one function of each contender. */
function builder(r: Report) {
  return (id: string, header: string, format: CellFormat, value: (s: Row) => CellValue): Column => ({
    id,
    header,
    format,
    values: r.contenders.map(value),
  });
}

/** Rank, names, the sweep's axes and the run counts. */
function identity(r: Report, axes: readonly string[], sweepAxes: number): Column[] {
  const col = builder(r);
  return [
    col('rank', '#', 'rank', (s) => ({ rank: s.rank, tied: s.tied })),
    {
      ...col('name', sweepAxes ? 'strategy' : 'contender', 'text', (s) => (sweepAxes ? s.strategy : s.label)),
      headers: { md: 'strategy' },
    },
    col('strategy', 'strategy', 'text', (s) => s.strategy),
    col('runs', 'runs', 'int', (s) => s.runs),
    ...axes.map((a) => ({
      ...col(a.replace(/^--/, ''), a.replace(/^--/, ''), 'text', (s) => s.cell?.[a]),
      headers: { md: a },
      headerFromData: true,
    })),
    col('tied', 'tied', 'flag', (s) => s.tied),
    col('contender', 'contender', 'text', (s) => s.label),
    col('samples', 'samples', 'int', (s) => s.samples.n),
    col('unit', 'unit', 'text', (s) => s.unit),
  ];
}

/** The rate column: the unit in its header where every row has one, else in each cell. */
function rateColumn(r: Report): Column {
  const units = new Set(r.contenders.map((s) => s.unit));
  const one = units.size <= 1 ? ([...units][0] ?? r.unit) : undefined;
  return {
    id: 'rate',
    header: one ?? 'rate',
    ...(one ? { unit: one } : {}),
    format: 'rate',
    values: r.contenders.map((s) => ({
      value: s.unit === 'ops/s' ? s.opsPerSecond.median : s.throughputMiBps.median,
      unit: s.unit,
    })),
  };
}

/** Times, rates and request counts. */
function speed(r: Report): Column[] {
  const col = builder(r);
  return [
    {
      ...col('wall_ms_median', 'time ms', 'time', (s) => ({
        medianMs: s.wallMs.median,
        ...(s.timeBounds ? { bounds: s.timeBounds } : {}),
      })),
      headers: { md: 'time ms (median)' },
      unit: 'ms',
    },
    col('spread', 'spread ms', 'spread', (s) => s.timeBounds),
    col('wall_ms_min', 'wall_ms_min', 'num', (s) => s.wallMs.min),
    col('wall_ms_max', 'wall_ms_max', 'num', (s) => s.wallMs.max),
    col('wall_ms_ci95_low', 'wall_ms_ci95_low', 'num', (s) => s.wallMs.ci95Low),
    col('wall_ms_ci95_high', 'wall_ms_ci95_high', 'num', (s) => s.wallMs.ci95High),
    rateColumn(r),
    { ...col('throughput_mibps_median', 'MiB/s', 'num', (s) => s.throughputMiBps.median), unit: 'MiB/s' },
    { ...col('ops_per_s_median', 'ops/s', 'num', (s) => s.opsPerSecond.median), unit: 'ops/s' },
    col('blobs_per_s_median', 'blobs/s', 'num', (s) => s.blobsPerSecond?.median),
    col('requests_per_run', 'requests per run', 'int', (s) => s.requestsPerRun),
    col('failed_requests', 'failed requests', 'int', (s) => s.failedRequests),
  ];
}

/** Latency percentiles, the phases' shares, retries and warm-up faults. */
function latency(r: Report): Column[] {
  const col = builder(r);
  const warm = (s: Row) => r.warmupFaults.find((w) => w.contender === s.label);
  return [
    ...(['firstByte', 'total'] as const).flatMap((m) =>
      QUANTILES.map((q) => ({
        ...col(
          `${m}_${q}_ms`,
          `${q} ${m === 'firstByte' ? 'first byte' : m} ms`,
          'num',
          (s) => s.latencyMs[m]?.[q],
        ),
        unit: 'ms',
      })),
    ),
    ...PHASES.map((p) => col(`${p}_share`, `${p} %`, 'share', (s) => s.phaseShare[p])),
    col('retries', 'retries', 'int', (s) => s.retries),
    col('throttled', 'throttled', 'int', (s) => s.throttled),
    col('backoff_ms', 'backoff ms', 'num', (s) => s.backoffMs),
    col('warmup_retries', 'warm-up retries', 'int', (s) => warm(s)?.retries ?? 0),
    col('warmup_throttled', 'warm-up throttled', 'int', (s) => warm(s)?.throttled ?? 0),
    col('warmup_failed_requests', 'warm-up failed requests', 'int', (s) => warm(s)?.failedRequests ?? 0),
  ];
}

/** Billable operations, requests per object and the cost in each tier of the price table. */
function cost(r: Report, tiers: readonly string[]): Column[] {
  const col = builder(r);
  const tierOf = (s: Row, t: string) => s.cost.tiers.find((x) => x.tier === t);
  return [
    ...(['read', 'write', 'list', 'other'] as const).map((o) =>
      col(`ops_${o}`, `${o} operations`, 'int', (s) => s.cost.operations[o]),
    ),
    {
      ...col('requests_per_object', 'requests per object', 'count', (s) => s.cost.requestsPerObject),
      headers: { console: 'req/obj' },
    },
    ...tiers.flatMap((t) => [
      {
        ...col(
          `cost_per_1000_objects_${t}`,
          `$ per 1,000 objects (${t})`,
          'money',
          (s) => tierOf(s, t)?.per1000Objects,
        ),
        headers: { console: `$/1k obj ${t}` },
      },
      col(`cost_per_gib_${t}`, `$ per GiB (${t})`, 'money', (s) => tierOf(s, t)?.perGiB),
    ]),
  ];
}

/** The server's clock, the verdict, the answer and the check of the bytes. */
function outcome(r: Report): Column[] {
  const col = builder(r);
  const gap = (s: Row) => r.serverClock.find((c) => c.contender === s.label);
  const verdict = new Map(r.contenders.map((s) => [s.label, verdictOf(r, s)]));
  const sweep = r.sweep;
  return [
    col('server_span_ms_median', 'server span ms', 'num', (s) => gap(s)?.serverMs),
    col('over_server_span_ms', 'over server span ms', 'num', (s) => gap(s)?.ms),
    col('server_span_bound_ms', 'server span bound ms', 'num', (s) => gap(s)?.boundMs),
    col('verdict', 'verdict', 'text', (s) => verdict.get(s.label)!.kind),
    col('slower_ratio', 'slower ratio', 'num', (s) => verdict.get(s.label)!.ratio),
    col('slower_ratio_ci95_low', 'slower ratio 95% low', 'num', (s) => verdict.get(s.label)!.low),
    col('slower_ratio_ci95_high', 'slower ratio 95% high', 'num', (s) => verdict.get(s.label)!.high),
    col('recommended', 'recommended', 'flag', (s) => r.recommendation?.contender === s.label),
    col('sweep_best', 'best cell', 'flag', (s) => (sweep ? sweep.best === s.label : undefined)),
    col('sweep_tied', 'tied with the best cell', 'flag', (s) =>
      sweep ? sweep.tied.includes(s.label) : undefined,
    ),
    col('verified', 'verified', 'check', (s) => ({
      verified: s.verified,
      ...(s.notVerified ? { notVerified: s.notVerified } : {}),
    })),
  ];
}

/** Whole-object completion and hedging, where runs measured them. */
function completion(r: Report): Column[] {
  const col = builder(r);
  return [
    col('objects', 'objects', 'int', (s) => s.completion?.latencyMs.count),
    ...QUANTILES.map((q) =>
      col(`object_${q}_ms`, `object ${q} ms`, 'num', (s) => s.completion?.latencyMs[q]),
    ),
    col('straggler_share', 'straggler share', 'share', (s) => s.completion?.stragglerShare),
    col('hedges_issued', 'hedges issued', 'int', (s) => s.hedge?.issued),
    col('hedges_won', 'hedges won', 'int', (s) => s.hedge?.won),
    col('hedge_extra_request_share', 'hedge extra requests', 'share', (s) => s.hedge?.extraRequestShare),
    col('hedge_extra_bytes', 'hedge extra bytes', 'int', (s) => s.hedge?.extraBytes),
  ];
}

/** A tune's cells: the step each was measured at (1 first) and whether it is the search's answer. */
function tune(r: Report): Column[] {
  const t = r.tune;
  if (!t) return [];
  const col = builder(r);
  // A path may visit a cell many times: its first step is the one shown.
  const first = new Map<string, (typeof t.path)[number]>();
  for (const p of t.path) if (!first.has(p.label)) first.set(p.label, p);
  const stepOf = (s: Row) => first.get(s.label);
  return [
    col('tune_step', 'tune step', 'int', (s) => (stepOf(s)?.step ?? -1) + 1 || undefined),
    col('tune_reason', 'tune reason', 'text', (s) => stepOf(s)?.reason),
    col('tune_best', 'tune best', 'flag', (s) => t.best?.label === s.label),
    col('tune_throttled', 'tune throttled', 'int', (s) => stepOf(s)?.throttled),
  ];
}

/** A column per --threshold rule: pass, fail, or empty where the rule names another contender. */
function thresholds(r: Report): Column[] {
  const rows = r.thresholds?.rows ?? [];
  const rules = [...new Set(rows.map((x) => x.threshold))];
  return rules.map((t) =>
    builder(r)(`threshold: ${t}`, `threshold: ${t}`, 'text', (s) => {
      // A claim's row names both its contenders, `a vs b`.
      const mine = rows.filter((x) => x.threshold === t && x.contender.split(' vs ').includes(s.label));
      return mine.length ? (mine.every((x) => x.passed) ? 'pass' : 'fail') : undefined;
    }),
  );
}

/** An open loop's figures, where any contender ran one (none otherwise). */
function openLoop(r: Report): Column[] {
  if (!r.contenders.some((c) => c.openLoop)) return [];
  const col = builder(r);
  const point = (s: Row) => r.rateCurves?.flatMap((c) => c.points).find((p) => p.label === s.label);
  const curve = (s: Row) => r.rateCurves?.find((c) => c.points.some((p) => p.label === s.label));
  const spreads = [
    ['intended', (s: Row) => s.openLoop?.fromIntendedMs],
    ['sent', (s: Row) => s.openLoop?.fromSendMs],
    ['lateness', (s: Row) => s.openLoop?.latenessMs],
  ] as const;
  return [
    raw(
      'rate_per_s',
      r.contenders.map((s) => s.openLoop?.ratePerSecond),
    ),
    raw(
      'arrival',
      r.contenders.map((s) => s.openLoop?.arrival),
      'text',
    ),
    raw(
      'max_in_flight',
      r.contenders.map((s) => s.openLoop?.maxInFlight),
      'int',
    ),
    raw(
      'offered_per_s',
      r.contenders.map((s) => s.openLoop?.offeredPerSecond),
    ),
    raw(
      'achieved_per_s',
      r.contenders.map((s) => s.openLoop?.achievedPerSecond),
    ),
    raw(
      'skipped_sends',
      r.contenders.map((s) => s.openLoop?.skippedSends),
      'int',
    ),
    raw(
      'skipped_share',
      r.contenders.map((s) => s.openLoop?.skippedShare),
      'share',
    ),
    ...spreads.flatMap(([from, of]) =>
      OPEN_LOOP_QUANTILES.map((q) => col(`${from}_${q}_ms`, `${from}_${q}_ms`, 'num', (s) => of(s)?.[q])),
    ),
    ...(r.rateCurves
      ? [
          col('keeps_slo', 'keeps_slo', 'flag', (s) => point(s)?.keeps),
          col('slo_knee_per_s', 'slo_knee_per_s', 'num', (s) => curve(s)?.kneePerSecond),
        ]
      : []),
  ];
}

/** Per size bucket, the bucket table's figures as columns of each contender's row. */
function sizeBuckets(r: Report): Column[] {
  const s = r.sizeBuckets;
  if (!s) return [];
  const bucketsOf = (c: Row) => s.contenders.find((x) => x.contender === c.label)?.buckets ?? [];
  const ids = sizeBucketTable([]).views.csv ?? [];
  return s.edgesBytes.flatMap((edge) => {
    // A table of the one bucket at this edge per contender: no row where it had no request there.
    const tables = r.contenders.map((c) => sizeBucketTable(bucketsOf(c).filter((b) => b.upToBytes === edge)));
    const figure = (id: string) => tables.map((t) => t.columns.find((x) => x.id === id)?.values[0]);
    return ids.map((id) => raw(`size_le_${edge}_${id}`, figure(id)));
  });
}

/** The ranked table: one row per contender, fastest first. */
export function rankedColumns(r: Report): Table {
  const sweepAxes = r.sweep ? axesOf(r.contenders) : [];
  const tiers = r.contenders[0]?.cost.tiers.map((t) => t.tier) ?? [];
  const columns = [
    ...identity(r, r.sweep || r.tune ? axesOf(r.contenders) : [], sweepAxes.length),
    ...speed(r),
    ...latency(r),
    ...cost(r, tiers),
    ...outcome(r),
    ...completion(r),
    ...tune(r),
    ...thresholds(r),
    ...openLoop(r),
    ...sizeBuckets(r),
    ...mixColumns(r),
    ...checkpointColumns(r),
    ...trainColumns(r),
  ];
  // Without a price tier (no contender) the console keeps the cost column, empty.
  const noTier: Column = { id: 'cost_first_tier', header: '', format: 'money', values: [] };
  return {
    columns: tiers.length ? columns : [...columns, noTier],
    views: { ...shortViews(sweepAxes, tiers), csv: csvView(columns) },
  };
}

/** What the console, Markdown and HTML tables show: the sweep's axes in the first two. */
function shortViews(sweepAxes: readonly string[], tiers: readonly string[]): Table['views'] {
  const axes = sweepAxes.map((a) => a.replace(/^--/, ''));
  const firstCost = tiers[0] ? [`cost_per_1000_objects_${tiers[0]}`] : [];
  return {
    console: [
      'rank',
      'name',
      ...axes,
      'wall_ms_median',
      'rate',
      'requests_per_object',
      ...(firstCost.length ? firstCost : ['cost_first_tier']),
      'verified',
    ],
    md: [
      'rank',
      'name',
      ...axes,
      'runs',
      'wall_ms_median',
      'spread',
      'rate',
      'requests_per_object',
      ...tiers.map((t) => `cost_per_1000_objects_${t}`),
      'firstByte_p50_ms',
      'firstByte_p99_ms',
      ...PHASES.map((p) => `${p}_share`),
      'retries',
      'failed_requests',
      'verified',
    ],
    html: [
      'rank',
      'contender',
      'runs',
      'wall_ms_median',
      'throughput_mibps_median',
      'ops_per_s_median',
      'requests_per_object',
      ...firstCost,
      'firstByte_p50_ms',
      'firstByte_p99_ms',
      'verified',
    ],
  };
}

/** CSV shows every figure: all columns but those that only format others (name, spread, rate). */
const FORMATTED_ONLY = new Set(['name', 'spread', 'rate', 'cost_first_tier']);
const csvView = (columns: readonly Column[]) =>
  columns.map((c) => c.id).filter((id) => !FORMATTED_ONLY.has(id));
