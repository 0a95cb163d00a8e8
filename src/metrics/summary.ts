// Per-strategy summaries from merged worker output: throughput, phase shares, percentiles from the
// merged histograms, and client-side evidence (CPU, event-loop delay) per worker.
import type { MergedRun } from '../workers/pool.js';
import type { OpRecord } from '../workers/protocol.js';
import { PHASES, type Phase } from '../transport/phases.js';
import { METRICS, summarizeHistogram, type EncodedHistograms, type LatencySummaryMs, type MetricName } from './histograms.js';

export interface StrategyResult {
  strategy: string;
  description: string;
  objectSizeBytes: number;
  wallMs: number;
  throughputMiBps: number;
  requests: number;
  failedRequests: number;
  bytes: number;
  reusedSockets: number;
  retries: number;
  throttled: number;
  backoffMs: number;
  /** Share of summed request time spent in each phase (0..1). */
  phaseShare: Partial<Record<Phase, number>>;
  latencyMs: Partial<Record<MetricName, LatencySummaryMs>>;
  verified: boolean;
  verification: string;
  workers: { index: number; requests: number; cpuUserMs: number; cpuSystemMs: number; peakRssBytes: number; eventLoopDelayP99Ms: number; cpuBound: boolean }[];
  /** Operations per second over the duration (uploads of many small blobs). */
  opsPerSecond: number;
  records: OpRecord[];
  /** Merged worker histograms, encoded: what the results file keeps for percentiles. */
  histograms: EncodedHistograms;
  phaseSumsMs: Partial<Record<Phase, number>>;
  requestSumMs: number;
  /** Which repetition this was; warm-up runs are kept but never counted. */
  run: number;
  warmup: boolean;
  error?: string;
}

export function summarizeRun(strategy: { name: string; description: string }, size: number, run: MergedRun): Omit<StrategyResult, 'verified' | 'verification'> {
  const ok = run.records.filter((r) => !r.error);
  const totalSum = ok.reduce((s, r) => s + r.totalMs, 0);
  const phaseShare: Partial<Record<Phase, number>> = {};
  const phaseSumsMs: Partial<Record<Phase, number>> = {};
  for (const p of PHASES) {
    const sum = ok.reduce((s, r) => s + (r.phases[p] ?? 0), 0);
    if (ok.some((r) => r.phases[p] !== undefined)) {
      phaseSumsMs[p] = sum;
      phaseShare[p] = totalSum > 0 ? sum / totalSum : 0;
    }
  }
  const latencyMs: Partial<Record<MetricName, LatencySummaryMs>> = {};
  for (const m of METRICS) {
    const h = run.histograms.byMetric.get(m);
    if (h && h.totalCount > 0) latencyMs[m] = summarizeHistogram(h);
  }
  const bytes = run.records.reduce((s, r) => s + r.bytes, 0);
  return {
    strategy: strategy.name,
    description: strategy.description,
    objectSizeBytes: size,
    wallMs: run.wallMs,
    throughputMiBps: run.wallMs > 0 ? bytes / 1024 / 1024 / (run.wallMs / 1000) : 0,
    requests: run.records.length,
    failedRequests: run.records.length - ok.length,
    bytes,
    reusedSockets: run.records.filter((r) => r.reused).length,
    retries: run.records.reduce((s, r) => s + r.retries, 0),
    throttled: run.records.reduce((s, r) => s + r.throttled, 0),
    backoffMs: run.records.reduce((s, r) => s + r.backoffMs, 0),
    phaseShare,
    latencyMs,
    workers: run.workers.map((w) => {
      const active = w.endEpochMs - w.startEpochMs;
      const cpuMs = w.cpuUserMs + w.cpuSystemMs;
      return {
        index: w.workerIndex, requests: w.records.length, cpuUserMs: w.cpuUserMs, cpuSystemMs: w.cpuSystemMs,
        peakRssBytes: w.peakRssBytes, eventLoopDelayP99Ms: w.eventLoopDelayP99Ms,
        // A worker that spent >= 90% of its active time on CPU could not have gone faster with more sockets.
        cpuBound: active > 50 && cpuMs / active >= 0.9,
      };
    }),
    opsPerSecond: run.wallMs > 0 ? run.records.length / (run.wallMs / 1000) : 0,
    histograms: run.histograms.encode(),
    phaseSumsMs,
    requestSumMs: totalSum,
    run: 0,
    warmup: false,
    records: run.records,
  };
}

export function emptyResult(strategy: { name: string; description: string }, size: number): Omit<StrategyResult, 'verified' | 'verification'> {
  return {
    strategy: strategy.name, description: strategy.description, objectSizeBytes: size, wallMs: 0, throughputMiBps: 0,
    requests: 0, failedRequests: 0, bytes: 0, reusedSockets: 0, retries: 0, throttled: 0, backoffMs: 0, phaseShare: {}, latencyMs: {}, workers: [], records: [], opsPerSecond: 0,
    histograms: {}, phaseSumsMs: {}, requestSumMs: 0, run: 0, warmup: false,
  };
}

