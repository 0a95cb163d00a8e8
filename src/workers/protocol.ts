// Messages between the coordinator and its worker processes (IPC, structured clone of JSON).
import type { EncodedHistograms } from '../metrics/histograms.js';
import type { LogLevel, SinkKind } from '../config/choices.js';
import type { EncodedItems } from '../plan/items.js';
import type { Tally, TallyKind } from '../metrics/record-checks.js';
import type { TargetInfo } from '../storage/target.js';
import type { Bearer } from '../storage/entra.js';
import type { OpRecord } from '../metrics/records.js';
import type { EncodedRecords } from '../metrics/record-table.js';
import type { SteadyTotals } from '../metrics/totals.js';

export type { OpRecord } from '../metrics/records.js';
export type { SteadyTotals } from '../metrics/totals.js';

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
  /** Its share of the plan: an array, or a file set as its few numbers (decodeItems). */
  items: EncodedItems;
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
  /** Uploads to a plain server: read every item back after the timed section, over this worker's sockets, and record its MD5. */
  readBack?: boolean;
  /**
   * Many files (more than a results file keeps): the worker checks its share itself (a tally), counts
   * its totals and span, and sends every failed record but only `keepRecords` of the others, evenly
   * spaced, instead of all of them (110 bytes a request, held again by the coordinator). Not for
   * steady runs.
   */
  summary?: { check: TallyKind; keepRecords: number };
  /** warm: MAX_SOCKETS connections opened before the barrier; cold (default): every run connects as it goes. */
  connections?: 'cold' | 'warm';
  /** Steady state (--duration): the items again and again until this long after the release, counted per interval. */
  steady?: SteadyJob;
}

export interface SteadyJob {
  durationMs: number;
  intervalMs: number;
}

/** One interval of a steady run in one worker: what ended in it, and the latency of what succeeded. */
export interface IntervalCounts {
  ops: number;
  bytes: number;
  errors: number;
  retries: number;
  throttled: number;
  /** Encoded HDR histogram of total request time (µs); absent when nothing succeeded. */
  latency?: string;
}

export interface SteadyWorkerResult {
  /** First request's issue and last response's end, epoch ms. */
  firstStartEpochMs: number;
  lastEndEpochMs: number;
  /** When this worker stopped issuing new requests (its deadline or a 'finish'), epoch ms. */
  stoppedEpochMs: number;
  /** Complete passes over its items. */
  laps: number;
  totals: SteadyTotals;
  /** By interval since the release (`go`'s epoch): index i covers [i, i+1) intervals. */
  intervals: IntervalCounts[];
}

export interface WorkerResult {
  workerIndex: number;
  /** Its requests as columns (RecordTable.decode). */
  records: EncodedRecords;
  histograms: EncodedHistograms;
  startEpochMs: number;
  endEpochMs: number;
  cpuUserMs: number;
  cpuSystemMs: number;
  peakRssBytes: number;
  /** Event-loop delay p99 during the timed section: high means the worker was CPU-bound. */
  eventLoopDelayP99Ms: number;
  /** Time spent after the timed section checking what was moved (read-backs, hashing ranges). */
  verifyMs?: number;
  /** --connections warm: sockets open and idle when the barrier released it. */
  warmSockets?: number;
  steady?: SteadyWorkerResult;
  /** When the job asked for a summary: `records` are a sample (and every failure); these are of all of them. */
  summary?: WorkerSummaryOfRecords;
}

export interface WorkerSummaryOfRecords {
  requests: number;
  totals: SteadyTotals;
  /** The first request's start and the last response's end. */
  firstStartEpochMs: number;
  lastEndEpochMs: number;
  tally: Tally;
}

/**
 * `go`: the release, with its epoch (steady runs count intervals from it); `finish`: a steady run
 * ends now (--autoterm): nothing new is issued, what is in flight completes and counts; `verify`:
 * every worker has finished, so checking what was moved (hashing, read-backs) competes with no one's
 * timed requests.
 */
export type ToWorker =
  | { type: 'job'; job: WorkerJob } | { type: 'go'; epochMs: number } | { type: 'finish' } | { type: 'verify' } | { type: 'stop' }
  /** A renewed Entra ID token for the run in progress: requests from now on carry it. */
  | { type: 'token'; bearer: Bearer };
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
