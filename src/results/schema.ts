// The results file: versioned JSON holding everything reports need, so that reports can be re-run,
// compared and merged without re-running the benchmark.
import type { EncodedHistograms } from '../metrics/histograms.js';
import { PHASES, type Phase } from '../transport/phases.js';

export const RESULTS_SCHEMA = 'blob-cacher/results';
export const RESULTS_SCHEMA_VERSION = 1;
/** Raw records kept per strategy run; more are sampled evenly, and the file says so. */
export const MAX_RECORDS_PER_RUN = 20_000;

export const RECORD_COLUMNS = [
  'worker', 'item', 'offsetBytes', 'bytes', 'status', 'startEpochMs', 'totalMs',
  ...PHASES, 'reused', 'retries', 'throttled', 'backoffMs', 'error',
] as const;
/** One record as a row of RECORD_COLUMNS; absent phases are null. */
export type RecordRow = (number | string | boolean | null)[];

export interface WorkerEvidence {
  index: number;
  requests: number;
  cpuUserMs: number;
  cpuSystemMs: number;
  peakRssBytes: number;
  eventLoopDelayP99Ms: number;
  cpuBound: boolean;
}

/** One strategy, one run: what a report needs, nothing derived that cannot be recomputed. */
export interface StrategyRun {
  strategy: string;
  /** Sweeps: the grid cell this run belongs to, e.g. {"--processes":"2","--max-sockets":"8"}. */
  cell?: Record<string, string>;
  description: string;
  run: number;
  warmup: boolean;
  objectSizeBytes: number;
  wallMs: number;
  bytes: number;
  requests: number;
  failedRequests: number;
  reusedSockets: number;
  /** Tries after the first, answers that throttled (503/429), and time slept in backoff. */
  retries: number;
  throttled: number;
  backoffMs: number;
  /** Summed phase durations over successful requests, and their summed totals. */
  phaseSumsMs: Partial<Record<Phase, number>>;
  requestSumMs: number;
  histograms: EncodedHistograms;
  verified: boolean;
  verification: string;
  error?: string;
  workers: WorkerEvidence[];
  records: RecordRow[];
  recordsSampled: boolean;
}

export interface ResultsFile {
  schema: typeof RESULTS_SCHEMA;
  schemaVersion: number;
  command: 'download' | 'upload';
  createdAt: string;
  /** False while a run is going on or when it stopped early: what is here was measured. */
  complete: boolean;
  config: Record<string, unknown>;
  environment: {
    node: string;
    os: string;
    arch: string;
    cpus: number;
    cpuModel: string;
    totalMemoryBytes: number;
    targetKind: string;
    target: string;
    packageVersion: string;
  };
  strategies: StrategyRun[];
}
