// Reading a results file checks every field reports use, so that a damaged or foreign file ends in
// one line naming what is wrong, never in a TypeError deep inside a report.
import { RECORD_COLUMNS, RESULTS_SCHEMA, RESULTS_SCHEMA_VERSION, UNITS, type ResultsFile, type RunRecord, type Unit } from './schema.js';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isString = (v: unknown): v is string => typeof v === 'string';
const isBoolean = (v: unknown): v is boolean => typeof v === 'boolean';
const isNumberMap = (v: unknown): boolean => isObject(v) && Object.values(v).every(isNumber);
const isStringMap = (v: unknown): boolean => isObject(v) && Object.values(v).every(isString);

const RUN_FIELDS: Record<string, (v: unknown) => boolean> = {
  strategy: isString, description: isString, run: isNumber, warmup: isBoolean, objectSizeBytes: isNumber, wallMs: isNumber,
  bytes: isNumber, requests: isNumber, failedRequests: isNumber, reusedSockets: isNumber, retries: isNumber, throttled: isNumber,
  backoffMs: isNumber, phaseSumsMs: isNumberMap, requestSumMs: isNumber, histograms: isStringMap, verified: isBoolean,
  verification: isString, recordsSampled: isBoolean,
};

const WORKER_FIELDS = ['index', 'requests', 'activeMs', 'cpuUserMs', 'cpuSystemMs', 'peakRssBytes', 'eventLoopDelayP99Ms'] as const;

const STEADY_NUMBERS = ['releaseEpochMs', 'durationMs', 'intervalMs', 'lapBytes', 'lapRequests', 'laps'] as const;
const POINT_NUMBERS = ['ops', 'bytes', 'errors', 'retries', 'throttled'] as const;

function steadyProblem(s: unknown): boolean {
  if (!isObject(s) || !STEADY_NUMBERS.every((f) => isNumber(s[f])) || !(s.intervalMs as number > 0)) return true;
  if (!Array.isArray(s.workers) || !s.workers.every((w) => isObject(w) && isNumber(w.firstStartMs) && isNumber(w.stoppedMs) && isNumber(w.lastEndMs))) return true;
  const pointOk = (p: unknown) => isObject(p) && POINT_NUMBERS.every((f) => isNumber(p[f])) && (p.p50Ms === undefined || isNumber(p.p50Ms)) && (p.p99Ms === undefined || isNumber(p.p99Ms));
  if (!Array.isArray(s.series) || !s.series.every(pointOk)) return true;
  return s.autoterm !== undefined && !(isObject(s.autoterm) && isNumber(s.autoterm.atMs) && isNumber(s.autoterm.windowMs) && isNumber(s.autoterm.tolerance));
}

function runProblem(r: unknown): string | undefined {
  if (!isObject(r)) return 'is not an object';
  for (const [field, ok] of Object.entries(RUN_FIELDS)) if (!ok(r[field])) return `has a bad or missing ${field}`;
  if (r.cell !== undefined && !isStringMap(r.cell)) return 'has a bad cell';
  if (r.error !== undefined && !isString(r.error)) return 'has a bad error';
  if (r.params !== undefined && !isNumberMap(r.params)) return 'has bad params';
  if (r.unit !== undefined && !UNITS.includes(r.unit as Unit)) return `has a bad unit (expected ${UNITS.join(' or ')})`;
  if (r.serverSpanMs !== undefined && !isNumber(r.serverSpanMs)) return 'has a bad serverSpanMs';
  if (r.warmSockets !== undefined && !isNumber(r.warmSockets)) return 'has a bad warmSockets';
  if (r.untimedMs !== undefined && !isNumberMap(r.untimedMs)) return 'has bad untimedMs';
  if (r.steady !== undefined && steadyProblem(r.steady)) return 'has a bad steady series';
  if (!Array.isArray(r.workers) || !r.workers.every((w) => isObject(w) && WORKER_FIELDS.every((f) => isNumber(w[f])))) return 'has bad workers';
  if (!Array.isArray(r.records) || !r.records.every((row) => Array.isArray(row) && row.length === RECORD_COLUMNS.length)) return 'has bad records';
  return undefined;
}

function isRun(r: unknown): r is RunRecord {
  return runProblem(r) === undefined;
}

/** The document as a ResultsFile, or one line (after "results file <path>") saying what is wrong. */
export function parseResultsDoc(doc: unknown): { doc: ResultsFile } | { problem: string } {
  if (!isObject(doc) || doc.schema !== RESULTS_SCHEMA) {
    return { problem: 'is not a blob-cacher results file; give a file written by blob-cacher download or upload' };
  }
  if (doc.schemaVersion !== RESULTS_SCHEMA_VERSION) {
    const newer = isNumber(doc.schemaVersion) && doc.schemaVersion > RESULTS_SCHEMA_VERSION;
    return {
      problem: `has schema version ${String(doc.schemaVersion)}, this blob-cacher reads version ${RESULTS_SCHEMA_VERSION}; ${newer ? 'upgrade blob-cacher to read it' : 're-run the benchmark to get a current file'}`,
    };
  }
  const { command, createdAt, complete, config, environment, runs, interrupted, sweep } = doc;
  if (command !== 'download' && command !== 'upload') return { problem: 'has an unknown command; it is damaged, re-run the benchmark' };
  if (!isString(createdAt) || !isBoolean(complete) || !isObject(config) || !isObject(environment) || !isString(environment.target)) {
    return { problem: 'is missing its header fields; it is damaged, re-run the benchmark' };
  }
  if (!Array.isArray(runs)) return { problem: 'has no runs list; it is damaged, re-run the benchmark' };
  for (const [i, r] of runs.entries()) {
    const p = runProblem(r);
    if (p) return { problem: `run ${i + 1} ${p}; it is damaged, re-run the benchmark` };
  }
  if (interrupted !== undefined && !isString(interrupted)) return { problem: 'has a bad interrupted field; it is damaged' };
  const axes = sweep === undefined ? undefined : Array.isArray(sweep) && sweep.every((a) => isObject(a) && isString(a.flag) && Array.isArray(a.values) && a.values.every(isString)) ? sweep : null;
  if (axes === null) return { problem: 'has a bad sweep description; it is damaged' };
  return {
    doc: {
      schema: RESULTS_SCHEMA, schemaVersion: RESULTS_SCHEMA_VERSION, command, createdAt, complete, config,
      environment: {
        node: String(environment.node ?? ''), os: String(environment.os ?? ''), arch: String(environment.arch ?? ''),
        cpus: Number(environment.cpus ?? 0), cpuModel: String(environment.cpuModel ?? ''), totalMemoryBytes: Number(environment.totalMemoryBytes ?? 0),
        targetKind: String(environment.targetKind ?? ''), target: environment.target, packageVersion: String(environment.packageVersion ?? ''),
      },
      ...(interrupted !== undefined ? { interrupted } : {}),
      ...(axes ? { sweep: axes.map((a) => ({ flag: String(a.flag), values: (a.values as unknown[]).map(String) })) } : {}),
      runs: runs.filter(isRun),
    },
  };
}
