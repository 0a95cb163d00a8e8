// Resolves options once, precedence flag > environment > .env > default, and validates them.
// Pure: the CLI (src/cli/sources.ts) reads the environment and the dotenv file and hands them in
// as strings; nothing here reads argv, process.env or a file.
import {
  DOWNLOAD_STRATEGIES,
  HEDGEABLE,
  selectStrategies,
  UPLOAD_STRATEGIES,
  workloadOf,
} from '../strategies/index.js';
import { redact } from '../log/logger.js';
import { isPlainUrl, resolveCredentials, type Credentials } from '../vocabulary/credentials.js';
import { ConfigError } from '../vocabulary/errors.js';
import { distributionMaxBytes, type SizeDistribution, type SizeDraw } from '../plan/size-draw.js';
import { resolveScaleout, type ScaleoutConfig } from './scaleout.js';
import { resolveOptions, type Sources } from './flags.js';
import { resolveMix } from './mix.js';
import type { MixDraw } from '../plan/mix.js';
import {
  DEFAULT_BLOB_SIZE_BYTES,
  DEFAULT_MAX_RUNS,
  DEFAULT_FILE_SIZE_BYTES,
  DOWNLOAD_OPTIONS,
  HEDGE_ON,
  type RUN_OPTIONS,
  type SCALEOUT_OPTIONS,
  UPLOAD_OPTIONS,
  type ConnectionMode,
  type DownloadMethod,
  type HedgeAfter,
  type HedgeOn,
  type HttpClientName,
  type LogLevel,
  type MetricsSink,
  type ReportFormat,
  type Resolved,
  type SinkKind,
  type UploadMethod,
} from './options.js';
import type { Arrival } from '../vocabulary/choices.js';
import type { Slo } from '../results/schema.js';

export type { Credentials } from '../vocabulary/credentials.js';
import type { Threshold } from './thresholds.js';
import type { TrainOptions } from './train-options.js';
// The flag and source layers live in flags.ts; the CLI and tests reach them here, as before.
export {
  buildProgram,
  dotenvFile,
  flagAttribute,
  givenText,
  parseFlags,
  resolveOptions,
  type Sources,
} from './flags.js';

/** Repetition and output, shared by the measuring commands. */
export interface RunOptions {
  trace: boolean;
  maxRetries: number;
  timeoutMs: number;
  /** The whole session at most this long; unset: no limit. */
  deadlineMs?: number;
  /** Without a terminal: a progress line this often. */
  progressIntervalMs?: number;
  /** After a stop, what cleanup may take, counted from the stop (unset: DEFAULT_STOP_GRACE_MS). */
  stopGraceMs?: number;
  runs: number;
  warmup: number;
  /** Keep running a contender until its measured runs add up to this much (0: exactly --runs). */
  minTimeMs?: number;
  /** With minTimeMs: at most this many measured runs of a contender. */
  maxRuns?: number;
  /**
   * With minTimeMs: stop a contender once its median's 95% interval is within this share of it (0.02); 0:
   * off.
   */
  precision?: number;
  resultsPath?: string;
  format: ReportFormat;
  /** One client of a scale-out run; unset on one machine. */
  scaleout?: ScaleoutConfig;
  /** warm: sockets opened before the barrier; cold: every run connects as it goes. */
  connections?: ConnectionMode;
  /** --duration: every run is a steady run of this length, counted per interval. */
  steady?: SteadyOptions;
  /** --threshold: pass/fail rules the report evaluates; one that fails sets the exit code. */
  thresholds?: Threshold[];
  /** --rate: every run is an open loop (a schedule of sends), not lanes that send as they free. */
  openLoop?: OpenLoopOptions;
  /** --slo: the latency the open loop's rate must keep. */
  slo?: Slo;
  /** `train`: every run is epochs of shuffled batches behind a simulated accelerator (config/train.ts). */
  train?: TrainOptions;
  /** --metrics: where live figures go while the session runs, every `metricsIntervalMs`. */
  metrics?: MetricsSink[];
  metricsToken?: string;
  /** --interval: a steady run's series and the live metrics' points. */
  metricsIntervalMs?: number;
}

export interface OpenLoopOptions {
  ratePerSecond: number;
  arrival: Arrival;
  /** Over all processes; unset: PROCESSES x MAX_SOCKETS. */
  maxInFlight?: number;
  /**
   * A scale-out client's place among the clients: `ratePerSecond` and `maxInFlight` are then its
   * share, and its schedule takes its own slots of the grid all the clients together send on.
   */
  client?: { index: number; count: number };
}

/** --rate and the options that only mean something beside it. */
function openLoopOptions(o: Resolved<typeof RUN_OPTIONS>): Pick<RunOptions, 'openLoop' | 'slo'> {
  if (o.ratePerSecond === undefined) {
    if (o.slo) {
      throw new ConfigError(
        "--slo is the latency an open loop's rate must keep; give --rate too (e.g. --rate 800/s --slo p99<200ms)",
      );
    }
    const alone =
      o.arrival !== undefined
        ? ['--arrival', 'poisson']
        : o.maxInFlight !== undefined
          ? ['--max-in-flight', '64']
          : [];
    const [flag, example] = alone;
    if (flag)
      throw new ConfigError(
        `${flag} shapes an open loop; give --rate too (e.g. --rate 800/s ${flag} ${example})`,
      );
    return {};
  }
  const maxInFlight = o.maxInFlight === undefined ? {} : { maxInFlight: o.maxInFlight };
  return {
    openLoop: { ratePerSecond: o.ratePerSecond, arrival: o.arrival ?? 'uniform', ...maxInFlight },
    ...(o.slo ? { slo: o.slo } : {}),
  };
}

export interface SteadyOptions {
  durationMs: number;
  intervalMs: number;
  autoterm?: { windowMs: number; tolerance: number };
}

const DEFAULT_RUNS = 5;
const DEFAULT_MIN_TIME_MS = 3_000;
/**
 * ±2%: finer than the differences a verdict states between strategies, reached in tens of runs at a 5%
 * spread.
 */
const DEFAULT_PRECISION = 0.02;

/**
 * When the runs past the first DEFAULT_RUNS end: the cap and the precision target. Both only end what
 * --min-time adds, so beside an exact --runs they are refused, as --min-time is.
 */
function untilTime(o: Resolved<typeof RUN_OPTIONS>): Pick<RunOptions, 'maxRuns' | 'precision'> {
  const given =
    o.maxRuns !== undefined ? '--max-runs' : o.precision !== undefined ? '--precision' : undefined;
  if (given && o.runs !== undefined)
    throw new ConfigError(
      `--runs ${o.runs} is exactly ${o.runs} run(s) and ${given} ends the runs --min-time adds; give one of them`,
    );
  const maxRuns = o.maxRuns ?? DEFAULT_MAX_RUNS;
  if (maxRuns < DEFAULT_RUNS)
    throw new ConfigError(
      `--max-runs ${maxRuns} is below the ${DEFAULT_RUNS} runs every strategy makes first; ` +
        `give --runs ${maxRuns} for exactly ${maxRuns}`,
    );
  return { maxRuns, precision: o.precision ?? DEFAULT_PRECISION };
}

/** What every run takes, however it is repeated. */
function commonRunOptions(o: Resolved<typeof RUN_OPTIONS>) {
  return {
    ...openLoopOptions(o),
    connections: o.connections,
    trace: o.trace,
    maxRetries: o.maxRetries,
    timeoutMs: o.timeoutMs,
    deadlineMs: o.deadlineMs,
    stopGraceMs: o.stopGraceMs,
    progressIntervalMs: o.progressIntervalMs,
    resultsPath: o.resultsPath,
    format: o.format,
    ...(o.metrics
      ? {
          metrics: o.metrics,
          metricsIntervalMs: o.intervalMs,
          ...(o.metricsToken ? { metricsToken: o.metricsToken } : {}),
        }
      : {}),
    // --threshold's rules travel with the config to the report, which evaluates them.
    ...(o.thresholds ? { thresholds: o.thresholds } : {}),
  };
}

export function runOptions(o: Resolved<typeof RUN_OPTIONS>): RunOptions {
  const base = commonRunOptions(o);
  return o.durationMs === undefined
    ? { ...base, ...repeatedRuns(o) }
    : { ...base, ...steadyRuns(o, o.durationMs) };
}

/** Without --duration: runs repeated, as hyperfine does, until a count and a time are reached. */
function repeatedRuns(o: Resolved<typeof RUN_OPTIONS>) {
  if (o.autoterm)
    throw new ConfigError(
      '--autoterm (BLOB_CACHER_AUTOTERM) ends a steady run early; ' +
        'give --duration too (e.g. --duration 60s --autoterm)',
    );
  // As hyperfine: by default at least 5 runs and 3 s of measured time; --runs given means exactly that
  // many, so a --min-time beside it could only be ignored or break that promise: the pair is refused.
  if (o.runs !== undefined && o.minTimeMs !== undefined && o.minTimeMs > 0) {
    throw new ConfigError(
      `--runs ${o.runs} is exactly ${o.runs} run(s) and --min-time runs until a time is reached; ` +
        `give one of them (--min-time alone runs at least ${DEFAULT_RUNS})`,
    );
  }
  return {
    runs: o.runs ?? DEFAULT_RUNS,
    minTimeMs: o.minTimeMs ?? (o.runs === undefined ? DEFAULT_MIN_TIME_MS : 0),
    warmup: o.warmup ?? 1,
    ...untilTime(o),
  };
}

/**
 * With --duration: a steady run is its own repetition, one run each unless --runs says more, its
 * ramp-up outside the active window.
 */
function steadyRuns(o: Resolved<typeof RUN_OPTIONS>, durationMs: number) {
  if (o.minTimeMs !== undefined)
    throw new ConfigError('--min-time and --duration both say how long to measure; give one of them');
  if (o.maxRuns !== undefined || o.precision !== undefined)
    throw new ConfigError(
      '--max-runs and --precision end the runs that --min-time adds; a --duration run has none: give --runs',
    );
  if (o.intervalMs * 2 > durationMs) {
    throw new ConfigError(
      `--interval ${o.intervalMs} ms leaves fewer than 2 intervals in --duration ${durationMs} ms; ` +
        'give a longer --duration or a shorter --interval',
    );
  }
  if (o.autoterm) checkAutoterm(o, durationMs);
  return {
    runs: o.runs ?? 1,
    minTimeMs: 0,
    warmup: o.warmup ?? 0,
    steady: {
      durationMs,
      intervalMs: o.intervalMs,
      ...(o.autoterm ? { autoterm: { windowMs: o.autotermWindowMs, tolerance: o.autotermTolerance } } : {}),
    },
  };
}

function checkAutoterm(o: Resolved<typeof RUN_OPTIONS>, durationMs: number): void {
  if (o.autotermWindowMs < 2 * o.intervalMs) {
    throw new ConfigError(
      '--autoterm-window must hold at least 2 intervals; ' +
        'give a longer --autoterm-window or a shorter --interval',
    );
  }
  // A window as long as the run is full only when the run ends: it could never end it early.
  if (o.autotermWindowMs >= durationMs) {
    throw new ConfigError(
      `--autoterm-window ${o.autotermWindowMs} ms is not shorter than --duration ${durationMs} ms, ` +
        'so it could never end the run early; give a shorter --autoterm-window (default 10s) ' +
        'or a longer --duration',
    );
  }
}

export interface DownloadConfig extends RunOptions {
  logLevel: LogLevel;
  sourceMethod: DownloadMethod;
  concurrency: number;
  /** The one blob's size; in the many-blob workloads, each file's (a distribution: the most it draws). */
  fileSizeBytes: number;
  /** Many-blob workloads: each file's size drawn from a distribution; absent for one fixed size. */
  fileSizes?: SizeDraw;
  /** Many-blob workloads: files in the fixture set, and names per List Blobs page. */
  fileCount: number;
  pageSize: number;
  processes: number;
  maxSockets: number;
  sink: SinkKind;
  outPath?: string;
  /** true: an existing outPath may be overwritten (checked by the CLI, which looks at the file system). */
  force?: boolean;
  bufferSizeBytes: number;
  /**
   * chunked/round-robin/sdk: ranges of this size with `concurrency` in flight; unset: `concurrency` equal
   * ranges.
   */
  rangeSizeBytes?: number;
  /** How GETs are made: our raw HTTP/1.1 client or node:http. */
  httpClient: HttpClientName;
  container: string;
  cleanup: boolean;
  credentials: Credentials;
  /** --hedge: a slow request gets a duplicate after this; `on`: what it must have had by then. */
  hedge?: HedgeConfig;
  /** --mix: operations drawn over the many-blob set (docs/mix.md). */
  mix?: MixDraw;
}

export interface HedgeConfig {
  after: HedgeAfter;
  on: HedgeOn;
}

export interface UploadConfig extends RunOptions {
  logLevel: LogLevel;
  uploadMethod: UploadMethod;
  fileCount: number;
  /** Each small file's size (with a distribution, the most it draws). */
  fileSizeBytes: number;
  /** Small files: each one's size drawn from a distribution; absent for one fixed size. */
  fileSizes?: SizeDraw;
  blobSizeBytes: number;
  blockSizeBytes: number;
  concurrency: number;
  thresholdBytes: number;
  processes: number;
  maxSockets: number;
  container: string;
  keep: boolean;
  httpClient: HttpClientName;
  /** 'url': a plain HTTP(S) server; files are PUT below the URL (small-files only). */
  credentials: Credentials;
  /** --mix: operations drawn over the many-blob set (docs/mix.md). */
  mix?: MixDraw;
}

/** A fixed --file-size is a number as it always was; a distribution is drawn with the seed. */
function fileSizes(
  d: SizeDistribution | undefined,
  seed: number,
  fallbackBytes: number,
): {
  fileSizeBytes: number;
  fileSizes?: SizeDraw;
} {
  if (d === undefined || d.kind === 'fixed') return { fileSizeBytes: d?.bytes ?? fallbackBytes };
  return { fileSizeBytes: distributionMaxBytes(d), fileSizes: { distribution: d, seed } };
}

function withScaleout(
  o: Resolved<typeof SCALEOUT_OPTIONS>,
  credentials: Credentials,
  openLoop: OpenLoopOptions | undefined,
): { scaleout?: ScaleoutConfig; openLoop?: OpenLoopOptions } {
  const scaleout = resolveScaleout(o, credentials);
  if (!scaleout) return {};
  return { scaleout, ...(openLoop ? { openLoop: clientShare(openLoop, scaleout.shard) } : {}) };
}

/**
 * --rate and --max-in-flight are the whole run's, over every scale-out client: each client offers
 * its share, so K clients together offer the rate asked for, not K times it.
 */
export function clientShare(
  openLoop: OpenLoopOptions,
  shard: { index: number; count: number },
): OpenLoopOptions {
  if (shard.count <= 1) return openLoop;
  const { maxInFlight } = openLoop;
  return {
    ...openLoop,
    ratePerSecond: openLoop.ratePerSecond / shard.count,
    ...(maxInFlight === undefined ? {} : { maxInFlight: Math.max(1, Math.ceil(maxInFlight / shard.count)) }),
    client: { index: shard.index, count: shard.count },
  };
}

/** What a plain URL can take: the strategies that say so, from the registry. */
const URL_METHODS: readonly DownloadMethod[] = [
  ...DOWNLOAD_STRATEGIES.filter((s) => s.urlCapable).map((s) => s.name),
  'all',
];

/** The contenders named can run on this target and measure one workload: many blobs or one, or a mix. */
function checkDownloadMethods(o: Resolved<typeof DOWNLOAD_OPTIONS>, credentials: Credentials) {
  const { sourceMethod } = o;
  const methods = sourceMethod.split(',');
  const noUrl = methods.filter((m) => !URL_METHODS.includes(m));
  if (isPlainUrl(credentials) && noUrl.length) {
    throw new ConfigError(
      `--source-method ${noUrl.join(',')} needs a blob target; with --url use ${URL_METHODS.join(', ')}`,
    );
  }
  // Contenders of one run measure the same thing: one object, or one many-blob workload.
  const kinds = new Set(
    DOWNLOAD_STRATEGIES.filter((s) => methods.includes(s.name)).map((s) => workloadOf(s).name),
  );
  if (kinds.size > 1) {
    throw new ConfigError(
      `--source-method ${sourceMethod} mixes workloads (${[...kinds].join(', ')}); run each on its own, ` +
        'e.g. small-files,sdk-small-files or list,sdk-list',
    );
  }
  const mix = resolveMix({
    weights: o.mix,
    seed: o.seed,
    direction: 'download',
    method: sourceMethod,
    plainUrl: isPlainUrl(credentials),
    fileCount: o.fileCount,
    repeats: o.durationMs !== undefined || o.ratePerSecond !== undefined,
    fileSink: o.sink === 'file' || o.sink === 'sparse-file',
    hedge: o.hedge !== undefined,
  });
  // A mix reads and writes the many-blob set, whatever --source-method names.
  const manyBlobs = mix !== undefined || (!kinds.has('blob') && sourceMethod !== 'all');
  if (!manyBlobs && o.fileSize !== undefined && o.fileSize.kind !== 'fixed') {
    throw new ConfigError(
      '--file-size as a distribution draws sizes of many files; ' +
        `--source-method ${sourceMethod} reads one object: give one size, ` +
        'or choose small-files, list or head',
    );
  }
  return { manyBlobs, mix };
}

/** The sink fits the workload, the processes and the contenders. */
function checkSink(o: Resolved<typeof DOWNLOAD_OPTIONS>, manyBlobs: boolean): void {
  const { sourceMethod, sink, outPath } = o;
  const toFile = sink === 'file' || sink === 'sparse-file';
  if (manyBlobs && toFile) {
    throw new ConfigError(
      `--source-method ${sourceMethod} reads many blobs, not one object: use --sink memory or discard`,
    );
  }
  if (sink === 'file' && o.processes > 1) {
    throw new ConfigError(
      '--sink file writes one sequential stream and needs --processes 1; ' +
        'use --sink sparse-file with several processes',
    );
  }
  if (outPath !== undefined && !toFile) {
    throw new ConfigError(
      `--out is only used by the file and sparse-file sinks; add --sink file or drop --out`,
    );
  }
  if (sink === 'file' && o.parallelism > 1) {
    throw new ConfigError(
      "--sink file writes one sequential stream, and a scale-out client's share is every K-th range; " +
        'use --sink sparse-file (or memory, discard)',
    );
  }
  // A contender that keeps its bytes itself (the SDK's buffer) leaves a file sink nothing to write.
  const writesNone = selectStrategies(sourceMethod, false).every((s) => !s.writesSink);
  if (writesNone && toFile) {
    throw new ConfigError(
      `--source-method ${sourceMethod} writes no file (the SDK baseline reads into memory); ` +
        `drop --sink ${sink}${outPath === undefined ? '' : ' and --out'}, or choose another --source-method`,
    );
  }
}

/** --hedge names only contenders that can hedge, and --hedge-on comes with it. */
function checkHedge(o: Resolved<typeof DOWNLOAD_OPTIONS>): void {
  const unhedged = o.sourceMethod.split(',').filter((m) => !(HEDGEABLE as readonly string[]).includes(m));
  if (o.hedgeOn !== undefined && !o.hedge) {
    throw new ConfigError(
      '--hedge-on says what a hedged request must have by the --hedge delay, and --hedge ' +
        'is not given; add --hedge (e.g. --hedge p90) or drop --hedge-on',
    );
  }
  if (o.hedge && unhedged.length) {
    throw new ConfigError(
      `--hedge duplicates slow GETs of ${HEDGEABLE.join(', ')}; --source-method ${unhedged.join(',')} ` +
        'cannot: name those contenders, or drop --hedge',
    );
  }
}

export function loadDownloadConfig(
  flags: Readonly<Record<string, unknown>>,
  sources: Sources,
): DownloadConfig {
  const o = resolveOptions(DOWNLOAD_OPTIONS, flags, sources);
  const credentials = resolveCredentials(o);
  const { sourceMethod, sink, outPath } = o;
  const { manyBlobs, mix } = checkDownloadMethods(o, credentials);
  checkSink(o, manyBlobs);
  if (o.cleanup && o.runId !== undefined) {
    throw new ConfigError(
      '--cleanup in a scale-out run (--run-id) would delete fixtures that other clients still read; ' +
        'drop it and delete them after collect',
    );
  }
  checkHedge(o);
  const run = runOptions(o);
  return {
    logLevel: o.logLevel,
    sourceMethod,
    concurrency: o.concurrency,
    ...fileSizes(o.fileSize, o.seed, manyBlobs ? DEFAULT_FILE_SIZE_BYTES : DEFAULT_BLOB_SIZE_BYTES),
    fileCount: o.fileCount,
    pageSize: o.pageSize,
    processes: o.processes,
    maxSockets: o.maxSockets,
    sink,
    outPath,
    force: o.force,
    bufferSizeBytes: o.bufferSizeBytes,
    httpClient: o.httpClient,
    rangeSizeBytes: o.rangeSizeBytes,
    container: o.container,
    cleanup: o.cleanup,
    credentials,
    ...(o.hedge ? { hedge: { after: o.hedge, on: o.hedgeOn ?? HEDGE_ON[0] } } : {}),
    ...(mix ? { mix } : {}),
    ...run,
    ...withScaleout(o, credentials, run.openLoop),
  };
}

/** The service's most blocks in one blob. */
export const MAX_BLOCKS = 50_000;
/** A plain server takes plain PUTs only: no blocks, no SDK. */
const URL_UPLOAD_METHODS: readonly UploadMethod[] = [
  ...UPLOAD_STRATEGIES.filter((s) => s.urlCapable).map((s) => s.name),
  'all',
];

export function loadUploadConfig(flags: Readonly<Record<string, unknown>>, sources: Sources): UploadConfig {
  const o = resolveOptions(UPLOAD_OPTIONS, flags, sources);
  const credentials = resolveCredentials(o);
  const { uploadMethod, blockSizeBytes, blobSizeBytes } = o;
  if (credentials.kind === 'anonymous') {
    throw new ConfigError(
      '--auth anonymous only reads (public access); ' +
        'uploads need --auth key, sas, connection-string or entra',
    );
  }
  if (isPlainUrl(credentials) && !URL_UPLOAD_METHODS.includes(uploadMethod)) {
    throw new ConfigError(
      `--upload-method ${uploadMethod} needs a blob service and --url is a plain server; ` +
        `with --url use ${URL_UPLOAD_METHODS.join(' or ')}, or drop --url`,
    );
  }
  const mix = resolveMix({
    weights: o.mix,
    seed: o.seed,
    direction: 'upload',
    method: uploadMethod,
    plainUrl: isPlainUrl(credentials),
    fileCount: o.fileCount,
    repeats: o.durationMs !== undefined || o.ratePerSecond !== undefined,
    fileSink: false,
    hedge: false,
  });
  if (Math.ceil(blobSizeBytes / blockSizeBytes) > MAX_BLOCKS) {
    throw new ConfigError(
      `--blob-size / --block-size makes more than ${MAX_BLOCKS} blocks; raise --block-size`,
    );
  }
  const run = runOptions(o);
  return {
    logLevel: o.logLevel,
    uploadMethod,
    fileCount: o.fileCount,
    ...fileSizes(o.fileSize, o.seed, DEFAULT_FILE_SIZE_BYTES),
    blobSizeBytes,
    blockSizeBytes,
    concurrency: o.concurrency,
    thresholdBytes: o.thresholdBytes,
    processes: o.processes,
    maxSockets: o.maxSockets,
    container: o.container,
    keep: o.keep,
    httpClient: o.httpClient,
    credentials,
    ...(mix ? { mix } : {}),
    ...run,
    ...withScaleout(o, credentials, run.openLoop),
  };
}

/** The configuration as it may be shown or written: secrets replaced. */
export function redactedConfig(config: DownloadConfig | UploadConfig): Record<string, unknown> {
  const c = config.credentials;
  const target =
    c.kind === 'key'
      ? { kind: c.kind, account: c.account, endpoint: c.endpoint, key: '[redacted]' }
      : c.kind === 'sas'
        ? { kind: c.kind, account: c.account, endpoint: c.endpoint, sas: '[redacted]' }
        : // A URL may carry a SAS of its own (?…&sig=…): its signature never reaches a results file.
          isPlainUrl(c)
          ? { kind: c.kind, url: redact(c.url) }
          : c;
  const s = config.scaleout;
  // The run store's key or SAS never shows; an Entra ID store has no secret of its own.
  const secret = s && s.store.kind !== 'entra' ? { [s.store.kind]: '[redacted]' } : {};
  const scaleout = s
    ? {
        scaleout: {
          ...s,
          store: { kind: s.store.kind, account: s.store.account, endpoint: s.store.endpoint, ...secret },
        },
      }
    : {};
  const token = config.metricsToken ? { metricsToken: '[redacted]' } : {};
  return { ...config, credentials: target, ...scaleout, ...token };
}
