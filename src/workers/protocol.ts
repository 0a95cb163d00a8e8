// Messages between the coordinator and its worker processes (IPC, structured clone of JSON).
import type { EncodedHistograms } from '../metrics/histograms.js';
import type { TrainOptions } from '../config/train-options.js';
import type { ObjectTotals } from '../metrics/objects.js';
import type { Arrival, LogLevel } from '../vocabulary/choices.js';
import type { KindJob } from '../kinds/job.js';
import type { EncodedItems } from '../plan/items.js';
import type { Workload } from '../plan/workload.js';
import type { Tally, TallyKind } from '../metrics/record-checks.js';
import type { Bearer } from '../storage/entra.js';
import type { EncodedRecords } from '../metrics/record-table.js';
import type { SteadyTotals } from '../metrics/totals.js';
import type { TrainEpoch } from '../results/schema.js';

export type { OpRecord } from '../metrics/records.js';
export type { SteadyTotals } from '../metrics/totals.js';

/** Finished items so far: counts for a live display, not measurements. */
export interface Progress {
  ops: number;
  bytes: number;
  errors: number;
  retries: number;
}

/** A job as the coordinator sends it: the kind's own settings, and how the worker runs its share. */
export interface WorkerJob extends KindJob {
  /** The request kind (kinds/index.ts) every item of the job is. */
  kind: string;
  /** Its share of the plan: an array, or a file set as its few numbers (decodeItems). */
  items: EncodedItems;
  logLevel: LogLevel;
  /** Items in flight at once; unset means all at once, queued by the agent's socket cap. */
  inFlight?: number;
  /**
   * Many files (more than a results file keeps): the worker checks its share itself (a tally), counts
   * its totals and span, and sends every failed record but only `keepRecords` of the others, evenly
   * spaced, instead of all of them (110 bytes a request, held again by the coordinator). Not for
   * steady runs.
   */
  summary?: { check: TallyKind; keepRecords: number };
  /**
   * `per-item` (many files): each item is an object of its own, its completion recorded by the worker
   * (metrics/objects.ts). `whole-object` (one object split into the plan's requests, with nothing
   * after the workers, no commit): a worker whose share is the whole plan records its completion
   * itself, as the coordinator would from the merged records; the pool drops it where the plan is
   * shared among workers.
   */
  completions?: Workload['completions'];
  /**
   * warm: MAX_SOCKETS connections opened before the barrier; cold (default): every run connects as it goes.
   */
  connections?: 'cold' | 'warm';
  /**
   * Steady state (--duration): the items again and again until this long after the release, counted per
   * interval.
   */
  steady?: SteadyJob;
  /** --rate: an open loop at this rate over every worker, each sending its share on a schedule. */
  openLoop?: OpenLoopJob;
  /** `train`: epochs of shuffled batches, each held by a simulated accelerator (workers/train.ts). */
  train?: TrainJob;
}

/** A training job's settings, as config/train.ts resolved them (the pass mark rides along to the record). */
export type TrainJob = TrainOptions;

export type { TrainEpoch } from '../results/schema.js';

export interface TrainWorkerResult {
  epochs: TrainEpoch[];
  batches: number;
  /** The accelerator's wait for each batch, in µs, encoded. */
  waitUs: string;
  /** Every read of every epoch (the records keep each sample's last). */
  totals: SteadyTotals;
  /** The first epoch's start and the last one's end: the accelerator's span. */
  startEpochMs: number;
  endEpochMs: number;
}

export interface OpenLoopJob {
  /** Sends per second over every worker; each worker sends ratePerSecond / workers. */
  ratePerSecond: number;
  arrival: Arrival;
  /** Requests in flight at once over every worker (each worker takes its share, rounded up). */
  maxInFlight: number;
  /** A scale-out client's place among the clients, whose schedules interleave into one. */
  client?: { index: number; count: number };
}

/** One worker's open loop: slots offered, sent and skipped, and its latencies as encoded histograms (µs). */
export interface OpenLoopWorkerResult {
  offered: number;
  sent: number;
  skipped: number;
  succeeded: number;
  /** Since the release: the last slot's intended start, and the last answer's end. */
  lastOfferedMs: number;
  lastEndMs: number;
  /** From the intended start; from the actual send; send time minus intended start. */
  fromIntended: string;
  fromSend: string;
  lateness: string;
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
  /**
   * Its requests' histograms. Absent where the records are every request of a small job
   * (`sendsRecordsAlone`): the coordinator, which has the histogram code loaded by then, makes them.
   */
  histograms?: EncodedHistograms;
  startEpochMs: number;
  endEpochMs: number;
  cpuUserMs: number;
  cpuSystemMs: number;
  peakRssBytes: number;
  /** Event-loop delay p99 during the timed section: high means the worker was CPU-bound. */
  eventLoopDelayP99Ms: number;
  /**
   * Requests that failed or never went because of a stop: the run was cut short, not failed by the target.
   */
  stopped: number;
  /** Time spent after the timed section checking what was moved (read-backs, hashing ranges). */
  verifyMs?: number;
  /** --connections warm: sockets open and idle when the barrier released it. */
  warmSockets?: number;
  /**
   * Items of its share whose bytes it compared with the fixture it regenerated from the seed, byte
   * for byte, and found equal: they carry no MD5 (an item that differed carries the MD5 of what came).
   */
  equalToFixture?: number[];
  steady?: SteadyWorkerResult;
  openLoop?: OpenLoopWorkerResult;
  train?: TrainWorkerResult;
  /**
   * With `completions` (not steady): its items' completions, summed (their distribution is
   * the `object` histogram).
   */
  objects?: ObjectTotals;
  /**
   * When the job asked for a summary: `records` are a sample (and every failure); these are of all of them.
   */
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
  | { type: 'job'; job: WorkerJob }
  | { type: 'go'; epochMs: number }
  | { type: 'finish' }
  | { type: 'verify' }
  | { type: 'stop' }
  /** A renewed Entra ID token for the run in progress: requests from now on carry it. */
  | { type: 'token'; bearer: Bearer };
export type FromWorker =
  | { type: 'ready' }
  /**
   * `latency`: an encoded histogram (µs) of the requests that succeeded since the last progress,
   * where the worker makes histograms; the coordinator adds every worker's into live percentiles.
   */
  | ({ type: 'progress'; latency?: string } & Progress)
  /**
   * A steady run's interval `index` (since the release) as it closed in this worker: what ended in
   * it. Sent once per interval, just after its end, so --autoterm compares whole intervals.
   */
  | { type: 'interval'; index: number; ops: number; bytes: number }
  /** Sent the moment a worker's last item ends, before it hashes and packs its results. */
  | { type: 'finished'; failedItems: number }
  /**
   * The answer to a stop, sent at once: only the first `sentBefore` items of its share can have
   * reached the server (items go out in order, at most a socket cap at a time).
   */
  | { type: 'stopping'; sentBefore: number }
  | { type: 'done'; result: WorkerResult }
  | { type: 'failed'; message: string };
