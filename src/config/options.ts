// Every option declared once: flag, env var, default, parser and help. Commander options, env
// handling, redaction and docs are all derived from this table.
import { parseSizeBytes } from './sizes.js';

export const LOG_LEVELS = ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const DOWNLOAD_METHODS = ['single', 'chunked', 'round-robin', 'assemble', 'sdk', 'all'] as const;
export type DownloadMethod = (typeof DOWNLOAD_METHODS)[number];
/** Seed names kept working: `url` is what seed 000 called a single GET. */
const METHOD_ALIASES: Record<string, DownloadMethod> = { url: 'single', roundrobin: 'round-robin' };

export const SINKS = ['discard', 'memory', 'file', 'sparse-file'] as const;
export type SinkKind = (typeof SINKS)[number];
export const HTTP_CLIENTS = ['raw', 'node'] as const;
export type HttpClient = (typeof HTTP_CLIENTS)[number];

/** A parser returns the value, or a string saying what a valid value looks like. */
type Parser<T> = (raw: string) => T | { invalid: string };

export interface OptionSpec<T = unknown> {
  key: string;
  flag: string;
  env?: string;
  /** Placeholder for the value in --help; absent for boolean switches. */
  valueName?: string;
  defaultValue?: T;
  parse: Parser<T>;
  help: string;
  /** Never logged or written anywhere. */
  secret?: boolean;
}

const text: Parser<string> = (raw) => (raw.trim() === '' ? { invalid: 'a non-empty value' } : raw.trim());

function integer(min: number, max = Number.MAX_SAFE_INTEGER): Parser<number> {
  return (raw) => {
    const n = Number(raw.trim());
    if (raw.trim() === '' || !Number.isInteger(n) || n < min || n > max) {
      return { invalid: max === Number.MAX_SAFE_INTEGER ? `a whole number >= ${min}` : `a whole number from ${min} to ${max}` };
    }
    return n;
  };
}

function size(min: number, bareUnitBytes = 1, max = Number.MAX_SAFE_INTEGER): Parser<number> {
  return (raw) => {
    const bytes = parseSizeBytes(raw, bareUnitBytes);
    if (bytes !== undefined && bytes > max) return { invalid: `a size of at most ${max / MIB}MiB` };
    if (bytes === undefined || bytes < min) {
      return { invalid: `a size of at least ${min} byte${min === 1 ? '' : 's'} such as 80MiB, 100KB or 12800000` };
    }
    return bytes;
  };
}

function oneOf<T extends string>(values: readonly T[], aliases: Record<string, T> = {}): Parser<T> {
  return (raw) => {
    const v = raw.trim().toLowerCase();
    if ((values as readonly string[]).includes(v)) return v as T;
    if (aliases[v]) return aliases[v];
    return { invalid: `one of ${values.join(', ')}` };
  };
}

/** Durations: 30s, 500ms, 2m; a bare number is milliseconds. */
function duration(minMs: number): Parser<number> {
  return (raw) => {
    const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*$/i.exec(raw);
    const ms = m ? Number(m[1]) * ({ ms: 1, s: 1000, m: 60_000 } as Record<string, number>)[(m[2] ?? 'ms').toLowerCase()]! : NaN;
    if (!Number.isFinite(ms) || ms < minMs) return { invalid: `a duration of at least ${minMs} ms such as 30s, 500ms or 2m` };
    return Math.round(ms);
  };
}

const bool: Parser<boolean> = (raw) => {
  const v = raw.trim().toLowerCase();
  if (['1', 'true', 'yes', 'on', ''].includes(v)) return true;
  if (['0', 'false', 'no', 'off'].includes(v)) return false;
  return { invalid: 'true or false' };
};

function httpUrl(raw: string): string | { invalid: string } {
  try {
    const u = new URL(raw.trim());
    if (u.protocol === 'http:' || u.protocol === 'https:') return u.toString();
  } catch {
    // fall through
  }
  return { invalid: 'an http:// or https:// URL' };
}

export const UPLOAD_METHODS = ['small-files', 'sdk-small-files', 'blocks', 'sdk-upload', 'all'] as const;
export type UploadMethod = (typeof UPLOAD_METHODS)[number];

const KIB = 1024;
const MIB = 1024 * 1024;

const logLevel: OptionSpec = { key: 'logLevel', flag: '--log-level', env: 'LOG_LEVEL', valueName: 'level', defaultValue: 'info', parse: oneOf(LOG_LEVELS), help: `log level (${LOG_LEVELS.join(', ')})` };
const processes: OptionSpec = { key: 'processes', flag: '--processes', env: 'PROCESSES', valueName: 'n', defaultValue: 1, parse: integer(1, 256), help: 'worker processes' };
const maxSockets: OptionSpec = { key: 'maxSockets', flag: '--max-sockets', env: 'MAX_SOCKETS', valueName: 'n', defaultValue: 16, parse: integer(1, 10_000), help: 'sockets per worker process (HTTP agent cap)' };
const account: OptionSpec = { key: 'account', flag: '--account', env: 'STORAGE_ACCOUNT', valueName: 'name', parse: text, help: 'storage account name' };
const container: OptionSpec = { key: 'container', flag: '--container', env: 'STORAGE_CONTAINER', valueName: 'name', defaultValue: 'blob-cacher', parse: text, help: 'container holding the fixtures' };
const key: OptionSpec = { key: 'key', flag: '--key', env: 'STORAGE_KEY', valueName: 'key', parse: text, help: 'account key (SharedKey auth)', secret: true };
const sas: OptionSpec = { key: 'sas', flag: '--sas', env: 'STORAGE_SAS', valueName: 'token', parse: text, help: 'SAS token (query string)', secret: true };
const connectionString: OptionSpec = { key: 'connectionString', flag: '--connection-string', env: 'STORAGE_CONNECTION_STRING', valueName: 'cs', parse: text, help: 'storage connection string', secret: true };
const envFile: OptionSpec = { key: 'envFile', flag: '--dotenv', env: 'ENV_FILE', valueName: 'path', defaultValue: '.env', parse: text, help: 'dotenv file to read (missing default .env is fine)' };
const CREDENTIALS = [account, container, key, sas, connectionString];
const httpClient: OptionSpec = {
  key: 'httpClient', flag: '--http-client', env: 'HTTP_CLIENT', valueName: 'client', defaultValue: 'raw', parse: oneOf(HTTP_CLIENTS),
  help: 'request client for GETs and PUTs: raw (ours: one fixed read buffer per socket, head and body in one write) or node (node:http Agent)',
};
/** One target option for both commands: a plain server instead of a blob service. */
const url: OptionSpec = {
  key: 'url', flag: '--url', env: 'URL', valueName: 'url', parse: httpUrl,
  help: 'plain HTTP(S) server instead of a blob service: download GETs this URL (single, chunked); upload PUTs files below it (small-files)',
};

export const FORMATS = ['console', 'md', 'csv', 'json', 'html'] as const;
export type ReportFormat = (typeof FORMATS)[number];
const format: OptionSpec = { key: 'format', flag: '--format', env: 'FORMAT', valueName: 'fmt', defaultValue: 'console', parse: oneOf(FORMATS), help: `report format on stdout (${FORMATS.join(', ')})` };
/** Output and repetition: the same for every command that measures. */
const RUN_OPTIONS: OptionSpec[] = [
  { key: 'runs', flag: '--runs', env: 'RUNS', valueName: 'n', defaultValue: 1, parse: integer(1, 1000), help: 'measured runs of each strategy (interleaved)' },
  { key: 'warmup', flag: '--warmup', env: 'WARMUP', valueName: 'n', defaultValue: 0, parse: integer(0, 100), help: 'warm-up runs first, recorded but not counted' },
  { key: 'maxRetries', flag: '--max-retries', env: 'MAX_RETRIES', valueName: 'n', defaultValue: 3, parse: integer(0, 20), help: 'retries per request for 408/429/5xx, resets and timeouts' },
  { key: 'timeoutMs', flag: '--timeout', env: 'TIMEOUT', valueName: 'duration', defaultValue: 30_000, parse: duration(10), help: 'per try: the longest a socket may stay idle, a stalled body included (30s, 500ms)' },
  { key: 'trace', flag: '--trace', env: 'TRACE', valueName: 'bool', defaultValue: true, parse: bool, help: 'per-phase tracing (false: totals only, to measure what tracing costs)' },
  { key: 'resultsPath', flag: '--results', env: 'RESULTS', valueName: 'path', parse: text, help: 'results file (default results/<command>-<timestamp>.json)' },
  format,
];
export const REPORT_OPTIONS: readonly OptionSpec[] = [format];

export const DOWNLOAD_OPTIONS: readonly OptionSpec[] = [
  logLevel,
  { key: 'sourceMethod', flag: '--source-method', env: 'SOURCE_METHOD', valueName: 'method', defaultValue: 'all', parse: oneOf(DOWNLOAD_METHODS, METHOD_ALIASES), help: `download strategy (${DOWNLOAD_METHODS.join(', ')}; url = single)` },
  { key: 'concurrency', flag: '--concurrency', env: 'CONCURRENCY', valueName: 'n', defaultValue: 4, parse: integer(1, 100_000), help: 'ranges, copies or parts per download' },
  { key: 'fileSizeBytes', flag: '--file-size', env: 'FILE_SIZE', valueName: 'size', defaultValue: 80 * MIB, parse: size(0), help: 'size of the fixture blob (80MiB, 100KB, 12800000)' },
  { key: 'rangeSizeBytes', flag: '--range-size', env: 'RANGE_SIZE', valueName: 'size', parse: size(1), help: 'chunked, round-robin and sdk: ranges of this size, --concurrency in flight (default: --concurrency equal ranges)' },
  processes,
  maxSockets,
  { key: 'sink', flag: '--sink', env: 'SINK', valueName: 'kind', defaultValue: 'memory', parse: oneOf(SINKS), help: `where downloaded bytes go (${SINKS.join(', ')})` },
  { key: 'outPath', flag: '--out', env: 'OUT', valueName: 'path', parse: text, help: 'output file for the file and sparse-file sinks (default: a temporary file, removed)' },
  { key: 'force', flag: '--force', env: 'FORCE', defaultValue: false, parse: bool, help: 'overwrite an existing --out file' },
  httpClient,
  { key: 'bufferSizeBytes', flag: '--buffer-size', env: 'BUFFER_SIZE', valueName: 'size', defaultValue: 256 * KIB, parse: size(1), help: 'read buffer per socket (raw client) or highWaterMark of the response stream (node client)' },
  url,
  ...CREDENTIALS,
  { key: 'cleanup', flag: '--cleanup', env: 'CLEANUP', defaultValue: false, parse: bool, help: 'delete fixtures this run created' },
  ...RUN_OPTIONS,
  envFile,
];

export const UPLOAD_OPTIONS: readonly OptionSpec[] = [
  logLevel,
  { key: 'uploadMethod', flag: '--upload-method', env: 'UPLOAD_METHOD', valueName: 'method', defaultValue: 'small-files', parse: oneOf(UPLOAD_METHODS), help: `upload strategy (${UPLOAD_METHODS.join(', ')})` },
  { key: 'fileCount', flag: '--file-count', env: 'FILE_COUNT', valueName: 'n', defaultValue: 2400, parse: integer(1, 10_000_000), help: 'blobs uploaded by small-files' },
  // Seed 002: FILE_SIZE=102 means 102 KB; units (100KiB, 102KB, 4096B) are honoured as given.
  { key: 'fileSizeBytes', flag: '--file-size', env: 'FILE_SIZE', valueName: 'size', defaultValue: 100 * KIB, parse: size(1, 1000), help: 'size of each small file; a bare number means KB (102 = 102KB)' },
  { key: 'blobSizeBytes', flag: '--blob-size', env: 'BLOB_SIZE', valueName: 'size', defaultValue: 300 * MIB, parse: size(0), help: 'size of the large blob uploaded by blocks' },
  { key: 'blockSizeBytes', flag: '--block-size', env: 'BLOCK_SIZE', valueName: 'size', defaultValue: 8 * MIB, parse: size(1, 1, 4000 * MIB), help: 'staged block size for blocks (at most 4000MiB)' },
  { key: 'concurrency', flag: '--concurrency', env: 'CONCURRENCY', valueName: 'n', defaultValue: 8, parse: integer(1, 100_000), help: 'blocks in flight (blocks, sdk-upload)' },
  { key: 'thresholdBytes', flag: '--threshold', env: 'THRESHOLD', valueName: 'size', defaultValue: 0, parse: size(0), help: 'blobs at or below this go as one Put Blob (SDK maxSingleShotSize)' },
  processes,
  maxSockets,
  httpClient,
  url,
  ...CREDENTIALS,
  { key: 'keep', flag: '--keep', env: 'KEEP', defaultValue: false, parse: bool, help: 'keep the uploaded blobs (deleted by default)' },
  ...RUN_OPTIONS,
  envFile,
];

export const SECRET_KEYS: ReadonlySet<string> = new Set([key, sas, connectionString].map((o) => o.key));
