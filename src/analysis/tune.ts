// A tune's answer, computed once from its results file: the best cell with its rate and interval, how
// much worse each measured neighbour is (ratio and interval, or no significant difference), the
// path the search took, where throttling began, and what to deploy (environment lines, the
// Kubernetes Job's command line, the SDK's settings where an SDK contender is the best).
import { cellLabel, type ContenderStats } from './analyze.js';
import { medianInterval, ratioInterval, significantlyFaster, type Interval } from './significance.js';
import { median } from './stats.js';
import type { Cell, ResultsFile, ThrottleClass, TuneRecord } from '../results/schema.js';
import type { Unit } from './unit.js';

/**
 * The least gain (a share of the median) that moves the search to a cell asking for more: the
 * default --precision, finer than --material, since a search compares neighbours of one strategy.
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
}

export interface ReportTune {
  direction: 'download' | 'upload';
  axes: TuneRecord['axes'];
  budgetMs: number;
  spentMs: number;
  stopped: TuneRecord['stopped'];
  best?: TuneCellFigures & { timeInterval?: Interval };
  neighbours: TuneNeighbour[];
  path: TuneStepFigures[];
  throttling: TuneRecord['throttling'];
  /** The best needed throttled answers to be the best: said beside it. */
  bestThrottled: boolean;
  deploy: { environment: string; k8sManifest: string; sdk?: string[] };
}

/** The environment names the image reads for each searched option. */
const ENV_OF: Record<string, string> = {
  '--processes': 'PROCESSES', '--max-sockets': 'MAX_SOCKETS', '--concurrency': 'CONCURRENCY', '--source-method': 'SOURCE_METHOD',
  '--upload-method': 'BLOB_CACHER_UPLOAD_METHOD', '--block-size': 'BLOB_CACHER_BLOCK_SIZE',
};

const sameCell = (a: Cell, b: Cell) => Object.keys(a).length === Object.keys(b).length && Object.entries(a).every(([k, v]) => b[k] === v);

/**
 * The tune section of a report; `sdkSettings` gives an SDK strategy's settings for its cell (the
 * strategies' own hook, passed in so that analysis imports none of them here).
 */
export function tuneReport(doc: ResultsFile, stats: readonly ContenderStats[], unit: Unit, sdkSettings: (s: ContenderStats) => string[] | undefined): ReportTune | undefined {
  const t = doc.tune;
  if (!t) return undefined;
  const statsOf = (cell: Cell) => stats.find((s) => s.cell && sameCell(s.cell, cell));
  const figures = (cell: Cell, throttled: number, throttleClass?: ThrottleClass): TuneCellFigures => {
    const s = statsOf(cell);
    const timeMs = s?.timesMs.length ? median(s.timesMs) : undefined;
    const rate = s ? (unit === 'ops/s' ? s.opsPerSecond.median : s.throughputMiBps.median) : undefined;
    return {
      cell, label: s?.label ?? cellLabel(String(cell['--source-method'] ?? cell['--upload-method'] ?? ''), cell),
      ...(timeMs !== undefined ? { timeMs } : {}), ...(rate !== undefined ? { rate } : {}),
      throttled, ...(throttleClass ? { throttleClass } : {}), failed: !s || !s.verified || !s.timesMs.length,
    };
  };
  const path = t.path.map((p, step) => ({ ...figures(p.cell, p.throttled, p.throttleClass), step, reason: p.reason, ...(p.axis ? { axis: p.axis } : {}), spentMs: p.spentMs }));
  const bestStep = t.best ? path.find((p) => sameCell(p.cell, t.best!)) : undefined;
  const bestStats = t.best ? statsOf(t.best) : undefined;
  const neighbours: TuneNeighbour[] = [];
  if (bestStep && bestStats?.timesMs.length) {
    for (const p of path) {
      const differs = Object.keys(p.cell).filter((k) => p.cell[k] !== bestStep.cell[k]);
      if (differs.length !== 1) continue;
      const s = statsOf(p.cell);
      const axis = differs[0]!;
      if (!s?.timesMs.length) {
        neighbours.push({ ...p, axis, value: p.cell[axis]!, significant: false });
        continue;
      }
      const interval = ratioInterval(bestStats.timesMs, s.timesMs);
      const significant = significantlyFaster(bestStats.timesMs, s.timesMs) || significantlyFaster(s.timesMs, bestStats.timesMs);
      neighbours.push({ ...p, axis, value: p.cell[axis]!, ratio: median(s.timesMs) / median(bestStats.timesMs), interval, significant });
    }
  }
  // What to deploy: the settings kept as given, then the best cell's.
  const cell = { ...(t.fixed ?? {}), ...(t.best ?? {}) };
  const direction = t.direction;
  const flags = Object.entries(cell).map(([k, v]) => `${k} ${v}`).join(' ');
  const environment = Object.entries(cell).map(([k, v]) => `${ENV_OF[k] ?? k}=${v}`).join(' ');
  const sdk = bestStats ? sdkSettings(bestStats) : undefined;
  return {
    direction, axes: t.axes, budgetMs: t.budgetMs, spentMs: t.path.reduce((s, p) => s + p.spentMs, 0), stopped: t.stopped,
    ...(bestStep ? { best: { ...bestStep, ...(bestStats && bestStats.timesMs.length > 1 ? { timeInterval: medianInterval(bestStats.timesMs) } : {}) } } : {}),
    neighbours: neighbours.sort((a, b) => (a.ratio ?? Infinity) - (b.ratio ?? Infinity)),
    path, throttling: t.throttling, bestThrottled: (bestStep?.throttled ?? 0) > 0,
    deploy: {
      environment,
      k8sManifest: `npx blob-cacher k8s-manifest --parallelism 1 -- ${direction} ${flags}`.trim(),
      ...(sdk?.length ? { sdk } : {}),
    },
  };
}
