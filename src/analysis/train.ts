// A training run's figures and verdict: accelerator utilisation (compute time over wall time, MLPerf
// Storage's AU) per epoch and overall, throughput, and the accelerator's wait per batch, for each
// contender; whether each keeps the pass mark; and, where contenders differ only in prefetch depth,
// the depth where utilisation levels off (the plateau rule below).
import { decodeHistogram, summarizeHistogram } from '../metrics/histograms.js';
import { cellLabel } from '../results/label.js';
import { runFailed, type Cell, type RunRecord } from '../results/schema.js';
import type { Recommendation } from './recommend.js';
import { mannWhitney } from './significance.js';
import { ALPHA, median } from './stats.js';

/**
 * A depth is on the plateau when its median utilisation is within this many points of the best
 * depth's: a smaller gain from reading further ahead is too small to matter (it costs memory and
 * requests in flight), whatever a rank test says of it.
 */
export const PLATEAU_POINTS = 0.02;

export interface TrainFigures {
  contender: string;
  strategy: string;
  prefetch: number;
  passMark: number;
  runs: number;
  /** Median over runs of each run's utilisation, and the lowest and highest run. */
  utilisation: number;
  lowest: number;
  highest: number;
  /** Each run's utilisation, for the rank test. */
  perRun: number[];
  /** Median over runs, epoch by epoch. */
  perEpoch: number[];
  samplesPerSecond: number;
  mibPerSecond: number;
  /** The accelerator's wait per batch, over every measured run. */
  waitP50Ms: number;
  waitP99Ms: number;
  passes: boolean;
}

/** Contenders that differ only in prefetch depth, and where their utilisation levels off. */
export interface TrainPlateau {
  /** The contenders' label without the depth (a strategy, and any other swept value). */
  group: string;
  /** Its contenders' labels, by depth. */
  contenders: string[];
  depths: { prefetch: number; utilisation: number }[];
  best: { prefetch: number; utilisation: number };
  levelsAt: { prefetch: number; utilisation: number };
  /** Each depth's runs against the best's: whether the rank test finds the best significantly higher. */
  significantlyBelowBest: number[];
}

export interface ReportTrain {
  passMark: number;
  preset?: string;
  epochs: number;
  batchSize: number;
  computeMs: number;
  contenders: TrainFigures[];
  plateaus: TrainPlateau[];
  /** Every prefetch depth the plateaus measured, least first: the chart's x axis. */
  depths: number[];
  /** The answer in words: what keeps the pass mark, and where utilisation levels off. */
  verdict: string[];
}

const utilisationOf = (t: NonNullable<RunRecord['train']>) => {
  const wall = t.epochs.reduce((a, e) => a + e.wallMs, 0);
  return wall > 0 ? t.epochs.reduce((a, e) => a + e.computeMs, 0) / wall : 0;
};

function figuresOf(label: string, runs: readonly RunRecord[]): TrainFigures {
  const t = runs[0]!.train!;
  const perRun = runs.map((r) => utilisationOf(r.train!));
  const epochs = Math.max(...runs.map((r) => r.train!.epochs.length));
  const perEpoch = Array.from({ length: epochs }, (_, i) =>
    median(
      runs.flatMap((r) => {
        const e = r.train!.epochs[i];
        return e && e.wallMs > 0 ? [e.computeMs / e.wallMs] : [];
      }),
    ),
  );
  const wait = runs.map((r) => decodeHistogram(r.train!.waitUs));
  for (const h of wait.slice(1)) wait[0]!.add(h);
  const waits = summarizeHistogram(wait[0]!);
  const rate = (of: (r: RunRecord) => number) =>
    median(runs.map((r) => (r.wallMs > 0 ? of(r) / (r.wallMs / 1000) : 0)));
  const utilisation = median(perRun);
  return {
    contender: label,
    strategy: runs[0]!.strategy,
    prefetch: t.prefetch,
    passMark: t.passMark,
    runs: runs.length,
    utilisation,
    lowest: Math.min(...perRun),
    highest: Math.max(...perRun),
    perRun,
    perEpoch,
    // Samples, not requests: a sample read in ranges is several requests.
    samplesPerSecond: rate((r) => r.train!.epochs.reduce((a, e) => a + e.samples, 0)),
    mibPerSecond: rate((r) => r.bytes / 2 ** 20),
    waitP50Ms: waits.p50,
    waitP99Ms: waits.p99,
    passes: utilisation >= t.passMark,
  };
}

const withoutPrefetch = (strategy: string, cell?: Cell) => {
  const { '--prefetch': _, ...rest } = cell ?? {};
  return cellLabel(strategy, rest);
};

/**
 * The plateau rule: the best depth is the one of highest median utilisation; utilisation levels off
 * at the smallest depth within PLATEAU_POINTS of it. Each depth's runs are also put to the rank test
 * against the best's, so the report can say where the best is significantly higher still.
 */
function plateauOf(group: string, members: readonly TrainFigures[]): TrainPlateau | undefined {
  const byDepth = [...members].sort((a, b) => a.prefetch - b.prefetch);
  if (new Set(byDepth.map((m) => m.prefetch)).size < 2) return undefined;
  const best = byDepth.reduce((a, b) => (b.utilisation > a.utilisation ? b : a));
  const levels = byDepth.find((m) => m.utilisation >= best.utilisation - PLATEAU_POINTS)!;
  const below = byDepth.filter(
    (m) => m !== best && m.utilisation < best.utilisation && mannWhitney(best.perRun, m.perRun).p < ALPHA,
  );
  const point = (m: TrainFigures) => ({ prefetch: m.prefetch, utilisation: m.utilisation });
  return {
    group,
    contenders: byDepth.map((m) => m.contender),
    depths: byDepth.map(point),
    best: point(best),
    levelsAt: point(levels),
    significantlyBelowBest: below.map((m) => m.prefetch),
  };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

function plateauLine(p: TrainPlateau): string {
  const first = p.depths[0]!;
  const at = (d: { prefetch: number; utilisation: number }) =>
    `prefetch ${d.prefetch} (${pct(d.utilisation)})`;
  if (p.best.utilisation <= first.utilisation + PLATEAU_POINTS)
    return (
      `${p.group}: utilisation is level from ${at(first)}: ` +
      'reading further ahead gains too little to matter.'
    );
  const rest =
    p.levelsAt.prefetch === p.best.prefetch
      ? p.best.prefetch === p.depths.at(-1)!.prefetch
        ? 'the deepest measured is the best, so it may rise further: try deeper'
        : 'no deeper depth does better'
      : `the best, ${at(p.best)}, is within ${PLATEAU_POINTS * 100} points of it` +
        (p.significantlyBelowBest.includes(p.levelsAt.prefetch)
          ? ' (higher by the rank test, by too little to matter)'
          : '');
  return `${p.group}: utilisation rises from ${at(first)} and levels off at ${at(p.levelsAt)}; ${rest}.`;
}

function verdictOf(
  contenders: readonly TrainFigures[],
  plateaus: readonly TrainPlateau[],
  mark: number,
): string[] {
  const lines = plateaus.map(plateauLine);
  const passing = contenders.filter((c) => c.passes);
  if (!passing.length) {
    const top = contenders.reduce((a, b) => (b.utilisation > a.utilisation ? b : a));
    lines.push(
      `No contender keeps the ${pct(mark)} pass mark: the highest is ${top.contender} at ` +
        `${pct(top.utilisation)}; its accelerator waits ${top.waitP50Ms.toFixed(1)} ms for a batch ` +
        `at the median and ${top.waitP99Ms.toFixed(1)} ms at p99. ` +
        'More sockets or processes, or a deeper --prefetch, may close the gap.',
    );
    return lines;
  }
  // The least that passes: the shallowest depth per strategy.
  const least = new Map<string, TrainFigures>();
  for (const c of passing) {
    const seen = least.get(c.strategy);
    if (!seen || c.prefetch < seen.prefetch) least.set(c.strategy, c);
  }
  const kept = [...least.values()].map(
    (c) => `${c.strategy} from prefetch ${c.prefetch} (${pct(c.utilisation)})`,
  );
  lines.push(`Keeps the ${pct(mark)} pass mark: ${kept.join('; ')}.`);
  const failing = contenders.filter((c) => !c.passes).map((c) => `${c.contender} ${pct(c.utilisation)}`);
  if (failing.length) lines.push(`Below it: ${failing.join(', ')}.`);
  return lines;
}

/** The training figures of a results file's runs; undefined where none is a training run. */
export function trainReport(runs: readonly RunRecord[]): ReportTrain | undefined {
  const measured = runs.filter((r) => r.train && !r.warmup && !runFailed(r));
  if (!measured.length) return undefined;
  const byLabel = new Map<string, RunRecord[]>();
  for (const r of measured) {
    const label = cellLabel(r.strategy, r.cell);
    byLabel.set(label, [...(byLabel.get(label) ?? []), r]);
  }
  const contenders = [...byLabel].map(([label, rs]) => figuresOf(label, rs));
  const groups = new Map<string, TrainFigures[]>();
  for (const [label, rs] of byLabel) {
    const group = withoutPrefetch(rs[0]!.strategy, rs[0]!.cell);
    groups.set(group, [...(groups.get(group) ?? []), contenders.find((c) => c.contender === label)!]);
  }
  const plateaus = [...groups].flatMap(([g, ms]) => plateauOf(g, ms) ?? []);
  const t = measured[0]!.train!;
  return {
    passMark: t.passMark,
    ...(t.preset ? { preset: t.preset } : {}),
    epochs: t.epochs.length,
    batchSize: t.batchSize,
    computeMs: t.computeMs,
    contenders,
    plateaus,
    depths: [...new Set(plateaus.flatMap((p) => p.depths.map((d) => d.prefetch)))].sort((a, b) => a - b),
    verdict: verdictOf(contenders, plateaus, t.passMark),
  };
}

/**
 * The contender to deploy: where utilisation levels off if that keeps the pass mark, else the
 * shallowest depth that keeps it, else the highest utilisation measured, with the reason in words.
 */
export function trainRecommendation(
  t: ReportTrain,
  base: Recommendation,
  describe: (strategy: string) => string,
): Recommendation {
  const named = (label: string) => t.contenders.find((c) => c.contender === label);
  const levels = t.plateaus.map(
    (p) => named(p.contenders[p.depths.findIndex((d) => d.prefetch === p.levelsAt.prefetch)]!)!,
  );
  const passing = t.contenders.filter((c) => c.passes).sort((a, b) => a.prefetch - b.prefetch);
  const pick =
    levels.filter((c) => c.passes).sort((a, b) => b.utilisation - a.utilisation)[0] ??
    passing[0] ??
    [...t.contenders].sort((a, b) => b.utilisation - a.utilisation)[0]!;
  const why = pick.passes
    ? `keeps ${pct(pick.utilisation)} accelerator utilisation, above the ${pct(t.passMark)} pass mark` +
      (levels.includes(pick)
        ? ', where utilisation levels off as prefetch rises'
        : ', the shallowest that does')
    : `the highest utilisation measured, ${pct(pick.utilisation)}, below the ${pct(t.passMark)} pass mark`;
  return {
    ...base,
    contender: pick.contender,
    strategy: pick.strategy,
    description: describe(pick.strategy),
    text: `Recommended: ${pick.contender} — ${why}.`,
  };
}
