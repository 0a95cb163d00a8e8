// Every report is computed here from results files alone: repeated runs become medians and
// intervals, histograms from every run and worker are added, warm-up runs are left out.
import {
  PhaseHistograms,
  summarizeHistogram,
  valuesAtPercentiles,
  METRICS,
  type LatencySummaryMs,
  type MetricName,
} from '../metrics/histograms.js';
import { median, spread, type Spread } from './stats.js';
import { PHASES, type Phase } from '../transport/phases.js';
import {
  runFailed,
  type Cell,
  type IntervalPoint,
  type RunParams,
  type RunRecord,
  type SteadyRecord,
  type WorkerEvidence,
} from '../results/schema.js';
import { isSteady, steadyFigures, steadyRates, type SteadyFigures, type SteadyRates } from './steady.js';
import { cellLabel } from '../results/label.js';
import type { Unit } from '../results/schema.js';
import { unitOf } from './unit.js';
import { faultTally } from './faults.js';
import type { FaultCounts } from '../transport/answer.js';

/** One contender (a strategy, in a sweep cell) over its measured runs. */
export interface ContenderStats {
  /** What reports key and show it by: the strategy, and its sweep cell when there is one. */
  label: string;
  strategy: string;
  cell?: Cell;
  params?: RunParams;
  description: string;
  /** What it is counted in (unit.ts): MiB/s, or ops/s for many small blobs, listings and HEADs. */
  unit: Unit;
  /** Measured runs (warm-ups excluded). */
  runs: number;
  /**
   * What the rank test compared: runs, or for a steady contender the whole intervals of its active windows.
   */
  samples: { n: number; of: 'runs' | 'intervals' };
  objectSizeBytes: number;
  wallMs: Spread;
  /**
   * What the rank test compares, in order: each timed run's wall time, or for a steady contender the
   * time of one lap at each active interval's rate (n = intervals; neighbours are correlated).
   */
  timesMs: number[];
  /** The same runs on the server's clock, where it was read (the embedded Azurite). */
  serverSpanMs?: Spread;
  /** Median per run of the wall time outside the timed span, by step. */
  untimedMs?: { setup: number; collect: number; verify: number; cleanup: number };
  throughputMiBps: Spread;
  opsPerSecond: Spread;
  /** Many-blob workloads: the set's files per second of wall time (a listing's names, not its pages). */
  blobsPerSecond?: Spread;
  /** Each timed run's rates, in run order: what sweeps compare across cells of different sizes. */
  ratesMiBps: number[];
  ratesOpsPerSecond: number[];
  requestsPerRun: number;
  failedRequests: number;
  reusedSockets: number;
  /** Totals over the measured runs. */
  retries: number;
  throttled: number;
  backoffMs: number;
  /** Failed tries by kind (resets, timeouts, ...) over the measured runs; throttled answers apart. */
  faults: FaultCounts;
  /** Sockets opened (requests not on a reused socket), median per run: where the connect phases come from. */
  socketsOpenedPerRun: number;
  phaseShare: Partial<Record<Phase, number>>;
  latencyMs: Partial<Record<MetricName, LatencySummaryMs>>;
  /** Total time per request at LATENCY_PERCENTILES, from the merged histograms; empty without requests. */
  totalPercentilesMs: number[];
  /**
   * No run failed (ranked among the others); `notVerified` says when the bytes were not compared with
   * anything.
   */
  verified: boolean;
  /**
   * Why the bytes were not verified though nothing failed (a plain URL), shown as "not verified (why)", never
   * "ok".
   */
  notVerified?: string;
  problems: string[];
  cpuBoundWorkers: number;
  eventLoopDelayP99MaxMs: number;
  cpuMsPerRun: number;
  recordsSampled: boolean;
  /** --connections warm: sockets open at the release, median per run. */
  warmSockets?: number;
  /** Steady runs (--duration): what they were asked, and what the window of the median run showed. */
  steady?: SteadySummary;
}

export interface SteadySummary {
  durationMs: number;
  intervalMs: number;
  /**
   * The measured run whose active rate is the median: its series and its active window are the ones shown.
   */
  medianRun: number;
  series: IntervalPoint[];
  /** That series as rates per interval, its buckets for a sparkline, range, p99 range and errors. */
  rates: SteadyRates;
  window: SteadyFigures;
  /** Per measured run, in run order. */
  figures: SteadyFigures[];
  /** Rates are per byte (MiB/s) or, where nothing moves, per request. */
  perByte: boolean;
  /** Runs --autoterm ended: when, and the window and tolerance it found the rate stable within. */
  autoterm: NonNullable<SteadyRecord['autoterm']>[];
}

function summarizeSteady(
  runs: (RunRecord & { steady: SteadyRecord })[],
  figures: SteadyFigures[],
  mib: number[],
  ops: number[],
  unit: Unit,
): SteadySummary {
  const perByte = unit === 'MiB/s';
  const rates = perByte ? mib : ops;
  const order = rates.map((_, i) => i).sort((a, b) => rates[a]! - rates[b]!);
  const mid = order[Math.floor((order.length - 1) / 2)]!;
  const shown = runs[mid]!;
  return {
    durationMs: shown.steady.durationMs,
    intervalMs: shown.steady.intervalMs,
    medianRun: shown.run,
    series: shown.steady.series,
    rates: steadyRates(shown.steady.series, shown.steady.intervalMs, perByte),
    window: figures[mid]!,
    figures,
    perByte,
    autoterm: runs.flatMap((r) => (r.steady.autoterm ? [r.steady.autoterm] : [])),
  };
}

/** Percentiles of the latency curve; 0 and 100 are the fastest and slowest request. */
export const LATENCY_PERCENTILES = [0, 10, 25, 50, 75, 90, 95, 99, 99.9, 100] as const;

/** A strategy in a sweep cell reads as `chunked [--concurrency 8]`. */
export { cellLabel } from '../results/label.js';

/** A worker that spent >= 90% of its active time on CPU could not have gone faster with more sockets. */
export const isCpuBound = (w: WorkerEvidence) =>
  w.activeMs > 50 && (w.cpuUserMs + w.cpuSystemMs) / w.activeMs >= 0.9;

export function analyze(runs: readonly RunRecord[]): ContenderStats[] {
  const groups = new Map<string, RunRecord[]>();
  for (const r of runs) {
    if (r.warmup) continue;
    const key = cellLabel(r.strategy, r.cell);
    groups.set(key, [...(groups.get(key) ?? []), r]);
  }
  return [...groups].map(([name, g]) => contenderStats(name, g));
}

/** Latency summaries per metric from the merged histograms, and the total's percentile curve. */
function latencyOf(g: readonly RunRecord[]): Pick<ContenderStats, 'latencyMs' | 'totalPercentilesMs'> {
  const hist = new PhaseHistograms();
  for (const r of g) hist.addEncoded(r.histograms);
  const latencyMs: Partial<Record<MetricName, LatencySummaryMs>> = {};
  for (const m of METRICS) {
    const h = hist.byMetric.get(m);
    if (h && h.totalCount > 0) latencyMs[m] = summarizeHistogram(h);
  }
  const total = hist.byMetric.get('total');
  const totalPercentilesMs =
    total && total.totalCount > 0
      ? valuesAtPercentiles(total, LATENCY_PERCENTILES).map(
          (us, i) => (LATENCY_PERCENTILES[i] === 100 ? total.maxValue : us) / 1000,
        )
      : [];
  return { latencyMs, totalPercentilesMs };
}

/** Each phase's share of the runs' summed request time, for the phases the runs recorded. */
function phaseShareOf(g: readonly RunRecord[]): Partial<Record<Phase, number>> {
  const requestSum = g.reduce((s, r) => s + r.requestSumMs, 0);
  const phaseShare: Partial<Record<Phase, number>> = {};
  for (const p of PHASES) {
    if (!g.some((r) => r.phaseSumsMs[p] !== undefined)) continue;
    phaseShare[p] = requestSum > 0 ? g.reduce((s, r) => s + (r.phaseSumsMs[p] ?? 0), 0) / requestSum : 0;
  }
  return phaseShare;
}

/** The runs that have a time, the times ranked by, and each run's rates. */
function timingOf(g: readonly RunRecord[]) {
  const verifiedRuns = g.filter((r) => !runFailed(r));
  // A run that never started (no time at all) has no figure to show: it counts as failed, not as 0 ms.
  const timed = (verifiedRuns.length ? verifiedRuns : g).filter((r) => r.wallMs > 0 || isSteady(r));
  // A steady run is ranked by its active window: its rate there, and the time of one lap at it.
  const figures = timed.map((r) => (isSteady(r) ? steadyFigures(r) : undefined));
  const allSteady = timed.length > 0 && figures.every((f) => f !== undefined);
  const intervalTimes = allSteady ? figures.flatMap((f) => f!.intervalLapTimesMs) : [];
  // Steady contenders rank by their intervals when they have some; a run with none, by its pass.
  const byIntervals = intervalTimes.length > 0;
  const timesMs = byIntervals ? intervalTimes : timed.map((r, i) => figures[i]?.lapTimeMs ?? r.wallMs);
  const ratesMiBps = timed.map((r, i) => {
    const f = figures[i];
    if (f) return f.activeMs > 0 ? f.activeBytes / 1024 / 1024 / (f.activeMs / 1000) : 0;
    return r.wallMs > 0 ? r.bytes / 1024 / 1024 / (r.wallMs / 1000) : 0;
  });
  const ratesOpsPerSecond = timed.map((r, i) => {
    const f = figures[i];
    if (f) return f.activeMs > 0 ? f.activeOps / (f.activeMs / 1000) : 0;
    return r.wallMs > 0 ? r.requests / (r.wallMs / 1000) : 0;
  });
  return { timed, figures, byIntervals, timesMs, ratesMiBps, ratesOpsPerSecond };
}

/** Steps outside the timed span, median per run, where every run recorded them. */
const untimedOf = (g: readonly RunRecord[]): Pick<ContenderStats, 'untimedMs'> =>
  g.every((r) => r.untimedMs)
    ? {
        untimedMs: {
          setup: median(g.map((r) => r.untimedMs!.setup)),
          collect: median(g.map((r) => r.untimedMs!.collect)),
          verify: median(g.map((r) => r.untimedMs!.verify)),
          cleanup: median(g.map((r) => r.untimedMs!.cleanup)),
        },
      }
    : {};

/** Requests, failures, retries and faults over the runs. */
const countsOf = (g: readonly RunRecord[]) => ({
  requestsPerRun: Math.round(g.reduce((s, r) => s + r.requests, 0) / g.length),
  failedRequests: g.reduce((s, r) => s + r.failedRequests, 0),
  reusedSockets: g.reduce((s, r) => s + r.reusedSockets, 0),
  retries: g.reduce((s, r) => s + r.retries, 0),
  throttled: g.reduce((s, r) => s + r.throttled, 0),
  backoffMs: g.reduce((s, r) => s + r.backoffMs, 0),
  faults: faultTally(g).faults,
  socketsOpenedPerRun: median(g.map((r) => r.requests - r.reusedSockets)),
});

/** Whether every run verified, what was not compared, and each failed run's problem. */
function verificationOf(
  g: readonly RunRecord[],
): Pick<ContenderStats, 'verified' | 'notVerified' | 'problems'> {
  const problems = g.filter(runFailed).map((r) => `run ${r.run + 1}: ${r.error ?? r.verification}`);
  return {
    verified: problems.length === 0,
    ...(problems.length === 0 && g.some((r) => r.notVerified !== undefined)
      ? { notVerified: g.find((r) => r.notVerified !== undefined)!.notVerified }
      : {}),
    problems,
  };
}

/** The workers' evidence: CPU-bound workers, event-loop delay, CPU per run. */
function workersOf(g: readonly RunRecord[]) {
  const workers = g.flatMap((r) => r.workers);
  return {
    cpuBoundWorkers: workers.filter(isCpuBound).length,
    eventLoopDelayP99MaxMs: Math.max(0, ...workers.map((w) => w.eventLoopDelayP99Ms)),
    cpuMsPerRun: workers.reduce((s, w) => s + w.cpuUserMs + w.cpuSystemMs, 0) / g.length,
  };
}

function contenderStats(name: string, g: RunRecord[]): ContenderStats {
  const { timed, figures, byIntervals, timesMs, ratesMiBps, ratesOpsPerSecond } = timingOf(g);
  const unit = unitOf(g);
  const steadyRuns = timed.filter(isSteady);
  const steady =
    steadyRuns.length === timed.length && steadyRuns.length
      ? summarizeSteady(steadyRuns, figures as SteadyFigures[], ratesMiBps, ratesOpsPerSecond, unit)
      : undefined;
  const { latencyMs, totalPercentilesMs } = latencyOf(g);
  const perBlob = (r: RunRecord) => (r.wallMs > 0 ? r.params!.fileCount! / (r.wallMs / 1000) : 0);
  return {
    label: name,
    strategy: g[0]!.strategy,
    cell: g[0]!.cell,
    params: g[0]!.params,
    description: g[0]!.description,
    unit,
    runs: g.length,
    samples: { n: timesMs.length, of: byIntervals ? 'intervals' : 'runs' },
    objectSizeBytes: g[0]!.objectSizeBytes,
    // Timing statistics come from verified runs: a failed run's time measures the failure.
    // For a steady run, the time of one lap at its active rate: the figure it is ranked by.
    wallMs: spread(timesMs),
    timesMs,
    ...untimedOf(g),
    ...(timed.every((r) => r.serverSpanMs !== undefined) && timed.length
      ? { serverSpanMs: spread(timed.map((r) => r.serverSpanMs!)) }
      : {}),
    throughputMiBps: spread(ratesMiBps),
    opsPerSecond: spread(ratesOpsPerSecond),
    ...(g[0]!.params?.fileCount !== undefined ? { blobsPerSecond: spread(timed.map(perBlob)) } : {}),
    ratesMiBps,
    ratesOpsPerSecond,
    ...countsOf(g),
    phaseShare: phaseShareOf(g),
    latencyMs,
    totalPercentilesMs,
    ...verificationOf(g),
    ...workersOf(g),
    recordsSampled: g.some((r) => r.recordsSampled),
    ...(steady ? { steady } : {}),
    ...(g.some((r) => r.warmSockets !== undefined)
      ? { warmSockets: median(g.map((r) => r.warmSockets ?? 0)) }
      : {}),
  };
}
