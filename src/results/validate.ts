// Reading a results file checks every field reports use, so that a damaged or foreign file ends in
// one line naming what is wrong, never in a TypeError deep inside a report.
import { decodeHistogram } from '../metrics/histograms.js';
import { checkpointProblem } from './checkpoint.js';
import { FAULT_KINDS } from '../transport/answer.js';
import {
  OLDEST_RESULTS_SCHEMA_VERSION,
  RECORD_COLUMNS,
  RESULTS_SCHEMA,
  RESULTS_SCHEMA_VERSION,
  SLO_PERCENTILES,
  type Environment,
  type ResultsFile,
  type RunRecord,
  type Slo,
  type TuneRecord,
} from './schema.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
// Ranges, not just types: a -1, 1e308 or 5e-324 in a file is damage (or a forgery), and would print
// as "-1±0 ms", NaN or Infinity. Counts are whole and within exact integers; durations are 0 or at
// least a nanosecond (a smaller one divides a rate into Infinity) and at most ~115 days.
const MAX_DURATION_MS = 1e10;
const isCount = (v: unknown): v is number => isNumber(v) && Number.isSafeInteger(v) && v >= 0;
const isDuration = (v: unknown): v is number =>
  isNumber(v) && (v === 0 || (v >= 1e-6 && v <= MAX_DURATION_MS));
const isEpochMs = (v: unknown): v is number => isNumber(v) && v >= 0 && v <= 1e14;
const isDurationMap = (v: unknown): boolean => isObject(v) && Object.values(v).every(isDuration);
const isString = (v: unknown): v is string => typeof v === 'string';
const isBoolean = (v: unknown): v is boolean => typeof v === 'boolean';
const isStringMap = (v: unknown): boolean => isObject(v) && Object.values(v).every(isString);

const RUN_FIELDS: Record<string, (v: unknown) => boolean> = {
  strategy: isString,
  description: isString,
  run: isCount,
  warmup: isBoolean,
  objectSizeBytes: isCount,
  wallMs: isDuration,
  bytes: isCount,
  requests: isCount,
  failedRequests: isCount,
  reusedSockets: isCount,
  retries: isCount,
  throttled: isCount,
  backoffMs: isDuration,
  phaseSumsMs: isDurationMap,
  requestSumMs: isDuration,
  histograms: isStringMap,
  verified: isBoolean,
  verification: isString,
  recordsSampled: isBoolean,
};

const WORKER_FIELDS = {
  index: isCount,
  requests: isCount,
  activeMs: isDuration,
  cpuUserMs: isDuration,
  cpuSystemMs: isDuration,
  peakRssBytes: isCount,
  eventLoopDelayP99Ms: isDuration,
} as const;

const STEADY_FIELDS = {
  releaseEpochMs: isEpochMs,
  durationMs: isDuration,
  intervalMs: isDuration,
  lapBytes: isCount,
  lapRequests: isCount,
  laps: isCount,
} as const;
const POINT_COUNTS = ['ops', 'bytes', 'errors', 'retries', 'throttled'] as const;
/** A worker's times in a steady run are since the release: a first request may start a moment before it. */
const isOffsetMs = (v: unknown): v is number => isNumber(v) && Math.abs(v) <= MAX_DURATION_MS;

/** The first field that is out of its range, named, or undefined. */
function badField(
  o: Record<string, unknown>,
  fields: Readonly<Record<string, (v: unknown) => boolean>>,
): string | undefined {
  for (const [field, ok] of Object.entries(fields)) if (!ok(o[field])) return `${field} (${shown(o[field])})`;
  return undefined;
}

const shown = (v: unknown): string =>
  v === undefined ? 'missing' : (JSON.stringify(v)?.slice(0, 40) ?? String(v));

function steadyProblem(s: unknown): string | undefined {
  if (!isObject(s)) return 'steady';
  const bad = badField(s, STEADY_FIELDS);
  if (bad) return `steady.${bad}`;
  if (!((s.intervalMs as number) > 0)) return `steady.intervalMs (${shown(s.intervalMs)})`;
  if (
    !Array.isArray(s.workers) ||
    !s.workers.every(
      (w) => isObject(w) && isOffsetMs(w.firstStartMs) && isOffsetMs(w.stoppedMs) && isOffsetMs(w.lastEndMs),
    )
  )
    return 'steady.workers';
  const pointOk = (p: unknown) =>
    isObject(p) &&
    POINT_COUNTS.every((f) => isCount(p[f])) &&
    (p.p50Ms === undefined || isDuration(p.p50Ms)) &&
    (p.p99Ms === undefined || isDuration(p.p99Ms));
  if (!Array.isArray(s.series) || !s.series.every(pointOk)) return 'steady.series';
  const a = s.autoterm;
  if (
    a !== undefined &&
    !(
      isObject(a) &&
      isDuration(a.atMs) &&
      isDuration(a.windowMs) &&
      isNumber(a.tolerance) &&
      a.tolerance > 0 &&
      a.tolerance <= 1
    )
  )
    return 'steady.autoterm';
  return undefined;
}

/** Each histogram decodes: a damaged one would fail deep in a report, naming neither file nor field. */
function histogramProblem(h: Record<string, unknown>): string | undefined {
  for (const [metric, text] of Object.entries(h)) {
    try {
      decodeHistogram(text as string);
    } catch (err) {
      return `histograms.${metric} (${(err as Error).message.split('\n')[0]})`;
    }
  }
  return undefined;
}

/** The worker and item columns: -1 is how files written before null marked the coordinator's own request. */
const INDEX_COLUMNS = 2;

/** Every number of a record row is finite and not negative (an error column is a string or null). */
const rowOk = (row: unknown): boolean =>
  // Files before --hedge have rows one column shorter.
  Array.isArray(row) &&
  (row.length === RECORD_COLUMNS.length || row.length === RECORD_COLUMNS.length - 1) &&
  row.every(
    (c, i) =>
      c === null ||
      typeof c === 'string' ||
      typeof c === 'boolean' ||
      (isNumber(c) && c <= 1e15 && (c >= 0 || (i < INDEX_COLUMNS && c === -1))),
  );

/** --rate: counts that add up, a known arrival, histograms that decode. */
function openLoopOk(o: unknown): boolean {
  if (!isObject(o) || !isObject(o.histograms)) return false;
  const counts = [o.offered, o.sent, o.skipped, o.succeeded, o.maxInFlight];
  const h = o.histograms as Record<string, unknown>;
  return (
    counts.every(isCount) &&
    (o.skipped as number) <= (o.offered as number) &&
    (o.succeeded as number) <= (o.sent as number) &&
    isNumber(o.ratePerSecond) &&
    o.ratePerSecond > 0 &&
    ['uniform', 'poisson'].includes(o.arrival as string) &&
    isDuration(o.lastOfferedMs) &&
    isDuration(o.lastEndMs) &&
    ['fromIntended', 'fromSend', 'lateness'].every((k) => typeof h[k] === 'string') &&
    histogramProblem(h) === undefined
  );
}

/** `train`: epochs of finite counts, a pass mark that is a fraction, a wait histogram that decodes. */
function trainOk(t: unknown): boolean {
  if (!isObject(t) || !Array.isArray(t.epochs)) return false;
  const epochOk = (e: unknown) =>
    isObject(e) &&
    [e.computeMs, e.wallMs].every(isDuration) &&
    [e.samples, e.bytes, e.batches].every(isCount);
  return (
    t.epochs.every(epochOk) &&
    [t.batchSize, t.prefetch, t.accelerators].every(isCount) &&
    isDuration(t.computeMs) &&
    isNumber(t.passMark) &&
    t.passMark > 0 &&
    t.passMark <= 1 &&
    (t.preset === undefined || isString(t.preset)) &&
    typeof t.waitUs === 'string' &&
    histogramProblem({ wait: t.waitUs }) === undefined
  );
}

function runProblem(r: unknown): string | undefined {
  if (!isObject(r)) return 'is not an object';
  const bad = badField(r, RUN_FIELDS);
  if (bad) return `has a bad or missing ${bad}`;
  const histogram = histogramProblem(r.histograms as Record<string, unknown>);
  if (histogram) return `has a corrupt ${histogram}`;
  if (r.cell !== undefined && !isStringMap(r.cell)) return 'has a bad cell';
  if (r.error !== undefined && !isString(r.error)) return 'has a bad error';
  return partsProblem(r) ?? notesProblem(r) ?? workersProblem(r);
}

/** A run's optional parts: objects, hedging, an open loop, a checkpoint, training, throttling, faults. */
function partsProblem(r: Json): string | undefined {
  const o = r.objects;
  if (
    o !== undefined &&
    !(isObject(o) && isCount(o.objects) && isDuration(o.completionMsSum) && isDuration(o.stragglerMsSum))
  )
    return 'has bad objects';
  const h = r.hedge;
  if (
    h !== undefined &&
    !(isObject(h) && isCount(h.issued) && isCount(h.won) && isCount(h.extraBytes) && h.won <= h.issued)
  )
    return 'has a bad hedge';
  if (r.openLoop !== undefined && !openLoopOk(r.openLoop)) return 'has a bad openLoop';
  const checkpoint = r.checkpoint === undefined ? undefined : checkpointProblem(r.checkpoint);
  if (checkpoint) return checkpoint;
  if (r.train !== undefined && !trainOk(r.train)) return 'has a bad train';
  const by = r.throttledBy;
  if (
    by !== undefined &&
    !(isObject(by) && Object.entries(by).every(([c, n]) => THROTTLE_CLASSES.includes(c) && isCount(n)))
  )
    return 'has a bad throttledBy';
  const faults = r.faults;
  const isFaultKind = (k: string) => (FAULT_KINDS as readonly string[]).includes(k);
  const faultsOk = isObject(faults) && Object.entries(faults).every(([k, n]) => isFaultKind(k) && isCount(n));
  if (faults !== undefined && !faultsOk) {
    return 'has bad faults';
  }
  return undefined;
}

/** A run's optional notes: why it was not verified, its params, units, server span, a steady window. */
function notesProblem(r: Json): string | undefined {
  if (r.notVerified !== undefined && (!isString(r.notVerified) || r.verified === true))
    return 'has a bad notVerified';
  // Every param is a count; the size buckets' edges and a mix's weights are lists of them.
  const goodParam = ([k, v]: [string, unknown]) =>
    k === 'sizeBucketsBytes' || k === 'mixWeights' ? Array.isArray(v) && v.every(isCount) : isCount(v);
  if (r.params !== undefined && !(isObject(r.params) && Object.entries(r.params).every(goodParam))) {
    return 'has bad params';
  }
  if (r.serverSpanMs !== undefined && !isDuration(r.serverSpanMs))
    return `has a bad serverSpanMs (${shown(r.serverSpanMs)})`;
  if (r.unit !== undefined && r.unit !== 'MiB/s' && r.unit !== 'ops/s')
    return 'has a bad unit (MiB/s or ops/s)';
  if (r.warmSockets !== undefined && !isCount(r.warmSockets))
    return `has a bad warmSockets (${shown(r.warmSockets)})`;
  if (r.untimedMs !== undefined && !isDurationMap(r.untimedMs)) return 'has bad untimedMs';
  const steady = r.steady === undefined ? undefined : steadyProblem(r.steady);
  if (steady) return `has a bad ${steady}`;
  return undefined;
}

/** A run's workers and its sampled records. */
function workersProblem(r: Json): string | undefined {
  if (!Array.isArray(r.workers)) return 'has bad workers';
  for (const [i, w] of r.workers.entries()) {
    const badWorker = isObject(w) ? badField(w, WORKER_FIELDS) : 'worker';
    if (badWorker) return `has a bad workers[${i}].${badWorker}`;
  }
  if (!Array.isArray(r.records) || !r.records.every(rowOk)) return 'has bad records';
  return undefined;
}

function isRun(r: unknown): r is RunRecord {
  return runProblem(r) === undefined;
}

/**
 * The environment's optional facts (schema 3), each kept only when well formed: a report never trusts a bad
 * one.
 */
type OptionalEnvironment = Pick<Environment, 'sdkVersion' | 'tcp' | 'endpoint' | 'cloud' | 'container'>;

function optionalEnvironment(env: Json): OptionalEnvironment {
  const out: OptionalEnvironment = {};
  if (isString(env.sdkVersion)) out.sdkVersion = env.sdkVersion;
  const tcp = env.tcp;
  if (isObject(tcp)) {
    out.tcp = {
      ...(isString(tcp.congestionControl) ? { congestionControl: tcp.congestionControl } : {}),
      ...(isCount(tcp.rmemMaxBytes) ? { rmemMaxBytes: tcp.rmemMaxBytes } : {}),
      ...(isCount(tcp.wmemMaxBytes) ? { wmemMaxBytes: tcp.wmemMaxBytes } : {}),
    };
  }
  const ep = env.endpoint;
  if (isObject(ep) && isString(ep.host) && Array.isArray(ep.addresses) && ep.addresses.every(isString)) {
    out.endpoint = {
      host: ep.host,
      addresses: ep.addresses,
      ...(isDuration(ep.connectMs) ? { connectMs: ep.connectMs } : {}),
    };
  }
  const cloud = env.cloud;
  if (isObject(cloud) && cloud.provider === 'azure') {
    out.cloud = {
      provider: 'azure',
      ...(isString(cloud.vmSize) ? { vmSize: cloud.vmSize } : {}),
      ...(isString(cloud.location) ? { location: cloud.location } : {}),
    };
  }
  const box = env.container;
  if (isObject(box)) {
    const positive = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v > 0;
    out.container = {
      ...(positive(box.cpuQuota) ? { cpuQuota: box.cpuQuota } : {}),
      ...(positive(box.memoryLimitBytes) ? { memoryLimitBytes: box.memoryLimitBytes } : {}),
    };
  }
  return out;
}

// Bounds, not just types, for what the header prints: "abc" CPUs printed "NaN x", a memory of
// 1e308 bytes "1.6e296 TiB". Beyond them a figure is damage: no machine has 65,536 CPUs or 1 PiB.
const MAX_CPUS = 65_536;
const MAX_MEMORY_BYTES = 2 ** 50;
const ENVIRONMENT_TEXT = ['node', 'os', 'arch', 'cpuModel', 'targetKind', 'packageVersion'] as const;

/** The environment's required fields: each absent (older files), or of its type and within its bound. */
function environmentProblem(env: Json): string | undefined {
  if (env.cpus !== undefined && !(isCount(env.cpus) && env.cpus <= MAX_CPUS))
    return `cpus (${shown(env.cpus)})`;
  if (
    env.totalMemoryBytes !== undefined &&
    !(isCount(env.totalMemoryBytes) && env.totalMemoryBytes <= MAX_MEMORY_BYTES)
  )
    return `totalMemoryBytes (${shown(env.totalMemoryBytes)})`;
  const text = ENVIRONMENT_TEXT.find((f) => env[f] !== undefined && !isString(env[f]));
  return text ? `${text} (${shown(env[text])})` : undefined;
}

/** The document as a ResultsFile, or one line (after "results file <path>") saying what is wrong. */
export function parseResultsDoc(doc: unknown): { doc: ResultsFile } | { problem: string } {
  if (!isObject(doc) || doc.schema !== RESULTS_SCHEMA) {
    return {
      problem: 'is not a blob-cacher results file; give a file written by blob-cacher download or upload',
    };
  }
  const version = versionProblem(doc.schemaVersion);
  if (version) return { problem: version };
  const { command, createdAt, complete, config, environment, runs } = doc;
  if (command !== 'download' && command !== 'upload')
    return { problem: 'has an unknown command; it is damaged, re-run the benchmark' };
  if (
    !isString(createdAt) ||
    !isBoolean(complete) ||
    !isObject(config) ||
    !isObject(environment) ||
    !isString(environment.target)
  ) {
    return { problem: 'is missing its header fields; it is damaged, re-run the benchmark' };
  }
  const env = environmentProblem(environment);
  if (env) return { problem: `has a bad environment.${env}; it is damaged, re-run the benchmark` };
  if (!Array.isArray(runs)) return { problem: 'has no runs list; it is damaged, re-run the benchmark' };
  for (const [i, r] of runs.entries()) {
    const p = runProblem(r);
    if (p) return { problem: `run ${i + 1} ${p}; it is damaged, re-run the benchmark` };
  }
  const extras = extrasOf(doc);
  if ('problem' in extras) return extras;
  return {
    doc: {
      schema: RESULTS_SCHEMA,
      schemaVersion: RESULTS_SCHEMA_VERSION,
      command,
      createdAt,
      complete,
      config,
      environment: environmentOf(environment, environment.target),
      ...extras.extras,
      runs: runs.filter(isRun),
    },
  };
}

/** Why the file's schema version is not one this build reads; undefined when it is. */
function versionProblem(version: unknown): string | undefined {
  // A version that is not a number ("3", a string) is no version at all: saying "version 3, reads
  // 2 to 3" of it would contradict itself.
  if (!isNumber(version)) {
    const reads = `reads versions ${OLDEST_RESULTS_SCHEMA_VERSION} to ${RESULTS_SCHEMA_VERSION}`;
    const problem = `has schemaVersion ${shown(version)}, not a number (this blob-cacher ${reads})`;
    return `${problem}; it is damaged, re-run the benchmark`;
  }
  // Version 2 is version 3 without its optional fields: both read as the current version.
  if (version < OLDEST_RESULTS_SCHEMA_VERSION || version > RESULTS_SCHEMA_VERSION) {
    const newer = version > RESULTS_SCHEMA_VERSION;
    return (
      `has schema version ${String(version)}, this blob-cacher reads versions ` +
      `${OLDEST_RESULTS_SCHEMA_VERSION} to ${RESULTS_SCHEMA_VERSION}; ` +
      `${newer ? 'upgrade blob-cacher to read it' : 're-run the benchmark to get a current file'}`
    );
  }
  return undefined;
}

/** The environment as read: its text and counts (empty where an older file lacks them), its extras. */
function environmentOf(environment: Json, target: string): Environment {
  return {
    node: String(environment.node ?? ''),
    os: String(environment.os ?? ''),
    arch: String(environment.arch ?? ''),
    cpus: Number(environment.cpus ?? 0),
    cpuModel: String(environment.cpuModel ?? ''),
    totalMemoryBytes: Number(environment.totalMemoryBytes ?? 0),
    targetKind: String(environment.targetKind ?? ''),
    target,
    packageVersion: String(environment.packageVersion ?? ''),
    ...optionalEnvironment(environment),
  };
}

type Extras = Pick<ResultsFile, 'interrupted' | 'sweep' | 'tune' | 'slo'>;

/** The document's optional sections (an interruption, a sweep, a tune, an SLO), each checked. */
function extrasOf(doc: Json): { extras: Extras } | { problem: string } {
  const { interrupted, sweep, tune, slo } = doc;
  if (interrupted !== undefined && !isString(interrupted))
    return { problem: 'has a bad interrupted field; it is damaged' };
  const axes =
    sweep === undefined
      ? undefined
      : Array.isArray(sweep) &&
          sweep.every(
            (a) => isObject(a) && isString(a.flag) && Array.isArray(a.values) && a.values.every(isString),
          )
        ? sweep
        : null;
  if (axes === null) return { problem: 'has a bad sweep description; it is damaged' };
  if (tune !== undefined && !isTune(tune)) return { problem: 'has a bad tune description; it is damaged' };
  const sloOk =
    isObject(slo) &&
    (SLO_PERCENTILES as readonly unknown[]).includes(slo.percentile) &&
    isDuration(slo.boundMs);
  if (slo !== undefined && !sloOk) return { problem: 'has a bad slo; it is damaged' };
  return {
    extras: {
      ...(interrupted !== undefined ? { interrupted } : {}),
      ...(axes
        ? { sweep: axes.map((a) => ({ flag: String(a.flag), values: (a.values as unknown[]).map(String) })) }
        : {}),
      ...(tune !== undefined ? { tune: tune as TuneRecord } : {}),
      ...(slo !== undefined ? { slo: slo as unknown as Slo } : {}),
    },
  };
}

const THROTTLE_CLASSES = ['operations', 'ingress', 'egress', 'other'];
const isThrottleClass = (v: unknown) => v === undefined || THROTTLE_CLASSES.includes(v as string);

/** A tune's record: its axes, each step's cell and counts, where throttling began, how it ended. */
function isTune(t: unknown): boolean {
  if (!isObject(t) || (t.direction !== 'download' && t.direction !== 'upload') || !isDuration(t.budgetMs))
    return false;
  if (!['converged', 'budget', 'signal', 'deadline'].includes(t.stopped as string)) return false;
  if (t.command !== undefined && t.command !== 'checkpoint' && t.command !== 'train') return false;
  if (
    !Array.isArray(t.axes) ||
    !t.axes.every(
      (a) =>
        isObject(a) &&
        isString(a.flag) &&
        Array.isArray(a.values) &&
        a.values.every(isString) &&
        isBoolean(a.ordered),
    )
  )
    return false;
  const stepOk = (s: unknown) =>
    isObject(s) &&
    isStringMap(s.cell) &&
    ['start', 'grow', 'refine'].includes(s.reason as string) &&
    (s.axis === undefined || isString(s.axis)) &&
    isDuration(s.spentMs) &&
    isCount(s.throttled) &&
    isThrottleClass(s.throttleClass);
  if (!Array.isArray(t.path) || !t.path.every(stepOk)) return false;
  if ((t.best !== undefined && !isStringMap(t.best)) || (t.fixed !== undefined && !isStringMap(t.fixed)))
    return false;
  // Every cell the search measured, and its answer, holds a value for every axis it searched.
  const flags = t.axes.map((a) => (a as Json).flag as string);
  const whole = (cell: unknown) => flags.every((f) => isString((cell as Json)[f]));
  if (!t.path.every((s) => whole((s as Json).cell)) || (t.best !== undefined && !whole(t.best))) return false;
  return (
    Array.isArray(t.throttling) &&
    t.throttling.every(
      (b) => isObject(b) && isString(b.axis) && isString(b.value) && isThrottleClass(b.throttleClass),
    )
  );
}
