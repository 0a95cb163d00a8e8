// The results file: versioned JSON holding everything reports need, so that reports can be re-run,
// compared and merged without re-running the benchmark. One RunRecord per measured run.
import type { EncodedHistograms } from '../metrics/histograms.js';
import { PHASES, type Phase } from '../transport/phases.js';
import type { CheckpointRecord } from './checkpoint.js';

export const RESULTS_SCHEMA = 'blob-cacher/results';
/**
 * 2: one `runs` list of RunRecords (was `strategies`), worker evidence without stored verdicts. 3: a run's
 * `unit` and the environment's TCP settings, endpoint and cloud VM (all optional: version 2 still reads).
 */
export const RESULTS_SCHEMA_VERSION = 3;
/** The oldest version this reader takes: 2 has the same fields less the optional ones of 3. */
export const OLDEST_RESULTS_SCHEMA_VERSION = 2;
/** Raw records kept per run; more are sampled evenly, and the file says so. */
export const MAX_RECORDS_PER_RUN = 20_000;

export const RECORD_COLUMNS = [
  /** Null in both for the coordinator's own request (Put Block List); -1 in files written before. */
  'worker',
  'item',
  'offsetBytes',
  'bytes',
  'status',
  'startEpochMs',
  'totalMs',
  ...PHASES,
  'reused',
  'retries',
  'throttled',
  'backoffMs',
  'error',
  /**
   * --hedge: null, or which of a hedged item's two requests won ('first', 'hedge'); absent in files before
   * it.
   */
  'hedge',
] as const;
/** One request as a row of RECORD_COLUMNS; absent phases are null. */
export type RecordRow = (number | string | boolean | null)[];

/** What one worker process measured about itself during a run's timed section. */
export interface WorkerEvidence {
  index: number;
  requests: number;
  /** From its release on the barrier to its last request's end. */
  activeMs: number;
  cpuUserMs: number;
  cpuSystemMs: number;
  peakRssBytes: number;
  eventLoopDelayP99Ms: number;
}

/**
 * One interval of a steady run over all workers: `[i * intervalMs, (i + 1) * intervalMs)` since the release.
 */
export interface IntervalPoint {
  /**
   * Requests that ended in it, their bytes, those that failed, their retries and throttled answers (429/503).
   */
  ops: number;
  bytes: number;
  errors: number;
  retries: number;
  throttled: number;
  /** Latency of the requests that succeeded in it; absent when none did. */
  p50Ms?: number;
  p99Ms?: number;
}

/**
 * One worker in a steady run, in ms since the release: its first request, when it stopped issuing, its last
 * end.
 */
export interface SteadyWorkerTimes {
  firstStartMs: number;
  stoppedMs: number;
  lastEndMs: number;
}

/** A steady run (--duration): the items again and again for a time, counted per interval. */
export interface SteadyRecord {
  /** The release (every time here is in ms since it), epoch ms on this machine's clock. */
  releaseEpochMs: number;
  durationMs: number;
  intervalMs: number;
  /** One pass over the items: what a run without --duration moves. */
  lapBytes: number;
  lapRequests: number;
  /** Complete passes every worker made. */
  laps: number;
  workers: SteadyWorkerTimes[];
  series: IntervalPoint[];
  /**
   * --autoterm ended it this long after the release: the rate had been stable for `windowMs` within
   * ±`tolerance`.
   */
  autoterm?: { atMs: number; windowMs: number; tolerance: number };
}

/**
 * An open-loop run (--rate): slots the schedule offered, sends that went and slots skipped because
 * --max-in-flight was reached, requests that succeeded; times in ms since the release; encoded HDR
 * histograms (µs) of latency from the intended start, from the actual send, and of the send's
 * lateness (send time minus intended start).
 */
export interface OpenLoopRecord {
  ratePerSecond: number;
  arrival: 'uniform' | 'poisson';
  maxInFlight: number;
  offered: number;
  sent: number;
  skipped: number;
  succeeded: number;
  lastOfferedMs: number;
  lastEndMs: number;
  histograms: { fromIntended: string; fromSend: string; lateness: string };
}

/** A sweep cell: the swept options and their values, e.g. {"--processes":"2","--max-sockets":"8"}. */
export type Cell = Readonly<Record<string, string>>;

/** The transfer settings a run was measured with: what advice is drawn from. */
export interface RunParams {
  processes: number;
  maxSockets: number;
  concurrency: number;
  /** Downloads with --range-size, uploads: the range or block size. */
  blockSizeBytes?: number;
  /** Uploads: the single-shot threshold. */
  thresholdBytes?: number;
  /** Many-blob downloads (small-files, list, head): the set's files and each one's size. */
  fileCount?: number;
  fileSizeBytes?: number;
  /**
   * Drawn file sizes (--file-size as a distribution): the seed, the smallest file drawn, and the
   * upper edges of the size buckets a report groups requests by.
   */
  fileSizeSeed?: number;
  fileSizeMinBytes?: number;
  sizeBucketsBytes?: number[];
  /** Listings: names per List Blobs page. */
  pageSize?: number;
  /**
   * --mix: the weights of get, put, head, list and delete (plan/mix.ts MIX_OPS order) and the seed
   * that drew each request's operation from them, by its item index.
   */
  mixWeights?: number[];
  mixSeed?: number;
}

/** What a workload's rate is counted in: bytes moved, or requests (listings, HEADs, many small files). */
export type Unit = 'MiB/s' | 'ops/s';
export const UNITS: readonly Unit[] = ['MiB/s', 'ops/s'];

/** One contender (a strategy, in a sweep cell), one run: measured facts only, nothing derived. */
export interface RunRecord {
  strategy: string;
  cell?: Cell;
  params?: RunParams;
  description: string;
  /** What the workload is counted in, from its request kind; absent in files before schema 3. */
  unit?: Unit;
  /** Which repetition this was; warm-up runs are kept but never counted. */
  run: number;
  warmup: boolean;
  objectSizeBytes: number;
  /** First request's start to last response's end, over every process (and a commit after them). */
  wallMs: number;
  /**
   * Wall time outside the timed span, so the user sees where a run's time went: setup (plan, fork,
   * payloads, up to the barrier), collect (last answer to merged results), verify, cleanup.
   */
  untimedMs?: { setup: number; collect: number; verify: number; cleanup: number };
  /** --connections warm: the sockets every worker had open and idle at the release, summed. */
  warmSockets?: number;
  /**
   * The same span on the server's clock (first data request's arrival to last data response's end), where it
   * was read.
   */
  serverSpanMs?: number;
  bytes: number;
  requests: number;
  failedRequests: number;
  reusedSockets: number;
  /** Tries after the first, answers that throttled (503/429), and time slept in backoff. */
  retries: number;
  throttled: number;
  /** Throttled answers by the limit their body named (absent where none came, and in files before it). */
  throttledBy?: Partial<Record<ThrottleClass, number>>;
  /** Tries that met a reset, timeout or other fault, by kind (absent where none did, and in older files). */
  faults?: FaultCounts;
  backoffMs: number;
  /** Summed phase durations over successful requests, and their summed totals. */
  phaseSumsMs: Partial<Record<Phase, number>>;
  requestSumMs: number;
  /** Merged HDR histograms of every phase (integer µs), encoded. */
  histograms: EncodedHistograms;
  /** True only when every byte was compared with something the target vouched for. */
  verified: boolean;
  verification: string;
  /**
   * Nothing failed, but nothing could be compared either (a plain URL): why. Such a run is "not verified",
   * not failed.
   */
  notVerified?: string;
  error?: string;
  workers: WorkerEvidence[];
  /**
   * Steady runs (--duration): `bytes`, `requests` and the rest count every lap; `records` keep each item's
   * last request.
   */
  steady?: SteadyRecord;
  /** --rate: the open loop's schedule and what came of it (absent in closed-loop runs and older files). */
  openLoop?: OpenLoopRecord;
  /** `train`: what the simulated accelerators did; `bytes` and `requests` count every epoch's reads. */
  train?: TrainRecord;
  records: RecordRow[];
  recordsSampled: boolean;
  /**
   * Whole-object completion (its distribution is `histograms.object`): objects that completed, their
   * summed completion times, and the summed time each one's slowest part ran on alone. Absent in
   * steady runs and in files before it was measured.
   */
  objects?: { objects: number; completionMsSum: number; stragglerMsSum: number };
  /** --hedge ran: duplicates issued (extra requests, billed), won by the duplicate, and the losers' bytes. */
  hedge?: HedgeCounts;
  /** `checkpoint`: each rank's write and read-back of its shard (absent in every other run). */
  checkpoint?: CheckpointRecord;
}

/** One epoch of a training run, summed over the accelerators (one per worker). */
export interface TrainEpoch {
  computeMs: number;
  /** Each accelerator's epoch, start to its last batch's end, summed. */
  wallMs: number;
  samples: number;
  bytes: number;
  batches: number;
}

/** A training run: its settings and what its accelerators did. */
export interface TrainRecord {
  epochs: TrainEpoch[];
  batchSize: number;
  computeMs: number;
  prefetch: number;
  /** Accelerators (workers) that ran. */
  accelerators: number;
  /** Each batch's wait for its samples, in µs, encoded (HDR). */
  waitUs: string;
  /** The utilisation the run must keep (MLPerf Storage's AU), as a fraction. */
  passMark: number;
  preset?: string;
}

export interface HedgeCounts {
  issued: number;
  won: number;
  extraBytes: number;
}

/** Failed: a check failed or the run did not complete; a run that is only "not verified" has not failed. */
export const runFailed = (r: Pick<RunRecord, 'verified' | 'notVerified' | 'error'>): boolean =>
  !r.verified && (r.notVerified === undefined || r.error !== undefined);

/** What a results file measured: downloads or uploads (the CLI's commands are cli/commands.ts). */
export type CommandName = 'download' | 'upload';

export interface Environment {
  node: string;
  os: string;
  arch: string;
  cpus: number;
  cpuModel: string;
  totalMemoryBytes: number;
  targetKind: string;
  target: string;
  packageVersion: string;
  /**
   * Since schema 3, where known: the Azure SDK's version, kernel TCP settings, the endpoint, the cloud VM.
   */
  sdkVersion?: string;
  tcp?: TcpSettings;
  endpoint?: EndpointFacts;
  cloud?: CloudFacts;
  /** Where a container's cgroup limits the process below the host (whose cpus and memory are above). */
  container?: ContainerLimits;
}

/** A container's CPU quota (in cores) and memory limit, each where one is set. */
export interface ContainerLimits {
  cpuQuota?: number;
  memoryLimitBytes?: number;
}

/** Linux's /proc/sys/net/ipv4: what bounds one socket's window, and the congestion control. */
export interface TcpSettings {
  congestionControl?: string;
  rmemMaxBytes?: number;
  wmemMaxBytes?: number;
}

/** The target's host as resolved from here, and one TCP connect to it. */
export interface EndpointFacts {
  host: string;
  addresses: string[];
  connectMs?: number;
}

/** From the Azure instance metadata service, when the client ran on an Azure VM. */
export interface CloudFacts {
  provider: 'azure';
  vmSize?: string;
  location?: string;
}

export interface ResultsFile {
  schema: typeof RESULTS_SCHEMA;
  schemaVersion: number;
  command: CommandName;
  createdAt: string;
  /** False while a run is going on or when it stopped early: what is here was measured. */
  complete: boolean;
  /**
   * Set when the run was stopped (a signal's name, or 'deadline'): what stopped it, and that `runs` holds
   * what finished.
   */
  interrupted?: string;
  config: Record<string, unknown>;
  environment: Environment;
  /** Sweeps: the swept options, in order, each with its values. */
  sweep?: SweepAxis[];
  /** A tune: the axes it searched, the cells in the order it measured them, and where it ended. */
  tune?: TuneRecord;
  /** --slo: the latency an open loop's rate must keep (a --rate sweep's knee is the highest that does). */
  slo?: Slo;
  runs: RunRecord[];
}

/** --slo p99<200ms: a percentile of latency from the intended start, and the bound it must stay under. */
export interface Slo {
  percentile: SloPercentile;
  boundMs: number;
}
export const SLO_PERCENTILES = [50, 90, 99, 99.9] as const;
export type SloPercentile = (typeof SLO_PERCENTILES)[number];

/** Why a throttled answer came: Azure's account limits, told apart by the body's words. */
export type { ThrottleClass } from '../transport/answer.js';
import type { FaultCounts, ThrottleClass } from '../transport/answer.js';

/** One cell a tune measured, in order; its runs are the ones whose `cell` equals it. */
export interface TuneStep {
  cell: Cell;
  reason: 'start' | 'grow' | 'refine';
  /** The axis (or two joined by +) the step moved along. */
  axis?: string;
  /** Time its runs took, warm-ups included: what the budget counted. */
  spentMs: number;
  /** Answers 429/503 in its measured runs, and the class most of them were. */
  throttled: number;
  throttleClass?: ThrottleClass;
}

export interface TuneRecord {
  direction: 'download' | 'upload';
  /**
   * The command a tune searched where it is not its direction's own (`tune checkpoint`, an upload;
   * `tune train`, a download).
   */
  command?: 'checkpoint' | 'train';
  axes: { flag: string; values: string[]; ordered: boolean }[];
  budgetMs: number;
  /** The settings kept as given (not searched) that a deployment needs beside the best cell's. */
  fixed?: Cell;
  stopped: 'converged' | 'budget' | 'signal' | 'deadline';
  path: TuneStep[];
  /**
   * The cell the search ended on (never a throttled one while an unthrottled one was measured);
   * absent where no cell was measured.
   */
  best?: Cell;
  /** Where throttling began on each axis that met it. */
  throttling: { axis: string; value: string; throttleClass: ThrottleClass }[];
}

export interface SweepAxis {
  flag: string;
  values: string[];
}
