// Messages between the coordinator and its worker processes (IPC, structured clone of JSON).
import type { EncodedHistograms } from '../aggregate/histograms.js';
import type { LogLevel, SinkKind } from '../config/options.js';
import type { WorkItem } from '../strategies/strategy.js';
import type { TargetInfo } from '../target/target.js';
import type { PhaseDurationsMs } from '../transport/phases.js';

export interface WorkerJob {
  workerIndex: number;
  strategy: string;
  executor: 'http' | 'sdk';
  target: TargetInfo;
  items: WorkItem[];
  objectSizeBytes: number;
  concurrency: number;
  maxSockets: number;
  sink: SinkKind;
  outPath?: string;
  bufferSizeBytes: number;
  logLevel: LogLevel;
}

/** One request, as measured. Durations in ms; the start in epoch ms (timeOrigin + now). */
export interface OpRecord {
  worker: number;
  item: number;
  blob?: string;
  offsetBytes: number;
  bytes: number;
  status: number;
  startEpochMs: number;
  totalMs: number;
  phases: PhaseDurationsMs;
  reused: boolean;
  retries: number;
  md5?: string;
  error?: string;
}

export interface WorkerResult {
  workerIndex: number;
  records: OpRecord[];
  histograms: EncodedHistograms;
  startEpochMs: number;
  endEpochMs: number;
  cpuUserMs: number;
  cpuSystemMs: number;
  peakRssBytes: number;
  /** MD5 of the whole object when this worker saw all of it in order (single process). */
  wholeMd5?: string;
}

export type ToWorker = { type: 'job'; job: WorkerJob } | { type: 'go' };
export type FromWorker =
  | { type: 'ready' }
  | { type: 'done'; result: WorkerResult }
  | { type: 'failed'; message: string };
