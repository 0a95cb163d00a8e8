// Every report is computed here from results files alone: repeated runs become medians and
// intervals, histograms from every run and worker are added, warm-up runs are left out.
import { PhaseHistograms, summarizeHistogram, METRICS, type LatencySummaryMs, type MetricName } from '../metrics/histograms.js';
import { spread, type Spread } from './stats.js';
import { PHASES, type Phase } from '../transport/phases.js';
import type { StrategyRun } from '../results/schema.js';

export interface StrategyStats {
  strategy: string;
  cell?: Record<string, string>;
  description: string;
  /** Measured runs (warm-ups excluded). */
  runs: number;
  objectSizeBytes: number;
  wallMs: Spread;
  throughputMiBps: Spread;
  opsPerSecond: Spread;
  requestsPerRun: number;
  failedRequests: number;
  reusedSockets: number;
  /** Totals over the measured runs. */
  retries: number;
  throttled: number;
  backoffMs: number;
  phaseShare: Partial<Record<Phase, number>>;
  latencyMs: Partial<Record<MetricName, LatencySummaryMs>>;
  verified: boolean;
  problems: string[];
  cpuBoundWorkers: number;
  eventLoopDelayP99MaxMs: number;
  cpuMsPerRun: number;
  recordsSampled: boolean;
}

/** A strategy in a sweep cell reads as `chunked [--concurrency 8]`. */
export function cellLabel(strategy: string, cell?: Record<string, string>): string {
  if (!cell || !Object.keys(cell).length) return strategy;
  return `${strategy} [${Object.entries(cell).map(([k, v]) => `${k} ${v}`).join(' ')}]`;
}

export function analyze(runs: readonly StrategyRun[]): StrategyStats[] {
  const order: string[] = [];
  const groups = new Map<string, StrategyRun[]>();
  for (const r of runs) {
    if (r.warmup) continue;
    const key = cellLabel(r.strategy, r.cell);
    if (!groups.has(key)) {
      groups.set(key, []);
      order.push(key);
    }
    groups.get(key)!.push(r);
  }
  return order.map((name) => {
    const g = groups.get(name)!;
    const hist = new PhaseHistograms();
    for (const r of g) hist.addEncoded(r.histograms);
    const latencyMs: Partial<Record<MetricName, LatencySummaryMs>> = {};
    for (const m of METRICS) {
      const h = hist.byMetric.get(m);
      if (h && h.totalCount > 0) latencyMs[m] = summarizeHistogram(h);
    }
    const requestSum = g.reduce((s, r) => s + r.requestSumMs, 0);
    const phaseShare: Partial<Record<Phase, number>> = {};
    for (const p of PHASES) {
      if (!g.some((r) => r.phaseSumsMs[p] !== undefined)) continue;
      phaseShare[p] = requestSum > 0 ? g.reduce((s, r) => s + (r.phaseSumsMs[p] ?? 0), 0) / requestSum : 0;
    }
    const workers = g.flatMap((r) => r.workers);
    const verifiedRuns = g.filter((r) => r.verified);
    const timed = verifiedRuns.length ? verifiedRuns : g;
    const problems = g.filter((r) => !r.verified).map((r) => `run ${r.run + 1}: ${r.error ?? r.verification}`);
    return {
      strategy: g[0]!.strategy,
      cell: g[0]!.cell,
      description: g[0]!.description,
      runs: g.length,
      objectSizeBytes: g[0]!.objectSizeBytes,
      // Timing statistics come from verified runs: a failed run's time measures the failure.
      wallMs: spread(timed.map((r) => r.wallMs)),
      throughputMiBps: spread(timed.map((r) => (r.wallMs > 0 ? r.bytes / 1024 / 1024 / (r.wallMs / 1000) : 0))),
      opsPerSecond: spread(timed.map((r) => (r.wallMs > 0 ? r.requests / (r.wallMs / 1000) : 0))),
      requestsPerRun: Math.round(g.reduce((s, r) => s + r.requests, 0) / g.length),
      failedRequests: g.reduce((s, r) => s + r.failedRequests, 0),
      reusedSockets: g.reduce((s, r) => s + r.reusedSockets, 0),
      retries: g.reduce((s, r) => s + (r.retries ?? 0), 0),
      throttled: g.reduce((s, r) => s + (r.throttled ?? 0), 0),
      backoffMs: g.reduce((s, r) => s + (r.backoffMs ?? 0), 0),
      phaseShare,
      latencyMs,
      verified: problems.length === 0,
      problems,
      cpuBoundWorkers: workers.filter((w) => w.cpuBound).length,
      eventLoopDelayP99MaxMs: Math.max(0, ...workers.map((w) => w.eventLoopDelayP99Ms)),
      cpuMsPerRun: workers.reduce((s, w) => s + w.cpuUserMs + w.cpuSystemMs, 0) / g.length,
      recordsSampled: g.some((r) => r.recordsSampled),
    };
  });
}

/** Fastest first; failed strategies last. */
export function rankStats(stats: readonly StrategyStats[]): StrategyStats[] {
  return [...stats].sort((a, b) => Number(!a.verified) - Number(!b.verified) || a.wallMs.median - b.wallMs.median);
}
