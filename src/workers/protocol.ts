// Messages between the coordinator and its worker processes (IPC, structured clone of JSON).
import type { EncodedHistograms } from '../metrics/histograms.js';
import type { LogLevel, SinkKind } from '../config/options.js';
import type { WorkItem } from '../strategies/strategy.js';
import type { TargetInfo } from '../storage/target.js';
import type { OpRecord } from '../metrics/records.js';

export type { OpRecord } from '../metrics/records.js';

/** Finished items so far: counts for a live display, not measurements. */
export interface Progress {
  ops: number;
  bytes: number;
  errors: number;
  retries: number;
}

export interface WorkerJob {
  workerIndex: number;
  strategy: string;
  executor: 'http' | 'sdk' | 'list' | 'sdk-list' | 'head' | 'sdk-head' | 'put' | 'sdk-upload' | 'sdk-small-files';
  target: TargetInfo;
  items: WorkItem[];
  objectSizeBytes: number;
  concurrency: number;
  maxSockets: number;
  sink: SinkKind;
  outPath?: string;
  bufferSizeBytes: number;
  /** GETs through our raw client (default) or node:http. */
  httpClient?: 'raw' | 'node';
  /** Downloads: hash what each range delivered (false where there is nothing to compare it with). */
  hashRanges?: boolean;
  logLevel: LogLevel;
  /** Uploads: block size and single-shot threshold, for the SDK baseline. */
  blockSizeBytes?: number;
  thresholdBytes?: number;
  /** Items in flight at once; unset means all at once, queued by the agent's socket cap. */
  inFlight?: number;
  maxRetries: number;
  /** Per-phase tracing; off measures totals only. */
  trace?: boolean;
  /** Per try: the socket may be idle at most this long (a stalled body counts). */
  timeoutMs: number;
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
  /** Event-loop delay p99 during the timed section: high means the worker was CPU-bound. */
  eventLoopDelayP99Ms: number;
}

export type ToWorker = { type: 'job'; job: WorkerJob } | { type: 'go' } | { type: 'stop' };
export type FromWorker =
  | { type: 'ready' }
  | { type: 'progress' } & Progress
  /** Sent the moment a worker's last item ends, before it hashes and packs its results. */
  | { type: 'finished'; failedItems: number }
  /**
   * The answer to a stop, sent at once: only the first `sentBefore` items of its share can have
   * reached the server (items go out in order, at most a socket cap at a time).
   */
  | { type: 'stopping'; sentBefore: number }
  | { type: 'done'; result: WorkerResult }
  | { type: 'failed'; message: string };
