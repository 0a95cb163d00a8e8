// The one report model: analysis runs once here over a results file, and every renderer (console,
// Markdown, CSV, JSON, HTML) only formats what it holds: its figures, and its tables (columns of those
// figures, analysis/columns.ts). JSON output is the figures as they are.
import { checkpointReport } from './checkpoint.js';
import type { Environment, ResultsFile, Unit } from '../results/schema.js';
import { analyze, LATENCY_PERCENTILES, type ContenderStats } from './analyze.js';
import { hedgeSummary, objectCompletion } from './completion.js';
import { contenderCost } from './cost.js';
import { openLoopSummary, rateCurves } from './open-loop.js';
import { DEFAULT_PRICES, type PriceTable } from './prices.js';
import { declared, isSdkBaseline, recommend, type Candidate, type Recommendation } from './recommend.js';
import { buildGrid, sdkAdvice } from './sweep.js';
import { reportUnit } from './unit.js';
import { timeBoundsOf } from './time-bounds.js';
import { rankStats, serverGap, verdicts, DEFAULT_SOCKET_BUFFER_BYTES } from './verdict.js';
import { reportWarnings } from './warnings.js';
import { warmupFaults } from './warmup.js';
import { sizeBuckets } from './size-buckets.js';
import { mixFigures } from './mix.js';
import { trainRecommendation, trainReport } from './train.js';
import { cellLabel } from '../results/label.js';
import { PHASES } from '../transport/phases.js';
import { strategyNamed } from '../strategies/index.js';
import { tuneReport, TUNE_MATERIAL_GAIN, type ReportTune } from './tune.js';
import { DEFAULT_MATERIAL_SHARE } from '../config/options.js';
import { onThisMachine } from '../transport/this-machine.js';
import { evaluateThresholds } from './thresholds.js';
import type { Threshold } from '../config/thresholds.js';
import type {
  Report,
  ReportContender,
  ReportHeader,
  ReportFigures,
  ReportRanges,
  ReportSweep,
  ReportTables,
  TimeWent,
} from './report-types.js';
import { rankedColumns } from './ranked-table.js';
import { sizeBucketTable, steadyTable, thresholdTable } from './tables.js';

export type * from './report-types.js';
export { MIN_RUNS_FOR_INTERVAL, type TimeBounds } from './time-bounds.js';

/** Bumped whenever a field of the Report changes meaning or goes away. */
export const REPORT_SCHEMA_VERSION = 1;

function tablesOf(r: ReportFigures): ReportTables {
  return {
    ranked: rankedColumns(r),
    sizeBuckets: (r.sizeBuckets?.contenders ?? []).map((c) => ({
      contender: c.contender,
      table: sizeBucketTable(c.buckets),
    })),
    steady: r.contenders.flatMap((c) =>
      c.steady ? [{ contender: c.label, table: steadyTable(c.steady.rates.buckets) }] : [],
    ),
    ...(r.thresholds ? { thresholds: thresholdTable(r.thresholds.rows) } : {}),
  };
}

function rangesOf(contenders: readonly ReportContender[]): ReportRanges {
  const latencies = contenders.flatMap((c) => c.totalPercentilesMs);
  return {
    throughputMiBpsHigh: Math.max(...contenders.map((c) => c.throughputMiBps.max).filter(Number.isFinite)),
    latencyMsLowestPositive: Math.min(...latencies.filter((v) => v > 0)),
    latencyMsHighest: Math.max(...latencies),
  };
}

export interface ReportOptions {
  title: string;
  prices?: PriceTable;
  /** The least gain that counts in the recommendation (--material); its default otherwise. */
  material?: number;
  thresholds?: readonly Threshold[];
}

/**
 * Embedded Azurite, or a target this machine's own address reaches (as resolved, where the file has
 * it; else the address or localhost in its label): the target competes with the client for CPU.
 */
export function targetOnThisMachine(env: Pick<Environment, 'targetKind' | 'target' | 'endpoint'>): boolean {
  if (env.targetKind === 'embedded-azurite') return true;
  if (env.endpoint?.addresses.length) return env.endpoint.addresses.every(onThisMachine);
  const hosts = [...env.target.matchAll(/\[([0-9a-f:.]+)\]|\b(\d+\.\d+\.\d+\.\d+|localhost)\b/gi)].map(
    (m) => m[1] ?? m[2]!,
  );
  return hosts.some((h) => h.toLowerCase() === 'localhost' || onThisMachine(h));
}

function commonObjectSize(doc: ResultsFile): number | undefined {
  if (doc.command !== 'download') return undefined;
  const sizes = new Set(doc.runs.map((r) => r.objectSizeBytes));
  return sizes.size === 1 ? [...sizes][0] : undefined;
}

function sweepOf(
  doc: ResultsFile,
  stats: ContenderStats[],
  ranked: ReportContender[],
  material: number,
): { sweep: ReportSweep; recommendation?: Recommendation } | undefined {
  if (!doc.sweep?.length) return undefined;
  const v = buildGrid(stats, doc.sweep);
  const tiedLabels = new Set(v.tied.map((s) => s.label));
  // A sweep's answer is a cell: the rule runs over the cells tied for best, the other winners behind them.
  const candidates: Candidate[] = v.winners.map((w) => {
    const r = ranked.find((c) => c.label === w.label)!;
    return {
      ...r,
      rank: tiedLabels.has(w.label) ? 1 : 2,
      tied: tiedLabels.has(w.label) && tiedLabels.size > 1,
      requestsPerObject: r.cost.requestsPerObject,
      ...declared(doc.command, r.strategy),
    };
  });
  const picked = recommend(candidates, material);
  // Where an SDK cell is among the best, the settings to give the SDK go with the answer.
  const advice = sdkAdvice(doc.command, stats, v.best);
  const sdkAmongBest = candidates.some((c) => c.rank === 1 && isSdkBaseline(c));
  const settings = advice
    .slice(1)
    .map((l) => l.trim())
    .filter((l) => !l.startsWith('('));
  const recommendation =
    picked && sdkAmongBest && settings.length
      ? {
          ...picked,
          sdkSettings: settings,
          text: `${picked.text} With the SDK (also among the best): ${settings.join(', ')}.`,
        }
      : picked;
  return {
    sweep: {
      grid: v.grid,
      winners: v.winners.map((w) => cellLabel(w.strategy, w.cell)),
      ...(v.best ? { best: v.best.label } : {}),
      tied: [...tiedLabels],
      sdkAdvice: advice,
    },
    ...(recommendation ? { recommendation } : {}),
  };
}

function timeWentOf(s: ContenderStats): TimeWent | undefined {
  const shares = PHASES.flatMap((phase) => {
    const share = s.phaseShare[phase];
    return share === undefined ? [] : [{ phase, share }];
  });
  if (!shares.length) return undefined;
  const { requestsPerRun, socketsOpenedPerRun } = s;
  return { contender: s.label, shares, requestsPerRun, socketsOpenedPerRun };
}

function completionOf(runs: ResultsFile['runs']): Pick<ReportContender, 'completion' | 'hedge'> {
  const completion = objectCompletion(runs);
  const hedge = hedgeSummary(runs);
  const openLoop = openLoopSummary(runs);
  return {
    ...(completion ? { completion } : {}),
    ...(hedge ? { hedge } : {}),
    ...(openLoop ? { openLoop } : {}),
  };
}

/** The most common count, the larger of those tied; 0 where there is none. */
function modalCount(counts: readonly number[]): number {
  const tally = new Map<number, number>();
  for (const c of counts) tally.set(c, (tally.get(c) ?? 0) + 1);
  return [...tally.entries()].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0]?.[0] ?? 0;
}

export function buildReport(doc: ResultsFile, opts: ReportOptions): Report {
  const figures = reportFigures(doc, opts);
  return { ...figures, tables: tablesOf(figures) };
}

/** Each contender ranked, with its cost, completion, spread and measured time. */
function rankedContenders(doc: ResultsFile, stats: ContenderStats[], prices: PriceTable): ReportContender[] {
  const byLabel = new Map<string, typeof doc.runs>();
  for (const r of doc.runs)
    byLabel.set(cellLabel(r.strategy, r.cell), [...(byLabel.get(cellLabel(r.strategy, r.cell)) ?? []), r]);
  return rankStats(stats).map((s) => {
    const runs = byLabel.get(s.label) ?? [];
    const bounds = timeBoundsOf(s);
    const cost = contenderCost(doc.command, runs, prices, isSdkBaseline(s) ? 'calls' : 'requests');
    const measuredMs = s.timesMs.reduce((t, ms) => t + ms, 0);
    return { ...s, cost, ...completionOf(runs), ...(bounds ? { timeBounds: bounds } : {}), measuredMs };
  });
}

/** The answer: a tune's cell, a sweep's, or the rule over the ranked contenders. */
function answerOf(
  doc: ResultsFile,
  stats: ContenderStats[],
  contenders: ReportContender[],
  material: number,
) {
  const swept = sweepOf(doc, stats, contenders, material);
  const unit = reportUnit(stats.map((s) => s.unit));
  const tuned = tuneReport(doc, stats, unit, (s) =>
    s.params
      ? strategyNamed(doc.command, s.strategy)?.sdkSettings?.(s.params, s.objectSizeBytes ?? 0)
      : undefined,
  );
  const train = trainReport(doc.runs);
  const general = tuned
    ? tuneRecommendation(tuned, contenders, unit)
    : swept
      ? swept.recommendation
      : recommend(
          contenders.map((c) => ({
            ...c,
            requestsPerObject: c.cost.requestsPerObject,
            ...declared(doc.command, c.strategy),
          })),
          material,
        );
  // A training run's answer is the least prefetch that keeps its accelerators busy, not the fastest.
  const recommendation =
    train && !tuned && general
      ? trainRecommendation(train, general, (s) => strategyNamed(doc.command, s)?.description ?? s)
      : general;
  return { swept, unit, tuned, recommendation, train };
}

function headerOf(doc: ResultsFile, stats: ContenderStats[], title: string, local: boolean): ReportHeader {
  const objectSizeBytes = commonObjectSize(doc);
  return {
    title,
    command: doc.command,
    target: doc.environment.target,
    targetKind: doc.environment.targetKind,
    targetOnThisMachine: local,
    ...(objectSizeBytes !== undefined ? { objectSizeBytes } : {}),
    runsPerContender: stats.map((s) => ({ label: s.label, runs: s.runs })),
    usualRuns: modalCount(stats.map((s) => s.runs)),
    mostRuns: Math.max(0, ...stats.map((s) => s.runs)),
    complete: doc.complete,
    ...(doc.interrupted ? { interrupted: doc.interrupted } : {}),
    createdAt: doc.createdAt,
  };
}

/** The socket buffers' size the server clock's bound allows for: the host's, else a default. */
function socketBufferBytes(env: Environment): number {
  return env.tcp?.rmemMaxBytes !== undefined && env.tcp.wmemMaxBytes !== undefined
    ? env.tcp.rmemMaxBytes + env.tcp.wmemMaxBytes
    : DEFAULT_SOCKET_BUFFER_BYTES;
}

function reportFigures(doc: ResultsFile, opts: ReportOptions): ReportFigures {
  const prices = opts.prices ?? DEFAULT_PRICES;
  const stats = analyze(doc.runs);
  const contenders = rankedContenders(doc, stats, prices);
  const local = targetOnThisMachine(doc.environment);
  const bufferBytes = socketBufferBytes(doc.environment);
  const { swept, unit, tuned, recommendation, train } = answerOf(
    doc,
    stats,
    contenders,
    opts.material ?? DEFAULT_MATERIAL_SHARE,
  );
  const buckets = sizeBuckets(doc.runs);
  const mix = mixFigures(doc.runs);
  // A tune's cells: the figures of the cell it chose (its neighbours are in the tune's answer).
  const checkpoint = checkpointReport(doc, tuned ? recommendation?.contender : undefined);
  // A sweep or a tune measures dozens of cells: the answer says where the chosen one's time went.
  const shownTimes =
    tuned || swept ? contenders.filter((c) => c.label === recommendation?.contender) : contenders;
  return {
    schema: 'blob-cacher/report',
    schemaVersion: REPORT_SCHEMA_VERSION,
    header: headerOf(doc, stats, opts.title, local),
    environment: doc.environment,
    unit,
    contenders,
    verdicts: verdicts(contenders),
    ...(recommendation ? { recommendation } : {}),
    timeWent: shownTimes.flatMap((c) => timeWentOf(c) ?? []),
    warnings: reportWarnings(stats, { targetOnThisMachine: local, socketBufferBytes: bufferBytes }),
    warmupFaults: warmupFaults(doc.runs),
    serverClock: stats.flatMap((s) => {
      const gap = serverGap(s, bufferBytes);
      return gap ? [{ contender: s.label, ...gap }] : [];
    }),
    ...(swept ? { sweep: swept.sweep } : {}),
    ...(tuned ? { tune: tuned } : {}),
    prices: { name: prices.name, asOf: prices.asOf, currency: prices.currency },
    latencyPercentiles: LATENCY_PERCENTILES,
    ranges: rangesOf(contenders),
    ...(opts.thresholds?.length ? { thresholds: evaluateThresholds(opts.thresholds, contenders) } : {}),
    ...(doc.slo ? { rateCurves: rateCurves(doc.runs, doc.slo) } : {}),
    ...(buckets ? { sizeBuckets: buckets } : {}),
    ...(mix ? { mix } : {}),
    ...(checkpoint ? { checkpoint } : {}),
    ...(train ? { train } : {}),
  };
}

/** A tune's answer is the cell its search ended on, said with its rate and why its neighbours lost. */
function tuneRecommendation(
  t: ReportTune,
  contenders: readonly ReportContender[],
  unit: Unit,
): Recommendation | undefined {
  const best = t.best;
  const c = best && contenders.find((x) => x.label === best.label);
  if (!best || !c || best.failed || !t.deploy) return undefined;
  const settings = Object.entries(best.cell)
    .map(([k, v]) => `${k} ${v}`)
    .join(' ');
  const rate = best.rate === undefined ? '' : ` at ${best.rate.toFixed(unit === 'ops/s' ? 0 : 1)} ${unit}`;
  const slower = t.neighbours.filter((n) => n.significant && (n.ratio ?? 0) > 1);
  const same = t.neighbours.filter((n) => !n.significant && n.ratio !== undefined);
  const why = [
    slower.length ? `${slower.length} neighbour(s) significantly slower` : '',
    same.length ? `${same.length} no different (${same.map((n) => `${n.axis} ${n.value}`).join(', ')})` : '',
  ]
    .filter(Boolean)
    .join(', ');
  // The fewest resources as fast as the fastest cell: said so, never called the fastest itself.
  const fastestCell =
    t.fastest &&
    Object.entries(t.fastest.cell)
      .map(([k, v]) => `${k} ${v}`)
      .join(' ');
  const basis = fastestCell
    ? `${rate.replace(/^ at /, '')}${rate ? ', ' : ''}as fast as the fastest cell the search found ` +
      `(${fastestCell}: ` +
      `no significant difference, under ${t.materialGainPercent}% apart) for less`
    : `the fastest the search found${rate}`;
  const ended =
    t.stopped === 'converged'
      ? 'no neighbour was worth moving to'
      : t.stopped === 'budget'
        ? 'the budget ran out'
        : 'stopped';
  const began = t.throttling.map((b) => `${b.axis} ${b.value} (${b.throttleClass})`).join(', ');
  const throttle = t.bestThrottled
    ? ' It was throttled: every cell measured was.'
    : t.throttling.length
      ? ` Throttling began at ${began}.`
      : '';
  return {
    contender: c.label,
    strategy: c.strategy,
    description: c.description,
    basis: 'fastest',
    tiedWith: same.map((n) => n.label),
    n: c.timesMs.length,
    requestsPerObject: c.cost.requestsPerObject,
    materialShare: TUNE_MATERIAL_GAIN,
    ...(t.deploy.sdk ? { sdkSettings: t.deploy.sdk } : {}),
    text:
      `Recommended: ${settings} — ${basis} after ${t.path.length} cells (${ended})` +
      `${why ? `; ${why}` : ''}.${throttle}`,
  };
}
