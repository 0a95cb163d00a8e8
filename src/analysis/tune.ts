// A tune's answer, computed once from its results file: the best cell with its rate and interval, how
// much worse each measured neighbour is (ratio and interval, or no significant difference), the
// path the search took, where throttling began, and what to deploy (environment lines, the
// Kubernetes Job's command line, the SDK's settings where an SDK contender is the best).
import { cellLabel, type ContenderStats } from './analyze.js';
import { ratioInterval, significantlyFaster } from './significance.js';
import { median, medianIntervalBootstrap, type Interval } from './stats.js';
import { tuneAxisPoints, type TuneAxisPoints } from './tune-axes.js';
import { DOWNLOAD_OPTIONS, UPLOAD_OPTIONS, CHECKPOINT_OPTIONS } from '../config/options.js';
import type { Cell, ResultsFile, ThrottleClass, TuneRecord, Unit } from '../results/schema.js';

/**
 * The least gain (a share of the median) that moves a tune to a cell asking for more, and the most
 * a cell asking for less may be measured slower and still be the answer: the default --precision.
 */
export const TUNE_MATERIAL_GAIN = 0.02;

export interface TuneCellFigures {
  cell: Cell;
  label: string;
  /** Median run time, ms, and the median rate in the report's unit. */
  timeMs?: number;
  rate?: number;
  throttled: number;
  throttleClass?: ThrottleClass;
  failed: boolean;
}

export interface TuneStepFigures extends TuneCellFigures {
  step: number;
  reason: 'start' | 'grow' | 'refine';
  axis?: string;
  spentMs: number;
}

export interface TuneNeighbour extends TuneCellFigures {
  /** The one axis on which it differs from the best, and its value there. */
  axis: string;
  value: string;
  /** Median time / the best's: how many times slower, with its 95% interval. */
  ratio?: number;
  interval?: Interval;
  /** False where a rank test cannot tell it from the best. */
  significant: boolean;
  /**
   * Where it is significantly faster and still not the answer, why: it met throttling, or it is
   * faster by less than TUNE_MATERIAL_GAIN (not worth what it asks for more).
   */
  notTaken?: 'throttled' | 'small';
}

export interface ReportTune {
  direction: 'download' | 'upload';
  axes: TuneRecord['axes'];
  /** The measured cells placed on each axis, for its chart. */
  axisPoints: TuneAxisPoints[];
  budgetMs: number;
  spentMs: number;
  stopped: TuneRecord['stopped'];
  /** The answer; absent where no cell was measured (every one failed, or the search stopped first). */
  best?: TuneCellFigures & { timeInterval?: Interval };
  /** The fastest cell measured (unthrottled, by median), where it is not the best: the best asks for less. */
  fastest?: TuneCellFigures;
  neighbours: TuneNeighbour[];
  path: TuneStepFigures[];
  throttling: TuneRecord['throttling'];
  /** The best needed throttled answers to be the best: said beside it. */
  bestThrottled: boolean;
  /** The first cell measured was throttled already: no step up found where throttling began. */
  startThrottled: boolean;
  /**
   * Where there is a best: its environment, and how to run it (a download or an upload as a Kubernetes
   * Job; a training run or a checkpoint, which run on one machine, as their command).
   */
  deploy?: { environment: string; k8sManifest?: string; run?: string; sdk?: string[] };
  /** TUNE_MATERIAL_GAIN as a percentage, for the words beside the verdicts. */
  materialGainPercent: number;
}

/** The environment name the image reads for a flag, from the option table (the flag itself where none). */
const envOf = (flag: string) =>
  [...DOWNLOAD_OPTIONS, ...UPLOAD_OPTIONS, ...CHECKPOINT_OPTIONS].find((o) => o.flag === flag)?.env ?? flag;

const sameCell = (a: Cell, b: Cell) =>
  Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);

const cellKey = (cell: Cell) =>
  JSON.stringify(
    Object.keys(cell)
      .sort()
      .map((k) => [k, cell[k]]),
  );

type StatsOf = (cell: Cell) => ContenderStats | undefined;

/** A cell's figures from its statistics: median time, rate, throttling, and whether it failed. */
function cellFigures(statsOf: StatsOf, unit: Unit) {
  return (cell: Cell, throttled: number, throttleClass?: ThrottleClass): TuneCellFigures => {
    const s = statsOf(cell);
    const timeMs = s?.timesMs.length ? median(s.timesMs) : undefined;
    const rate = s ? (unit === 'ops/s' ? s.opsPerSecond.median : s.throughputMiBps.median) : undefined;
    return {
      cell,
      label: s?.label ?? cellLabel(String(cell['--source-method'] ?? cell['--upload-method'] ?? ''), cell),
      ...(timeMs !== undefined ? { timeMs } : {}),
      ...(rate !== undefined ? { rate } : {}),
      throttled,
      ...(throttleClass ? { throttleClass } : {}),
      failed: !s?.verified || !s.timesMs.length,
    };
  };
}

/** A neighbour against the best: the ratio of their medians, its interval, and why it was not taken. */
function neighbour(p: TuneStepFigures, axis: string, s: ContenderStats, best: ContenderStats): TuneNeighbour {
  const interval = ratioInterval(best.timesMs, s.timesMs);
  const fasterThanBest = significantlyFaster(s.timesMs, best.timesMs);
  const significant = fasterThanBest || significantlyFaster(best.timesMs, s.timesMs);
  const ratio = median(s.timesMs) / median(best.timesMs);
  const notTaken = !fasterThanBest
    ? undefined
    : p.throttled > 0
      ? 'throttled'
      : ratio > 1 / (1 + TUNE_MATERIAL_GAIN)
        ? 'small'
        : undefined;
  return {
    ...p,
    axis,
    value: p.cell[axis]!,
    ratio,
    interval,
    significant,
    ...(notTaken ? { notTaken } : {}),
  };
}

/** Each distinct cell on the path that differs from the best on one axis, compared with it once. */
function neighboursOf(
  path: readonly TuneStepFigures[],
  bestStep: TuneStepFigures,
  bestStats: ContenderStats,
  statsOf: StatsOf,
): TuneNeighbour[] {
  const neighbours: TuneNeighbour[] = [];
  const compared = new Set<string>();
  for (const p of path) {
    const differs = Object.keys(p.cell).filter((k) => p.cell[k] !== bestStep.cell[k]);
    if (differs.length !== 1 || Object.keys(p.cell).length !== Object.keys(bestStep.cell).length) continue;
    const key = cellKey(p.cell);
    if (compared.has(key)) continue;
    compared.add(key);
    const s = statsOf(p.cell);
    const axis = differs[0]!;
    neighbours.push(
      s?.timesMs.length
        ? neighbour(p, axis, s, bestStats)
        : { ...p, axis, value: p.cell[axis]!, significant: false },
    );
  }
  return neighbours.sort((a, b) => (a.ratio ?? Infinity) - (b.ratio ?? Infinity));
}

/** What to deploy: the settings kept as given, then the best cell's, as flags, environment and SDK. */
function deployOf(t: NonNullable<ResultsFile['tune']>, bestStep: TuneStepFigures, sdk: string[] | undefined) {
  const cell = { ...(t.fixed ?? {}), ...bestStep.cell };
  const flags = Object.entries(cell)
    .map(([k, v]) => `${k} ${v}`)
    .join(' ');
  const environment = Object.entries(cell)
    .map(([k, v]) => `${envOf(k)}=${v}`)
    .join(' ');
  return {
    environment,
    ...(t.command
      ? { run: `npx blob-cacher ${t.command} ${flags}`.trim() }
      : { k8sManifest: `npx blob-cacher k8s-manifest --parallelism 1 -- ${t.direction} ${flags}`.trim() }),
    ...(sdk?.length ? { sdk } : {}),
  };
}

/**
 * The tune section of a report; `sdkSettings` gives an SDK strategy's settings for its cell (the
 * strategies' own hook, passed in so that analysis imports none of them here). Linear in the path:
 * each distinct cell's statistics are found once, and each distinct neighbour compared once (a
 * path may visit a cell many times; a bootstrap per visit made a 20,000-step path take a minute).
 */
export function tuneReport(
  doc: ResultsFile,
  stats: readonly ContenderStats[],
  unit: Unit,
  sdkSettings: (s: ContenderStats) => string[] | undefined,
): ReportTune | undefined {
  const t = doc.tune;
  if (!t) return undefined;
  const byCell = new Map<string, ContenderStats>();
  for (const s of stats) if (s.cell && !byCell.has(cellKey(s.cell))) byCell.set(cellKey(s.cell), s);
  const statsOf = (cell: Cell) => byCell.get(cellKey(cell));
  const figures = cellFigures(statsOf, unit);
  const path = t.path.map((p, step) => ({
    ...figures(p.cell, p.throttled, p.throttleClass),
    step,
    reason: p.reason,
    ...(p.axis ? { axis: p.axis } : {}),
    spentMs: p.spentMs,
  }));
  // A failed or unmeasured cell is never the answer, whatever the file says (a file of an older
  // build could name one).
  const named = t.best ? path.find((p) => sameCell(p.cell, t.best!)) : undefined;
  const bestStep = named && !named.failed ? named : undefined;
  const bestStats = bestStep ? statsOf(bestStep.cell) : undefined;
  const neighbours = bestStep && bestStats ? neighboursOf(path, bestStep, bestStats, statsOf) : [];
  const fastestStep = path
    .filter((p) => !p.failed && p.throttled === 0 && p.timeMs !== undefined)
    .sort((a, b) => a.timeMs! - b.timeMs!)[0];
  const quicker = bestStep && fastestStep && !sameCell(fastestStep.cell, bestStep.cell);
  const fastest = quicker && fastestStep.timeMs! < bestStep.timeMs! ? fastestStep : undefined;
  const timeInterval =
    bestStats && bestStats.timesMs.length > 1
      ? { timeInterval: medianIntervalBootstrap(bestStats.timesMs) }
      : {};
  return {
    direction: t.direction,
    axes: t.axes,
    axisPoints: tuneAxisPoints(t.axes, path, bestStep?.cell),
    budgetMs: t.budgetMs,
    spentMs: t.path.reduce((s, p) => s + p.spentMs, 0),
    stopped: t.stopped,
    ...(bestStep ? { best: { ...bestStep, ...timeInterval } } : {}),
    ...(fastest ? { fastest } : {}),
    neighbours,
    path,
    throttling: t.throttling,
    bestThrottled: (bestStep?.throttled ?? 0) > 0,
    startThrottled: (path[0]?.throttled ?? 0) > 0,
    ...(bestStep ? { deploy: deployOf(t, bestStep, bestStats ? sdkSettings(bestStats) : undefined) } : {}),
    materialGainPercent: TUNE_MATERIAL_GAIN * 100,
  };
}
