// What a kind reads of its job: the settings every request takes, and the options each kind
// declares for itself (which kind reads which is said at each). The job crosses IPC as plain data.
import type { HttpClientName } from '../vocabulary/choices.js';
import type { HedgeJob } from '../hedge/policy.js';
import type { MixDraw } from '../plan/mix.js';
import type { SinkOptions } from '../sinks/sinks.js';
import type { TargetInfo } from '../storage/target.js';

export type { HedgeJob, SinkOptions };

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

/** get: --hedge's settings, where it is on. */
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
