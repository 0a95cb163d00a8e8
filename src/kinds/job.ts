// What a kind reads of its job: the settings every request takes, and the options each kind
// declares for itself (which kind reads which is said at each). The job crosses IPC as plain data.
import type { HttpClientName, SinkKind } from '../config/choices.js';
import type { MixDraw } from '../plan/mix.js';
import type { TargetInfo } from '../storage/target.js';

/** Settings every kind's requests take. */
export interface RequestJob {
  workerIndex: number;
  /** How many worker processes share the plan (they check their shares at once); 1 where unset. */
  workers?: number;
  /** The contender's name: request labels in logs. */
  strategy: string;
  target: TargetInfo;
  /** The delivered object's size (a sink's extent). */
  objectSizeBytes: number;
  concurrency: number;
  maxSockets: number;
  bufferSizeBytes: number;
  /** Our raw client (default) or node:http. */
  httpClient?: HttpClientName;
  maxRetries: number;
  /** Per-phase tracing; off measures totals only. */
  trace?: boolean;
  /** Per try: the socket may be idle at most this long (a stalled body counts). */
  timeoutMs: number;
}

/**
 * get, sdk-get: where the bytes land and whether each range is hashed (false where nothing can be compared).
 */
export interface SinkOptions {
  sink: SinkKind;
  outPath?: string;
  hashRanges?: boolean;
  /**
   * The object is our fixture of this seed: with the memory sink, each range is compared with the
   * fixture's bytes, regenerated once per worker process, instead of hashed.
   */
  fixtureSeed?: string;
}

/** sdk-get, sdk-put: the SDK's block size and single-shot threshold, set as ours are. */
export interface SdkTransferOptions {
  blockSizeBytes?: number;
  thresholdBytes?: number;
}

/**
 * put: read every item back after the timed section, over this worker's sockets (a plain server says nothing
 * of what it stored).
 */
export interface PutOptions {
  readBack?: boolean;
}

/**
 * get: --hedge. A request with no first byte (`on` 'first-byte') or not finished ('finish') after
 * `afterMs`, or after the `percentile` of this worker's earlier requests' times, gets a duplicate:
 * to the next of `copies` when the object is read from copies, else to the same URL.
 */
export interface HedgeJob {
  afterMs?: number;
  percentile?: number;
  on: 'first-byte' | 'finish';
  copies?: readonly string[];
}

export interface HedgeOptions {
  hedge?: HedgeJob;
}

/** mix: each item's operation, drawn from these weights and seed by its index (plan/mix.ts). */
export type MixJob = MixDraw;

export interface MixOptions {
  mix?: MixJob;
}

/** A job as a kind sees it. */
export type KindJob = RequestJob & SinkOptions & SdkTransferOptions & PutOptions & HedgeOptions & MixOptions;
