// Every option declared once: flag, env var, default, parser and help. Commander options, env
// handling, redaction and docs are all derived from this table, and each parser carries its
// option's type, so that the resolved options are typed from the table alone.
import {
  DEFAULT_UPLOAD_STRATEGY,
  DOWNLOAD_STRATEGIES,
  HEDGEABLE,
  manyBlobWorkloadNames,
  readersOf,
  UPLOAD_STRATEGIES,
  workloadOf,
  type DownloadStrategyName,
  type UploadStrategyName,
} from '../strategies/index.js';
import type { DownloadStrategy, UploadStrategy } from '../strategies/strategy.js';
import { formatSizeExact, parseSizeUnbounded } from '../vocabulary/sizes.js';
import { SHARD_WRITE_CHOICES, type ShardWriteChoice } from '../strategies/checkpoint.js';
import { formatDurationExact } from '../vocabulary/durations.js';
import type { Slo } from '../results/schema.js';
import { BadDistribution, parseSizeDistribution } from './size-distribution.js';
import { BadMix, parseMix } from './mix.js';
import type { SizeDistribution } from '../plan/size-draw.js';
import {
  ARRIVALS,
  AUTH_MODES,
  CONNECTION_MODES,
  FORMATS,
  HTTP_CLIENTS,
  LOG_LEVELS,
  SINKS,
} from '../vocabulary/choices.js';
import { parseThresholds, THRESHOLD_SEPARATOR, type Threshold } from './thresholds.js';

export { AUTH_MODES, CONNECTION_MODES, FORMATS, HTTP_CLIENTS, LOG_LEVELS, SINKS };
export type {
  AuthMode,
  ConnectionMode,
  HttpClientName,
  LogLevel,
  ReportFormat,
  SinkKind,
} from '../vocabulary/choices.js';

/** The strategies' own names, from their registry: a new strategy needs no line here. */
export const DOWNLOAD_METHODS: readonly (DownloadStrategyName | 'all')[] = [
  ...DOWNLOAD_STRATEGIES.map((s) => s.name),
  'all',
];
/** One name, `all`, or several separated by commas. */
export type DownloadMethod = string;
/** The names the strategies declare as their aliases (`url` is how SOURCE_METHOD names a single GET). */
const aliasesOf = <N extends string>(
  list: readonly { name: N; aliases?: readonly string[] }[],
): ReadonlyMap<string, N> => new Map(list.flatMap((s) => (s.aliases ?? []).map((a) => [a, s.name] as const)));
const METHOD_ALIASES = aliasesOf(DOWNLOAD_STRATEGIES);
const aliasHelp = [...METHOD_ALIASES].map(([alias, name]) => `${alias} = ${name}`).join(', ');

export const UPLOAD_METHODS: readonly (UploadStrategyName | 'all')[] = [
  ...UPLOAD_STRATEGIES.map((s) => s.name),
  'all',
];
export type UploadMethod = UploadStrategyName | 'all';

/** Names in --help: `a, b and c` (`and`) or `a, b, c`. */
const names = (list: readonly string[], and = false) =>
  and && list.length > 1 ? `${list.slice(0, -1).join(', ')} and ${list.at(-1)}` : list.join(', ');
const urlNames = (list: readonly (DownloadStrategy | UploadStrategy)[], many: boolean) =>
  list.filter((s) => s.urlCapable && workloadOf(s).many === many).map((s) => s.name);
/** The many-blob workloads: each its contenders, comma-joined, and what it measures. */
const manyBlobFirsts = manyBlobWorkloadNames(DOWNLOAD_STRATEGIES);
const manyBlobHelp = manyBlobFirsts
  .map((first) => {
    const w = workloadOf(DOWNLOAD_STRATEGIES.find((s) => s.name === first)!);
    const list = DOWNLOAD_STRATEGIES.filter((s) => workloadOf(s) === w).map((s) => s.name);
    return `${list.join(',')} (${w.words})`;
  })
  .join(', ');

/** What a parser returns for a bad value: what a valid value looks like, to end "expected …". */
export class Invalid {
  readonly expected: string;
  constructor(expected: string) {
    this.expected = expected;
  }
}

/** A parser returns the value, or an Invalid saying what a valid value looks like. */
export type Parser<T> = (raw: string) => T | Invalid;

/** An option without its default; see OptionSpec. */
interface OptionFields<T, K extends string> {
  readonly key: K;
  readonly flag: string;
  readonly env?: string;
  /** A variable the platform sets that wins over `env` (Kubernetes' JOB_COMPLETION_INDEX). */
  readonly platformEnv?: string;
  /** Placeholder for the value in --help; `bool` options may be given alone (`--force`). */
  readonly valueName?: string;
  readonly parse: Parser<T>;
  readonly help: string;
  /** Never logged or written anywhere. */
  readonly secret?: boolean;
  /** The flag may be given again: its values are joined with this separator, as its env takes them. */
  readonly repeatable?: string;
}

export interface OptionSpec<T = unknown, K extends string = string> extends OptionFields<T, K> {
  readonly defaultValue?: T;
}

/** Any option: every field of OptionSpec is covariant in its value type. */
export type AnyOption = OptionSpec<unknown, string>;

/** The type an option resolves to: its parser's, and possibly undefined when it has no default. */
export type OptionValue<O> = O extends { readonly defaultValue: infer T }
  ? T
  : O extends OptionSpec<infer T, string>
    ? T | undefined
    : never;

/** The resolved options of a table, keyed by each option's key. */
export type Resolved<S extends readonly AnyOption[]> = { [O in S[number] as O['key']]: OptionValue<O> };

type Defaulted<T, K extends string> = OptionSpec<T, K> & { readonly defaultValue: T };

/** Declares one option; the key stays a literal type and the value type is the parser's alone. */
function option<const K extends string, T>(
  spec: OptionFields<T, K> & { readonly defaultValue: NoInfer<T> },
): Defaulted<T, K>;
function option<const K extends string, T>(spec: OptionFields<T, K>): OptionSpec<T, K>;
function option<const K extends string, T>(spec: OptionSpec<T, K>): OptionSpec<T, K> {
  return spec;
}

/** A table keeps each option's own type (a tuple, not an array of the common type). */
function table<const S extends readonly AnyOption[]>(...specs: S): S {
  return specs;
}

const KIB = 1024;
const MIB = 1024 * KIB;
/** Download --file-size defaults: one 80 MiB blob; 100 KiB files in the many-blob workloads. */
export const DEFAULT_BLOB_SIZE_BYTES = 80 * MIB;
export const DEFAULT_FILE_SIZE_BYTES = 100 * KIB;
/** Download's many-blob workloads: files in the set, names per List Blobs page (the service's maximum). */
export const DEFAULT_FILE_COUNT = 2400;
export const DEFAULT_PAGE_SIZE = 5000;
const DEFAULT_BLOB_SIZE_TEXT = '80MiB';
const DEFAULT_FILE_SIZE_TEXT = '100KiB';
const TIB = 1024 * 1024 * MIB;
/** Far beyond any benchmark here, and small enough that every size is an exact integer. */
const MAX_OBJECT_BYTES = TIB;
/** One Put Blob (a small file) is at most 5000 MiB; a staged block at most 4000 MiB. */
const MAX_PUT_BLOB_BYTES = 5000 * MIB;
const MAX_BLOCK_BYTES = 4000 * MIB;
/** The SDK refuses a maxSingleShotSize above 256 MiB. */
const MAX_SINGLE_SHOT_BYTES = 256 * MIB;
const MAX_BUFFER_BYTES = 256 * MIB;
/** Longer than any sane per-try idle timeout, and well inside setTimeout's 2^31-1 ms. */
const MAX_TIMEOUT_MS = 24 * 60 * 60 * 1000;

const text: Parser<string> = (raw) => (raw.trim() === '' ? new Invalid('a non-empty value') : raw.trim());

/** A share in percent, `7.5` or `7.5%`, above 0 and at most `max`; the value is a fraction (0.075). */
function percent(max: number): Parser<number> {
  return (raw) => {
    const m = /^(\d+(?:\.\d+)?)%?$/.exec(raw.trim());
    const n = m ? Number(m[1]) : NaN;
    if (!(n > 0 && n <= max)) return new Invalid(`a percentage above 0 and at most ${max} (7.5 or 7.5%)`);
    return n / 100;
  };
}

/** --precision: a percentage as `percent` reads it, or `off` (0: no precision target). */
function percentOrOff(max: number): Parser<number> {
  const share = percent(max);
  return (raw) => (raw.trim() === 'off' ? 0 : share(raw));
}

/**
 * The default cap on a contender's measured runs, criterion.rs's default sample count. A median
 * known to +-2% needs about (1.96 * 1.25 * CV / 0.02)^2 runs: 38 at a 5% coefficient of variation,
 * 96 at 8%; a contender noisier than that is known to about +-2.5% at 10% after 100 runs, and more
 * runs would only narrow an interval the verdict can already state. Runs of a millisecond (a 1 MiB
 * object on a near server) are where the cap binds: 100 of them are seconds, 1000 are minutes.
 */
export const DEFAULT_MAX_RUNS = 100;

/** One grammar for every count: digits only (no sign, decimal point, exponent or 0x), in range. */
function integer(min: number, max: number): Parser<number> {
  return (raw) => {
    const digits = raw.trim();
    const n = Number(digits);
    if (!/^\d+$/.test(digits) || n < min || n > max)
      return new Invalid(`a whole number from ${min} to ${max}, in plain digits`);
    return n;
  };
}

/** The most --rate takes: past it a worker's schedule is finer than its event loop can keep. */
export const MAX_RATE_PER_SECOND = 1_000_000;
/** --rate: sends per second, `800`, `800/s` or `0.5/s`. */
const rate: Parser<number> = (raw) => {
  const m = /^(\d+(?:\.\d+)?)(?:\/s)?$/.exec(raw.trim());
  const n = m ? Number(m[1]) : NaN;
  if (n >= 0.01 && n <= MAX_RATE_PER_SECOND) return n;
  return new Invalid(`a rate from 0.01/s to ${MAX_RATE_PER_SECOND}/s, such as 800/s`);
};

/** --slo: `p99<200ms`, `p99.9<1s`: a percentile of latency from the intended start and its bound. */
const slo: Parser<Slo> = (raw) => {
  const m = /^p(50|90|99|99\.9)\s*<\s*(\d+(?:\.\d+)?)\s*(ms|s)$/.exec(raw.trim());
  const boundMs = m ? Number(m[2]) * (m[3] === 's' ? 1000 : 1) : NaN;
  if (!m || !(boundMs > 0 && boundMs <= MAX_TIMEOUT_MS)) {
    return new Invalid('a percentile (p50, p90, p99, p99.9) and a bound, such as p99<200ms');
  }
  return { percentile: Number(m[1]) as Slo['percentile'], boundMs };
};

/** Sizes: 80MiB, 100KB, 12800000; `bareUnitBytes` is what a number without a unit counts. */
/**
 * FILE_SIZE's bare number, the same for downloads and uploads: the seed's KB (`FILE_SIZE=102` in the
 * upload image is 102 KB). Every other size option's bare number is bytes. Units are always taken.
 */
export const SEED_BARE_SIZE_BYTES = 1000;

function size(min: number, max: number, bareUnitBytes = 1): Parser<number> {
  const example =
    bareUnitBytes === 1 ? '80MiB, 100KB or 12800000' : '80MiB, 100KB or 102 (a bare number is KB)';
  return (raw) => {
    const bytes = parseSizeUnbounded(raw, bareUnitBytes);
    if (bytes === undefined)
      return new Invalid(`a size from ${formatSizeExact(min)} to ${formatSizeExact(max)} such as ${example}`);
    if (bytes > max) return new Invalid(`a size of at most ${formatSizeExact(max)}`);
    if (bytes < min) return new Invalid(`a size of at least ${formatSizeExact(min)}`);
    return bytes;
  };
}

/** Sizes, comma-separated, each as `size` takes it: distinct, in the order given. */
function sizeList(min: number, max: number): Parser<number[]> {
  const one = size(min, max);
  return (raw) => {
    const out: number[] = [];
    for (const part of raw.split(',')) {
      const bytes = one(part.trim());
      if (bytes instanceof Invalid)
        return new Invalid(`sizes such as 8MiB or 4MiB,8MiB,16MiB (${bytes.expected})`);
      if (!out.includes(bytes)) out.push(bytes);
    }
    return out;
  };
}

/**
 * --file-size: a fixed size or a distribution of per-file sizes (config/size-distribution.ts); its
 * sizes take FILE_SIZE's bare KB as a fixed size does.
 */
function sizeDistribution(min: number, max: number): Parser<SizeDistribution> {
  return (raw) => {
    const d = parseSizeDistribution(raw, min, max, SEED_BARE_SIZE_BYTES);
    return d instanceof BadDistribution ? new Invalid(d.expected) : d;
  };
}

const DISTRIBUTION_HELP =
  'distribution, one size drawn per file: 4KiB..16MiB (uniform), log:4KiB..16MiB ' +
  '(log-uniform), lognormal:median=256KiB,sigma=1.2 (clamped to min=, max=; default 1B and the ' +
  'largest size) or weighted buckets 4KiB:50%,1MiB:40%,64MiB:10% (shares sum to 100%); ' +
  '--seed fixes the draw';

/** The seed of every drawn size: fixed by default, so that two runs draw the same files. */
export const DEFAULT_SEED = 1;

const SEED_OPTION = option({
  key: 'seed',
  flag: '--seed',
  env: 'BLOB_CACHER_SEED',
  valueName: 'n',
  defaultValue: DEFAULT_SEED,
  parse: integer(0, 2 ** 32 - 1),
  help:
    'fixes the draw of a --file-size distribution and of --mix operations: the same seed gives the ' +
    'same sizes and operations in the same order',
});

/** --mix: shares of operations over the many-object set (config/mix.ts), the same for both directions. */
const MIX_OPTION = option({
  key: 'mix',
  flag: '--mix',
  env: 'BLOB_CACHER_MIX',
  valueName: 'op:weight,...',
  parse: (raw: string) => {
    const weights = parseMix(raw);
    return weights instanceof BadMix ? new Invalid(weights.expected) : weights;
  },
  help:
    'mixed operations over the --file-count set, drawn with --seed: weights of get, put, head, list ' +
    'and delete (get:60,put:20,head:10,list:5,delete:5); a run is --file-count operations (docs/mix.md)',
});

/** A comma-separated list of names (aliases allowed), each once; `all` stands alone. */
function methodList(values: readonly string[], aliases: ReadonlyMap<string, string>): Parser<string> {
  const one = oneOf(values, aliases);
  return (raw) => {
    const names: string[] = [];
    for (const part of raw.split(',')) {
      const name = one(part);
      if (name instanceof Invalid)
        return new Invalid(`one of ${values.join(', ')}, or several of them separated by commas`);
      if (!names.includes(name)) names.push(name);
    }
    return names.includes('all') && names.length > 1
      ? new Invalid('all alone, or strategies separated by commas')
      : names.join(',');
  };
}

function oneOf<T extends string>(
  values: readonly T[],
  aliases: ReadonlyMap<string, T> = new Map(),
): Parser<T> {
  return (raw) => {
    const v = raw.trim().toLowerCase();
    return (
      values.find((value) => value === v) ?? aliases.get(v) ?? new Invalid(`one of ${values.join(', ')}`)
    );
  };
}

const DURATION_UNITS_MS: ReadonlyMap<string, number> = new Map([
  ['ms', 1],
  ['s', 1000],
  ['m', 60_000],
  ['h', 3_600_000],
]);

/** Durations: 30s, 500ms, 2m, 1h; a bare number is milliseconds. */

/**
 * Where --metrics sends live figures: InfluxDB line protocol to a file or an HTTP write endpoint, or
 * OTLP/HTTP JSON.
 */
export type MetricsSink = { format: 'influx'; file: string } | { format: 'influx' | 'otlp'; url: string };

/**
 * --metrics: one or more `influx=FILE|URL` and `otlp=URL`, separated by spaces (a repeated flag is
 * joined so); a file path may hold spaces, since only ` influx=` or ` otlp=` starts the next one.
 */
export const metricsSinks: Parser<MetricsSink[]> = (raw) => {
  const expected =
    'influx=FILE, influx=http(s)://HOST/api/v2/write?org=O&bucket=B (or v1 /write?db=D) or ' +
    'otlp=http(s)://HOST:4318/v1/metrics, space-separated';
  const out: MetricsSink[] = [];
  for (const part of raw.trim().split(/\s+(?=(?:influx|otlp)=)/)) {
    const m = /^(influx|otlp)=(.+)$/s.exec(part.trim());
    if (!m) return new Invalid(expected);
    const format = m[1] as 'influx' | 'otlp';
    const target = m[2]!.trim();
    if (/^https?:\/\//i.test(target)) {
      if (!URL.canParse(target)) return new Invalid(expected);
      out.push({ format, url: target });
    } else if (format === 'influx' && !/^[a-z][a-z0-9+.-]*:\/\//i.test(target)) {
      out.push({ format, file: target });
    } else {
      return new Invalid(expected);
    }
  }
  return out;
};

/** Options for the test suite only: left out of --help. */
export const isTestOnly = (spec: { help: string }) => spec.help.startsWith('TEST ONLY');

function duration(minMs: number, maxMs: number): Parser<number> {
  // The examples lie within the range: "such as 500ms" under a floor of 1s invites a second error.
  const examples = ['30s', '500ms', '2m'].filter((x) => {
    const ms = Number.parseFloat(x) * DURATION_UNITS_MS.get(x.replace(/^[\d.]+/, ''))!;
    return ms >= minMs && ms <= maxMs;
  });
  const such = examples.length ? examples : [formatDurationExact(minMs)];
  const listed = such.length > 1 ? `${such.slice(0, -1).join(', ')} or ${such.at(-1)}` : such[0];
  const expected = `a duration from ${formatDurationExact(minMs)} to ${formatDurationExact(maxMs)} such as ${listed}`;
  return (raw) => {
    const m = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/i.exec(raw);
    const unitMs = DURATION_UNITS_MS.get((m?.[2] ?? 'ms').toLowerCase());
    if (!m || unitMs === undefined) return new Invalid(expected);
    const ms = Math.round(Number(m[1]) * unitMs);
    return ms < minMs || ms > maxMs ? new Invalid(expected) : ms;
  };
}

/**
 * --hedge: a fixed delay (50ms, 0.2s) or a percentile of the worker's earlier requests of this contender
 * (p90, p99.9).
 */
export type HedgeAfter = { ms: number } | { percentile: number };
export const HEDGE_ON = ['first-byte', 'finish'] as const;
export type HedgeOn = (typeof HEDGE_ON)[number];

function hedgeAfter(): Parser<HedgeAfter> {
  const asDelay = duration(1, MAX_TIMEOUT_MS);
  return (raw) => {
    const p = /^\s*p(\d+(?:\.\d+)?)\s*$/i.exec(raw);
    if (p) {
      const percentile = Number(p[1]);
      return percentile >= 50 && percentile < 100
        ? { percentile }
        : new Invalid('a percentile from p50 to p99.99 (p90, p99), or a delay such as 20ms');
    }
    const ms = asDelay(raw);
    return ms instanceof Invalid
      ? new Invalid("a delay such as 20ms or 0.5s, or a percentile of the run's earlier requests such as p90")
      : { ms };
  };
}

const TRUE_WORDS = ['true', 'yes', '1'];
const FALSE_WORDS = ['false', 'no', '0'];
/** A switch alone (`--force`) arrives as "true"; `--force=false` and `--cleanup yes` work too. */
const bool: Parser<boolean> = (raw) => {
  const v = raw.trim().toLowerCase();
  if (TRUE_WORDS.includes(v)) return true;
  if (FALSE_WORDS.includes(v)) return false;
  return new Invalid('true or false (or yes/no, 1/0)');
};

const httpUrl: Parser<string> = (raw) => {
  if (URL.canParse(raw.trim())) {
    const u = new URL(raw.trim());
    if (u.protocol === 'http:' || u.protocol === 'https:') return u.toString();
  }
  return new Invalid('an http:// or https:// URL');
};

/** Azure's rule: 3-63 lowercase letters, digits and single hyphens, a letter or digit at each end. */
const containerName: Parser<string> = (raw) => {
  const name = raw.trim();
  const valid = name.length >= 3 && name.length <= 63 && /^[a-z0-9]+(-[a-z0-9]+)*$/.test(name);
  return valid
    ? name
    : new Invalid(
        '3-63 lowercase letters, digits and single hyphens, starting and ending with a letter or digit',
      );
};

// Environment names: the ones users already pass keep their names; every other one is namespaced
// BLOB_CACHER_*, so that a generic OUT or TIMEOUT in someone's shell is never read.
const logLevel = option({
  key: 'logLevel',
  flag: '--log-level',
  env: 'LOG_LEVEL',
  valueName: 'level',
  defaultValue: 'info',
  parse: oneOf(LOG_LEVELS),
  help: `log level (${LOG_LEVELS.join(', ')})`,
});
const processes = option({
  key: 'processes',
  flag: '--processes',
  env: 'PROCESSES',
  valueName: 'n',
  defaultValue: 1,
  parse: integer(1, 256),
  help: 'worker processes',
});
const maxSockets = option({
  key: 'maxSockets',
  flag: '--max-sockets',
  env: 'MAX_SOCKETS',
  valueName: 'n',
  defaultValue: 16,
  parse: integer(1, 10_000),
  help: 'sockets per worker process (HTTP agent cap)',
});
const account = option({
  key: 'account',
  flag: '--account',
  env: 'STORAGE_ACCOUNT',
  valueName: 'name',
  parse: text,
  help: 'storage account name',
});
const container = option({
  key: 'container',
  flag: '--container',
  env: 'STORAGE_CONTAINER',
  valueName: 'name',
  defaultValue: 'blob-cacher',
  parse: containerName,
  help: 'container holding the fixtures',
});
const key = option({
  key: 'key',
  flag: '--key',
  env: 'STORAGE_KEY',
  valueName: 'key',
  parse: text,
  help: 'account key (SharedKey auth)',
  secret: true,
});
const sas = option({
  key: 'sas',
  flag: '--sas',
  env: 'STORAGE_SAS',
  valueName: 'token',
  parse: text,
  help: 'SAS token (query string)',
  secret: true,
});
const connectionString = option({
  key: 'connectionString',
  flag: '--connection-string',
  env: 'STORAGE_CONNECTION_STRING',
  valueName: 'cs',
  parse: text,
  help: 'storage connection string',
  secret: true,
});
const auth = option({
  key: 'auth',
  flag: '--auth',
  env: 'BLOB_CACHER_AUTH',
  valueName: 'mode',
  parse: oneOf(AUTH_MODES),
  help:
    `how requests to the blob service are authorized (${AUTH_MODES.join(', ')}; default: from ` +
    `the credentials given). entra: a token from DefaultAzureCredential (managed identity, workload ` +
    `identity, az login)`,
});
const endpoint = option({
  key: 'endpoint',
  flag: '--endpoint',
  env: 'STORAGE_ENDPOINT',
  valueName: 'url',
  parse: httpUrl,
  help:
    'blob service URL, for every --auth mode (default https://<account>.blob.core.windows.net): ' +
    'sovereign clouds, private endpoints, path-style https://127.0.0.1:PORT/devstoreaccount1',
});
const clientId = option({
  key: 'clientId',
  flag: '--client-id',
  env: 'BLOB_CACHER_CLIENT_ID',
  valueName: 'id',
  parse: text,
  help:
    '--auth entra: client ID of a user-assigned managed identity or workload identity (default: ' +
    'AZURE_CLIENT_ID, as DefaultAzureCredential reads it)',
});
const caFile = option({
  key: 'caFile',
  flag: '--ca-file',
  env: 'BLOB_CACHER_CA_FILE',
  valueName: 'path',
  parse: text,
  help:
    'PEM certificate(s) trusted for the --endpoint or account instead of the default CAs (a ' +
    'private CA, a TLS-inspecting proxy, a test Azurite over HTTPS; to keep the defaults, append ' +
    'them to the file)',
});
/** Read by the CLI (src/cli/sources.ts) before the other options are resolved. */
export const envFile = option({
  key: 'envFile',
  flag: '--dotenv',
  env: 'BLOB_CACHER_ENV_FILE',
  valueName: 'path',
  defaultValue: '.env',
  parse: text,
  help: 'dotenv file to read (missing default .env is fine)',
});
const httpClient = option({
  key: 'httpClient',
  flag: '--http-client',
  env: 'BLOB_CACHER_HTTP_CLIENT',
  valueName: 'client',
  defaultValue: 'raw',
  parse: oneOf(HTTP_CLIENTS),
  help:
    'request client for GETs and PUTs: raw (ours: one fixed read buffer per socket, head and ' +
    'body in one write) or node (node:http Agent)',
});
/** One target option for both commands: a plain server instead of a blob service. */
const url = option({
  key: 'url',
  flag: '--url',
  env: 'URL',
  valueName: 'url',
  parse: httpUrl,
  help:
    `plain HTTP(S) server instead of a blob service: download GETs this URL ` +
    `(${names(urlNames(DOWNLOAD_STRATEGIES, false))}), or the set of files below it ` +
    `(${names(urlNames(DOWNLOAD_STRATEGIES, true))}: <url>/many/<count>x<bytes>/file-NNNNNNN, PUT ` +
    `first when missing); upload PUTs files below it (${names(urlNames(UPLOAD_STRATEGIES, true))})`,
});
/** Where the bytes are: a plain URL or a blob service, and how to authenticate to it. */
const tlsOption = option({
  key: 'tls',
  flag: '--tls',
  env: 'BLOB_CACHER_TLS',
  valueName: 'bool',
  defaultValue: false,
  parse: bool,
  help:
    'the embedded Azurite over HTTPS (https://localhost, a throwaway certificate trusted by ' +
    'this run only): dns, tcp and tls phases measured',
});
export const TARGET_OPTIONS = table(
  url,
  account,
  container,
  key,
  sas,
  connectionString,
  auth,
  endpoint,
  clientId,
  caFile,
  tlsOption,
);

/** A run id as the Job's controller-uid (a UUID) or a name: it becomes part of blob names. */
const runId: Parser<string> = (raw) =>
  /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(raw.trim())
    ? raw.trim()
    : new Invalid('1-128 letters, digits, ".", "_" or "-", starting with a letter or digit');
const signedMs: Parser<number> = (raw) => {
  const n = Number(raw.trim());
  return /^-?\d+$/.test(raw.trim()) && Math.abs(n) <= MAX_TIMEOUT_MS
    ? n
    : new Invalid('a whole number of milliseconds, such as -2000 or 1500');
};

const runIdOption = option({
  key: 'runId',
  flag: '--run-id',
  env: 'BLOB_CACHER_RUN_ID',
  valueName: 'id',
  parse: runId,
  help:
    "scale-out: the run's id, the same for every client (in Kubernetes the Job's " +
    'controller-uid); markers and results go under runs/<id>/',
});
const runStoreOption = option({
  key: 'runStore',
  flag: '--run-store',
  env: 'BLOB_CACHER_RUN_STORE',
  valueName: 'cs',
  parse: text,
  secret: true,
  help:
    'scale-out: connection string of the account for markers and results (default: the target ' +
    'account; needed with --url)',
});

/** Scale-out: one client of K, met with the others through the storage account (src/scaleout/). */
export const SCALEOUT_OPTIONS = table(
  option({
    key: 'parallelism',
    flag: '--parallelism',
    env: 'BLOB_CACHER_PARALLELISM',
    valueName: 'k',
    defaultValue: 1,
    parse: integer(1, 10_000),
    help: 'scale-out: this many clients share the work and start together (needs --run-id)',
  }),
  option({
    key: 'index',
    flag: '--index',
    env: 'BLOB_CACHER_INDEX',
    platformEnv: 'JOB_COMPLETION_INDEX',
    valueName: 'i',
    parse: integer(0, 9_999),
    help: "scale-out: this client's index, 0 to k-1: it takes items i, i+k, …",
  }),
  runIdOption,
  option({
    key: 'barrierTimeoutMs',
    flag: '--barrier-timeout',
    env: 'BLOB_CACHER_BARRIER_TIMEOUT',
    valueName: 'duration',
    defaultValue: 600_000,
    parse: duration(100, MAX_TIMEOUT_MS),
    help: 'scale-out: wait at most this long for every client to be ready (exit 3)',
  }),
  option({
    key: 'startLeadMs',
    flag: '--start-lead',
    env: 'BLOB_CACHER_START_LEAD',
    valueName: 'duration',
    defaultValue: 3_000,
    parse: duration(0, 600_000),
    help:
      "scale-out: the start is the last ready marker's time plus this (a client that sees it " +
      'later exits 5)',
  }),
  runStoreOption,
  option({
    key: 'testClockSkewMs',
    flag: '--test-clock-skew',
    env: 'BLOB_CACHER_TEST_CLOCK_SKEW_MS',
    valueName: 'ms',
    defaultValue: 0,
    parse: signedMs,
    help: "TEST ONLY: shift this client's clock by this many ms, to check that the start barrier corrects it",
  }),
);

/**
 * The least gain that counts in the recommendation: a contender faster by less than this share of
 * the time does not beat one with fewer requests or a simpler strategy. A few percent is the run
 * to run drift of a shared service, and less than what a doubled request count costs.
 */
export const DEFAULT_MATERIAL_SHARE = 0.05;

export const COLOR_MODES = ['auto', 'always', 'never'] as const;
export type ColorMode = (typeof COLOR_MODES)[number];
/** How the report is shown: read by the CLI beside the run's config, the same for run and report. */
export const OUTPUT_OPTIONS = table(
  option({
    key: 'details',
    flag: '--details',
    env: 'BLOB_CACHER_DETAILS',
    valueName: 'bool',
    defaultValue: false,
    parse: bool,
    help: 'console report: add phases, percentiles, the server clock, untimed steps and cost by class',
  }),
  option({
    key: 'color',
    flag: '--color',
    env: 'BLOB_CACHER_COLOR',
    valueName: 'when',
    defaultValue: 'auto',
    parse: oneOf(COLOR_MODES),
    help: 'colour on the console: auto (a terminal, unless NO_COLOR is set), always or never',
  }),
  option({
    key: 'material',
    flag: '--material',
    env: 'BLOB_CACHER_MATERIAL',
    valueName: 'percent',
    defaultValue: DEFAULT_MATERIAL_SHARE,
    parse: percentOrOff(100),
    help:
      'the least gain that counts: a contender faster by less than this does not beat one with fewer ' +
      'requests or a simpler strategy (default 5%; off: any significant gain)',
  }),
  option({
    key: 'pricesPath',
    flag: '--prices',
    env: 'BLOB_CACHER_PRICES',
    valueName: 'path',
    parse: text,
    help:
      'JSON rate table for the cost columns (tiers hot, cool, cold; README "Cost"); default: ' +
      'dated Azure list prices',
  }),
);

/** --threshold: the strategies of both directions are the contenders a threshold may name. */
const thresholdList: Parser<Threshold[]> = (raw) => {
  const names = [...new Set([...DOWNLOAD_STRATEGIES, ...UPLOAD_STRATEGIES].map((s) => s.name))];
  const parsed = parseThresholds(raw, names);
  return 'problem' in parsed ? new Invalid(`a threshold, but ${parsed.problem}`) : parsed;
};
export const thresholdOption = option({
  key: 'thresholds',
  flag: '--threshold',
  env: 'BLOB_CACHER_THRESHOLD',
  valueName: 'rule',
  repeatable: THRESHOLD_SEPARATOR,
  parse: thresholdList,
  help:
    `pass/fail rule on a reported figure, repeatable (env: separated by "${THRESHOLD_SEPARATOR}"): ` +
    "'p99<200ms', " +
    "'MiB/s>500', 'errors==0', 'cost per 1k<0.01', 'chunked: p99<200ms', 'chunked faster than single'; " +
    'one that fails exits 99 (docs/thresholds.md)',
});
const format = option({
  key: 'format',
  flag: '--format',
  env: 'BLOB_CACHER_FORMAT',
  valueName: 'fmt',
  defaultValue: 'console',
  parse: oneOf(FORMATS),
  help: `report format on stdout (${FORMATS.join(', ')})`,
});
/** Output and repetition: the same for every command that measures. */
export const RUN_OPTIONS = table(
  option({
    key: 'runs',
    flag: '--runs',
    env: 'BLOB_CACHER_RUNS',
    valueName: 'n',
    parse: integer(1, 1000),
    help:
      'measured runs of each strategy, interleaved (default 5 and more until --min-time; given: ' +
      'exactly this many)',
  }),
  option({
    key: 'warmup',
    flag: '--warmup',
    env: 'BLOB_CACHER_WARMUP',
    valueName: 'n',
    parse: integer(0, 100),
    help:
      'warm-up runs first (the worker processes stay warm), recorded but not counted (default ' +
      '1; 0 with --duration)',
  }),
  option({
    key: 'maxRuns',
    flag: '--max-runs',
    env: 'BLOB_CACHER_MAX_RUNS',
    valueName: 'n',
    parse: integer(1, 10_000),
    help: `with --min-time: at most this many measured runs of each strategy (default ${DEFAULT_MAX_RUNS})`,
  }),
  option({
    key: 'precision',
    flag: '--precision',
    env: 'BLOB_CACHER_PRECISION',
    valueName: 'percent',
    parse: percentOrOff(50),
    help:
      "with --min-time: a strategy stops early once its median time's 95% interval is within " +
      'this of the median (default 2%; off: only --min-time or --max-runs stop it)',
  }),
  option({
    key: 'minTimeMs',
    flag: '--min-time',
    env: 'BLOB_CACHER_MIN_TIME',
    valueName: 'duration',
    parse: duration(0, MAX_TIMEOUT_MS),
    help:
      'keep a strategy running until its measured runs add up to this (default 3s unless --runs ' +
      'or --duration is given)',
  }),
  option({
    key: 'connections',
    flag: '--connections',
    env: 'BLOB_CACHER_CONNECTIONS',
    valueName: 'mode',
    defaultValue: 'cold',
    parse: oneOf(CONNECTION_MODES),
    help:
      'cold: every run opens its sockets as it goes (connect phases measured, as a starting ' +
      'process sees them); warm: MAX_SOCKETS per process opened before the barrier',
  }),
  option({
    key: 'durationMs',
    flag: '--duration',
    env: 'BLOB_CACHER_DURATION',
    valueName: 'duration',
    parse: duration(100, MAX_TIMEOUT_MS),
    help:
      'steady state: each run repeats its requests for this long (downloads the whole blob ' +
      'again and again, uploads keep putting files) and records every --interval; ranked by the ' +
      'rate while every worker ran (default runs: 1)',
  }),
  option({
    key: 'intervalMs',
    flag: '--interval',
    env: 'BLOB_CACHER_INTERVAL',
    valueName: 'duration',
    defaultValue: 1_000,
    parse: duration(100, MAX_TIMEOUT_MS),
    help:
      'with --duration: one point of the series this often (bytes, requests, errors, retries, ' +
      'p50/p99); with --metrics: one live point this often',
  }),
  option({
    key: 'autoterm',
    flag: '--autoterm',
    env: 'BLOB_CACHER_AUTOTERM',
    valueName: 'bool',
    defaultValue: false,
    parse: bool,
    help:
      'with --duration: end a run early once its rate has been stable (--autoterm-window, ' +
      '--autoterm-tolerance)',
  }),
  option({
    key: 'autotermWindowMs',
    flag: '--autoterm-window',
    env: 'BLOB_CACHER_AUTOTERM_WINDOW',
    valueName: 'duration',
    defaultValue: 10_000,
    parse: duration(200, MAX_TIMEOUT_MS),
    help: 'how long the rate must stay within the tolerance (10s)',
  }),
  option({
    key: 'autotermTolerance',
    flag: '--autoterm-tolerance',
    env: 'BLOB_CACHER_AUTOTERM_TOLERANCE',
    valueName: 'percent',
    defaultValue: 0.075,
    parse: percent(100),
    help: "how far each interval's rate may be from the window's mean (7.5%)",
  }),
  option({
    key: 'ratePerSecond',
    flag: '--rate',
    env: 'BLOB_CACHER_RATE',
    valueName: 'n/s',
    parse: rate,
    help:
      'open loop: send this many requests per second over all processes, each at its scheduled time ' +
      'whatever the earlier ones do; latency counts from that time (docs/open-loop.md)',
  }),
  option({
    key: 'arrival',
    flag: '--arrival',
    env: 'BLOB_CACHER_ARRIVAL',
    valueName: 'kind',
    parse: oneOf(ARRIVALS),
    help:
      'with --rate: uniform (evenly spaced sends, the default) or poisson (random gaps of the same mean, ' +
      'drawn from a fixed seed)',
  }),
  option({
    key: 'maxInFlight',
    flag: '--max-in-flight',
    env: 'BLOB_CACHER_MAX_IN_FLIGHT',
    valueName: 'n',
    parse: integer(1, 1_000_000),
    help:
      'with --rate: requests in flight at once over all processes (each its share, rounded up); a send ' +
      'past it is skipped, not delayed (default: PROCESSES x MAX_SOCKETS)',
  }),
  option({
    key: 'slo',
    flag: '--slo',
    env: 'BLOB_CACHER_SLO',
    valueName: 'pN<bound',
    parse: slo,
    help:
      'with --rate: the latency from the intended start to keep, e.g. p99<200ms; a rate keeps it when ' +
      'that percentile is within the bound and at least 99% of the offered sends succeed ' +
      '(a --rate sweep marks the highest: its knee)',
  }),
  option({
    key: 'maxRetries',
    flag: '--max-retries',
    env: 'BLOB_CACHER_MAX_RETRIES',
    valueName: 'n',
    defaultValue: 3,
    parse: integer(0, 20),
    help: 'retries per request for 408/429/5xx, resets and timeouts',
  }),
  option({
    key: 'timeoutMs',
    flag: '--timeout',
    env: 'BLOB_CACHER_TIMEOUT',
    valueName: 'duration',
    defaultValue: 30_000,
    parse: duration(10, MAX_TIMEOUT_MS),
    help:
      'per try: the longest a socket may stay idle, a stalled body included, noticed within a ' +
      'quarter more (30s, 500ms; at most 24h)',
  }),
  option({
    key: 'deadlineMs',
    flag: '--deadline',
    env: 'BLOB_CACHER_DEADLINE',
    valueName: 'duration',
    parse: duration(100, MAX_TIMEOUT_MS),
    help:
      'the whole session at most this long: then it stops as on SIGINT and writes what it ' +
      'measured (default: none; preflight alone has one of 2 x --timeout)',
  }),
  option({
    key: 'stopGraceMs',
    flag: '--stop-grace',
    env: 'BLOB_CACHER_STOP_GRACE',
    valueName: 'duration',
    defaultValue: 5_000,
    parse: duration(0, 3_600_000),
    help:
      'after a stop (SIGTERM, SIGINT, --deadline): the most time cleanup (deleting what the runs uploaded) ' +
      "may take, counted from the stop; what is left is named (5s: within docker stop's 10 s and " +
      "Kubernetes' 30 s grace)",
  }),
  option({
    key: 'progressIntervalMs',
    flag: '--progress-interval',
    env: 'BLOB_CACHER_PROGRESS_INTERVAL',
    valueName: 'duration',
    defaultValue: 5_000,
    parse: duration(100, MAX_TIMEOUT_MS),
    help: 'without a terminal: a progress line this often (5s)',
  }),
  option({
    key: 'metrics',
    flag: '--metrics',
    env: 'BLOB_CACHER_METRICS',
    valueName: 'sink',
    parse: metricsSinks,
    repeatable: ' ',
    help:
      'live figures while it runs, every --interval per contender: influx=FILE|URL (line ' +
      'protocol, appended or POSTed) or otlp=URL (OTLP/HTTP JSON); repeatable (docs/live-metrics.md)',
  }),
  option({
    key: 'metricsToken',
    flag: '--metrics-token',
    env: 'BLOB_CACHER_METRICS_TOKEN',
    valueName: 'token',
    parse: text,
    secret: true,
    help: 'with --metrics URL: sent as Authorization (InfluxDB v2 "Token …", OTLP "Bearer …")',
  }),
  option({
    key: 'trace',
    flag: '--trace',
    env: 'BLOB_CACHER_TRACE',
    valueName: 'bool',
    defaultValue: true,
    parse: bool,
    help: 'per-phase tracing (false: totals only, to measure what tracing costs)',
  }),
  option({
    key: 'resultsPath',
    flag: '--results',
    env: 'BLOB_CACHER_RESULTS',
    valueName: 'path',
    parse: text,
    help: 'results file (default results/<command>-<timestamp>.json)',
  }),
  format,
  thresholdOption,
  ...OUTPUT_OPTIONS,
);
export const REPORT_OPTIONS = table(format, thresholdOption, ...OUTPUT_OPTIONS);

/** A DNS-1123 label: Kubernetes object names, Secrets and service accounts. */
const k8sName: Parser<string> = (raw) =>
  /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/.test(raw.trim())
    ? raw.trim()
    : new Invalid(
        'a Kubernetes name: at most 63 lowercase letters, digits and "-", starting and ending with ' +
          'a letter or digit',
      );
/** A Kubernetes resource quantity: 2, 500m, 4Gi, 1.5. */
const quantity: Parser<string> = (raw) =>
  /^(\d+(\.\d+)?)(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/.test(raw.trim())
    ? raw.trim()
    : new Invalid('a Kubernetes quantity such as 2, 500m, 4Gi or 512Mi');

/** blob-cacher k8s-manifest: the Job of K clients; what each client runs comes after `--`. */
export const MANIFEST_OPTIONS = table(
  option({
    key: 'parallelism',
    flag: '--parallelism',
    env: 'BLOB_CACHER_PARALLELISM',
    valueName: 'k',
    parse: integer(1, 10_000),
    help: 'clients (pods), each on its own node by default',
  }),
  option({
    key: 'name',
    flag: '--name',
    env: 'BLOB_CACHER_K8S_NAME',
    valueName: 'name',
    defaultValue: 'blob-cacher',
    parse: k8sName,
    help: "the Job's name",
  }),
  option({
    key: 'namespace',
    flag: '--namespace',
    env: 'BLOB_CACHER_K8S_NAMESPACE',
    valueName: 'ns',
    parse: k8sName,
    help: "the Job's namespace (default: kubectl's)",
  }),
  option({
    key: 'image',
    flag: '--image',
    env: 'BLOB_CACHER_K8S_IMAGE',
    valueName: 'image',
    defaultValue: 'blob-cacher-node-perf:latest',
    parse: text,
    help: 'the image built from this Dockerfile, pushed where the cluster can pull it',
  }),
  option({
    key: 'secret',
    flag: '--secret',
    env: 'BLOB_CACHER_K8S_SECRET',
    valueName: 'name',
    parse: k8sName,
    help:
      "Secret whose keys become the clients' environment (STORAGE_CONNECTION_STRING, …) " +
      '(default blob-cacher-storage unless --service-account)',
  }),
  option({
    key: 'serviceAccount',
    flag: '--service-account',
    env: 'BLOB_CACHER_K8S_SERVICE_ACCOUNT',
    valueName: 'name',
    parse: k8sName,
    help: 'workload identity: run as this service account, pods labelled azure.workload.identity/use: "true"',
  }),
  option({
    key: 'cpu',
    flag: '--cpu',
    env: 'BLOB_CACHER_K8S_CPU',
    valueName: 'quantity',
    defaultValue: '2',
    parse: quantity,
    help: 'CPU per client, requests = limits',
  }),
  option({
    key: 'memory',
    flag: '--memory',
    env: 'BLOB_CACHER_K8S_MEMORY',
    valueName: 'quantity',
    defaultValue: '4Gi',
    parse: quantity,
    help: 'memory per client, requests = limits',
  }),
  option({
    key: 'clientsPerNode',
    flag: '--clients-per-node',
    env: 'BLOB_CACHER_K8S_CLIENTS_PER_NODE',
    valueName: 'n',
    defaultValue: 1,
    parse: integer(1, 1_000),
    help: 'at most this many clients on one node',
  }),
  option({
    key: 'activeDeadlineMs',
    flag: '--active-deadline',
    env: 'BLOB_CACHER_K8S_ACTIVE_DEADLINE',
    valueName: 'duration',
    defaultValue: 3_600_000,
    parse: duration(1_000, MAX_TIMEOUT_MS),
    help: 'the Job is ended after this long (activeDeadlineSeconds)',
  }),
);

/** blob-cacher collect: which run, how many clients it had, and the account its results are in. */
export const COLLECT_OPTIONS = table(
  logLevel,
  runIdOption,
  option({
    key: 'parallelism',
    flag: '--parallelism',
    env: 'BLOB_CACHER_PARALLELISM',
    valueName: 'k',
    parse: integer(1, 10_000),
    help: 'clients the run had (default: as its results say)',
  }),
  ...TARGET_OPTIONS,
  runStoreOption,
  format,
  envFile,
);

export const DOWNLOAD_OPTIONS = table(
  logLevel,
  option({
    key: 'sourceMethod',
    flag: '--source-method',
    env: 'SOURCE_METHOD',
    valueName: 'method',
    defaultValue: 'all',
    parse: methodList(DOWNLOAD_METHODS, METHOD_ALIASES),
    help:
      `download strategy, or several separated by commas (${DOWNLOAD_METHODS.join(', ')}; ` +
      `${aliasHelp}). all = the one-blob strategies; ` +
      `the many-blob workloads are named: ${manyBlobHelp}`,
  }),
  option({
    key: 'concurrency',
    flag: '--concurrency',
    env: 'CONCURRENCY',
    valueName: 'n',
    defaultValue: 4,
    parse: integer(1, 100_000),
    help: 'ranges, copies or parts per download',
  }),
  option({
    key: 'fileSize',
    flag: '--file-size',
    env: 'FILE_SIZE',
    valueName: 'size|dist',
    parse: sizeDistribution(0, MAX_OBJECT_BYTES),
    help:
      'size of the fixture blob (80MiB, 100KB, 4096B; a bare number means KB, as for upload: ' +
      `102 = 102KB; at most 1TiB); of each file for ${names(manyBlobFirsts, true)} ` +
      `(default ${DEFAULT_BLOB_SIZE_TEXT}; ${DEFAULT_FILE_SIZE_TEXT} for the many-blob workloads); ` +
      `or, for those, a ${DISTRIBUTION_HELP}`,
  }),
  SEED_OPTION,
  MIX_OPTION,
  option({
    key: 'fileCount',
    flag: '--file-count',
    env: 'FILE_COUNT',
    valueName: 'n',
    defaultValue: DEFAULT_FILE_COUNT,
    parse: integer(1, 10_000_000),
    help: `${names(manyBlobFirsts)}: blobs in the fixture set (many/<count>x<bytes>/file-NNNNNNN)`,
  }),
  option({
    key: 'pageSize',
    flag: '--page-size',
    env: 'BLOB_CACHER_PAGE_SIZE',
    valueName: 'n',
    defaultValue: DEFAULT_PAGE_SIZE,
    parse: integer(1, 5000),
    help: `${names(readersOf('download', 'pageSize'))}: names per List Blobs page (maxresults)`,
  }),
  option({
    key: 'rangeSizeBytes',
    flag: '--range-size',
    env: 'BLOB_CACHER_RANGE_SIZE',
    valueName: 'size',
    parse: size(1, MAX_OBJECT_BYTES),
    help:
      `${names(readersOf('download', 'rangeSize'), true)}: ranges of this size, --concurrency ` +
      'in flight (default: --concurrency equal ranges); train: a larger sample is read in ranges ' +
      'of this size',
  }),
  processes,
  maxSockets,
  option({
    key: 'hedge',
    flag: '--hedge',
    env: 'BLOB_CACHER_HEDGE',
    valueName: 'delay|pNN',
    parse: hedgeAfter(),
    help:
      `${names(HEDGEABLE)}: a request still waiting after this (20ms, or p90 of the worker's ` +
      `earlier requests of this contender) gets a duplicate (to the next copy where the blob is ` +
      `read from copies); the first to finish wins, the other is aborted`,
  }),
  // No default here: --hedge-on given without --hedge is refused (config/load.ts), so it must show.
  option({
    key: 'hedgeOn',
    flag: '--hedge-on',
    env: 'BLOB_CACHER_HEDGE_ON',
    valueName: 'when',
    parse: oneOf(HEDGE_ON),
    help:
      `with --hedge: what a request must have by the delay ` +
      `(${HEDGE_ON.join(', ')}; default ${HEDGE_ON[0]})`,
  }),
  option({
    key: 'sink',
    flag: '--sink',
    env: 'BLOB_CACHER_SINK',
    valueName: 'kind',
    defaultValue: 'memory',
    parse: oneOf(SINKS),
    help: `where downloaded bytes go (${SINKS.join(', ')})`,
  }),
  option({
    key: 'outPath',
    flag: '--out',
    env: 'BLOB_CACHER_OUT',
    valueName: 'path',
    parse: text,
    help: 'output file for the file and sparse-file sinks (default: a temporary file, removed)',
  }),
  option({
    key: 'force',
    flag: '--force',
    env: 'BLOB_CACHER_FORCE',
    valueName: 'bool',
    defaultValue: false,
    parse: bool,
    help: 'overwrite an existing --out file',
  }),
  httpClient,
  option({
    key: 'bufferSizeBytes',
    flag: '--buffer-size',
    env: 'BLOB_CACHER_BUFFER_SIZE',
    valueName: 'size',
    defaultValue: 256 * KIB,
    parse: size(1, MAX_BUFFER_BYTES),
    help:
      'read buffer per socket (raw client) or highWaterMark of the response stream (node ' +
      'client); at most 256MiB',
  }),
  ...TARGET_OPTIONS,
  option({
    key: 'cleanup',
    flag: '--cleanup',
    env: 'BLOB_CACHER_CLEANUP',
    valueName: 'bool',
    defaultValue: false,
    parse: bool,
    help: 'delete fixtures this run created',
  }),
  ...RUN_OPTIONS,
  ...SCALEOUT_OPTIONS,
  envFile,
);

export const UPLOAD_OPTIONS = table(
  logLevel,
  option({
    key: 'uploadMethod',
    flag: '--upload-method',
    env: 'BLOB_CACHER_UPLOAD_METHOD',
    valueName: 'method',
    defaultValue: DEFAULT_UPLOAD_STRATEGY,
    parse: oneOf(UPLOAD_METHODS),
    help: `upload strategy (${UPLOAD_METHODS.join(', ')})`,
  }),
  option({
    key: 'fileCount',
    flag: '--file-count',
    env: 'FILE_COUNT',
    valueName: 'n',
    defaultValue: 2400,
    parse: integer(1, 10_000_000),
    help: `blobs uploaded by ${names(manyBlobWorkloadNames(UPLOAD_STRATEGIES))}`,
  }),
  // FILE_SIZE=102 means 102 KB, as the card's users pass it; units (100KiB, 102KB, 4096B) are honoured as
  // given.
  option({
    key: 'fileSize',
    flag: '--file-size',
    env: 'FILE_SIZE',
    valueName: 'size|dist',
    parse: sizeDistribution(1, MAX_PUT_BLOB_BYTES),
    help:
      'size of each small file; a bare number means KB (102 = 102KB); at most 5000MiB ' +
      `(default ${DEFAULT_FILE_SIZE_TEXT}); or a ${DISTRIBUTION_HELP}`,
  }),
  SEED_OPTION,
  MIX_OPTION,
  option({
    key: 'blobSizeBytes',
    flag: '--blob-size',
    env: 'BLOB_CACHER_BLOB_SIZE',
    valueName: 'size',
    defaultValue: 300 * MIB,
    parse: size(0, MAX_OBJECT_BYTES),
    help: `size of the large blob uploaded by ${names(readersOf('upload', 'blobSize'), true)} (at most 1TiB)`,
  }),
  option({
    key: 'blockSizeBytes',
    flag: '--block-size',
    env: 'BLOB_CACHER_BLOCK_SIZE',
    valueName: 'size',
    defaultValue: 8 * MIB,
    parse: size(1, MAX_BLOCK_BYTES),
    help: `staged block size for ${names(readersOf('upload', 'blockSize'), true)} (at most 4000MiB)`,
  }),
  option({
    key: 'concurrency',
    flag: '--concurrency',
    env: 'CONCURRENCY',
    valueName: 'n',
    defaultValue: 8,
    parse: integer(1, 100_000),
    help: `blocks in flight (${names(readersOf('upload', 'concurrency'))})`,
  }),
  option({
    key: 'thresholdBytes',
    flag: '--single-shot-size',
    env: 'BLOB_CACHER_SINGLE_SHOT_SIZE',
    valueName: 'size',
    defaultValue: 0,
    parse: size(0, MAX_SINGLE_SHOT_BYTES),
    help: 'blobs at or below this go as one Put Blob (SDK maxSingleShotSize, at most 256MiB)',
  }),
  processes,
  maxSockets,
  httpClient,
  ...TARGET_OPTIONS,
  option({
    key: 'keep',
    flag: '--keep',
    env: 'BLOB_CACHER_KEEP',
    valueName: 'bool',
    defaultValue: false,
    parse: bool,
    help: 'keep the uploaded blobs (deleted by default)',
  }),
  ...RUN_OPTIONS,
  ...SCALEOUT_OPTIONS,
  envFile,
);

/** The largest shard: a block blob of 50,000 blocks of 4000MiB is more, but no rank holds more in memory. */
const MAX_SHARD_BYTES = 64 * 1024 * MIB;

/**
 * blob-cacher checkpoint: K ranks (--processes) each write a shard of --shard-size at once, then read
 * it back in ranges; the rest are the upload command's target and run options.
 */
export const CHECKPOINT_OPTIONS = table(
  logLevel,
  option({
    key: 'shardSizeBytes',
    flag: '--shard-size',
    env: 'BLOB_CACHER_SHARD_SIZE',
    valueName: 'size',
    defaultValue: 256 * MIB,
    parse: size(1, MAX_SHARD_BYTES),
    help: "each rank's shard, written at once by every rank and read back (at most 64GiB)",
  }),
  option({
    key: 'shardWrite',
    flag: '--shard-write',
    env: 'BLOB_CACHER_SHARD_WRITE',
    valueName: 'how',
    defaultValue: 'all' as ShardWriteChoice,
    parse: oneOf(SHARD_WRITE_CHOICES),
    help:
      'blocks: staged blocks + Put Block List per shard; put: one Put Blob per shard, where it fits ' +
      'under --single-shot-size; all: each that fits (a plain --url: one PUT per shard)',
  }),
  option({
    key: 'blockSizesBytes',
    flag: '--block-size',
    env: 'BLOB_CACHER_BLOCK_SIZE',
    valueName: 'size[,size…]',
    defaultValue: [8 * MIB],
    parse: sizeList(1, MAX_BLOCK_BYTES),
    help:
      'staged block size of shard-blocks, and the range size of the read-back (at most 4000MiB); ' +
      'several, comma-separated, are compared as cells of one session',
  }),
  option({
    key: 'thresholdBytes',
    flag: '--single-shot-size',
    env: 'BLOB_CACHER_SINGLE_SHOT_SIZE',
    valueName: 'size',
    defaultValue: MAX_SINGLE_SHOT_BYTES,
    parse: size(0, MAX_SINGLE_SHOT_BYTES),
    help: 'shards at or below this are also written as one Put Blob (shard-put; default and at most 256MiB)',
  }),
  option({ ...processes, defaultValue: 4, help: 'ranks: worker processes, one shard each' }),
  maxSockets,
  httpClient,
  ...TARGET_OPTIONS,
  option({
    key: 'keep',
    flag: '--keep',
    env: 'BLOB_CACHER_KEEP',
    valueName: 'bool',
    defaultValue: false,
    parse: bool,
    help: 'keep the shards (deleted after each run by default)',
  }),
  ...RUN_OPTIONS,
  envFile,
);

/** Environment names users already pass, kept as they are; every other one is BLOB_CACHER_*. */
export const LEGACY_ENV_NAMES: readonly string[] = [
  'URL',
  'PROCESSES',
  'MAX_SOCKETS',
  'FILE_SIZE',
  'FILE_COUNT',
  'CONCURRENCY',
  'SOURCE_METHOD',
  'LOG_LEVEL',
];

/** blob-cacher tune: what the search may spend; the rest are the download or upload options. */
export const TUNE_OPTIONS = table(
  option({
    key: 'budgetMs',
    flag: '--budget',
    env: 'BLOB_CACHER_BUDGET',
    valueName: 'duration',
    defaultValue: 120_000,
    parse: duration(1_000, MAX_TIMEOUT_MS),
    help: 'the measured time the search may spend (2m): it stops there with the best so far',
  }),
);

/** MLPerf Storage's training workloads, whose sample size, batch, compute and pass mark `--preset` gives. */
export const TRAIN_PRESETS = ['resnet50', 'cosmoflow', 'unet3d'] as const;
export type TrainPreset = (typeof TRAIN_PRESETS)[number];

/**
 * blob-cacher train: the read pattern of a training job; the rest are the download options. No default
 * here where a preset gives one: config/train.ts fills in the preset's, then the plain defaults.
 */
export const TRAIN_OPTIONS = table(
  option({
    key: 'preset',
    flag: '--preset',
    env: 'BLOB_CACHER_PRESET',
    valueName: 'name',
    parse: oneOf(TRAIN_PRESETS),
    help:
      `an MLPerf Storage workload (${TRAIN_PRESETS.join(', ')}): its sample size, batch size, ` +
      'compute per batch and pass mark, each unless given',
  }),
  option({
    key: 'epochs',
    flag: '--epochs',
    env: 'BLOB_CACHER_EPOCHS',
    valueName: 'n',
    defaultValue: 3,
    parse: integer(1, 1000),
    help: 'passes over the sample set per run, each in a new shuffled order (3)',
  }),
  option({
    key: 'batchSize',
    flag: '--batch-size',
    env: 'BLOB_CACHER_BATCH_SIZE',
    valueName: 'n',
    parse: integer(1, 1_000_000),
    help: "samples per batch, per accelerator (default 8, or the preset's)",
  }),
  option({
    key: 'computeMs',
    flag: '--compute',
    env: 'BLOB_CACHER_COMPUTE',
    valueName: 'duration',
    parse: duration(1, 60 * 60 * 1000),
    help: "the accelerator's time per batch, a timer (default 50ms, or the preset's)",
  }),
  option({
    key: 'prefetch',
    flag: '--prefetch',
    env: 'BLOB_CACHER_PREFETCH',
    valueName: 'n',
    defaultValue: 2,
    parse: integer(0, 1024),
    help: 'batches read ahead of the one in compute (2; 0: read a batch when asked); a list sweeps it',
  }),
  option({
    key: 'passMark',
    flag: '--pass-mark',
    env: 'BLOB_CACHER_PASS_MARK',
    valueName: 'percent',
    parse: percent(100),
    help: "the accelerator utilisation a run must keep (default 90%, or the preset's: 70% for cosmoflow)",
  }),
);

/** `name=size` pairs, comma-separated: the objects an emulated target starts with. */
const objectList: Parser<{ name: string; sizeBytes: number }[]> = (raw) => {
  const out: { name: string; sizeBytes: number }[] = [];
  for (const part of raw.split(',')) {
    const m = /^([A-Za-z0-9._/-]+)=(.+)$/.exec(part.trim());
    const sizeBytes = m ? size(0, 16 * 1024 * MIB)(m[2]!) : undefined;
    if (!m || typeof sizeBytes !== 'number')
      return new Invalid('name=size pairs such as large.bin=80MiB,small.bin=1KiB (at most 16GiB each)');
    const name = m[1]!.replace(/^\/+/, '');
    // A URL's path is normalised before it is asked for (`/../x` is `/x`, `a//b` stays, `a/` is a
    // folder): a name with such a segment could never be fetched under its name.
    if (name.split('/').some((segment) => segment === '' || segment === '.' || segment === '..')) {
      return new Invalid(
        `names of path segments without ".", ".." or empty ones (${JSON.stringify(name)} ` +
          'could never be fetched), such as data/large.bin=80MiB',
      );
    }
    out.push({ name, sizeBytes });
  }
  return out;
};

/** One request in K stalls S before its first byte or mid-body: `K:S` or `K:S:mid-body`. */
const stragglerSpec: Parser<{ every: number; stallMs: number; at: 'first-byte' | 'mid-body' }> = (raw) => {
  const parts = raw.trim().split(':');
  const [k, s, at = 'first-byte'] = parts;
  const every = integer(1, 1_000_000)(k ?? '');
  const stallMs = duration(1, MAX_TIMEOUT_MS)(s ?? '');
  const atKnown = at === 'first-byte' || at === 'mid-body';
  if (parts.length > 3 || typeof every !== 'number' || typeof stallMs !== 'number' || !atKnown) {
    return new Invalid(
      'K:STALL[:first-byte|mid-body], e.g. 50:500ms (one request in 50 stalls 500 ms before its first byte)',
    );
  }
  return { every, stallMs, at };
};

/**
 * blob-cacher emulate: a local target with a known optimum, for rehearsing tune and hedging (an emulation,
 * not Azure).
 */
export const EMULATE_OPTIONS = table(
  option({
    key: 'host',
    flag: '--host',
    env: 'BLOB_CACHER_EMULATE_HOST',
    valueName: 'address',
    defaultValue: '127.0.0.1',
    parse: text,
    help: 'address to listen on',
  }),
  option({
    key: 'port',
    flag: '--port',
    env: 'BLOB_CACHER_EMULATE_PORT',
    valueName: 'n',
    defaultValue: 8080,
    parse: integer(0, 65_535),
    help: 'port to listen on (0: a free one, printed)',
  }),
  option({
    key: 'perConnectionBytesPerSecond',
    flag: '--rate-per-connection',
    env: 'BLOB_CACHER_EMULATE_RATE_PER_CONNECTION',
    valueName: 'size',
    parse: size(1, 100 * 1024 * MIB),
    help: "each connection's pace, bytes per second (e.g. 4MiB)",
  }),
  option({
    key: 'totalBytesPerSecond',
    flag: '--total',
    env: 'BLOB_CACHER_EMULATE_TOTAL',
    valueName: 'size',
    parse: size(1, 1000 * 1024 * MIB),
    help: 'all connections together, bytes per second (e.g. 64MiB)',
  }),
  option({
    key: 'opsPerSecond',
    flag: '--ops',
    env: 'BLOB_CACHER_EMULATE_OPS',
    valueName: 'n',
    parse: integer(1, 10_000_000),
    help: "requests a second; past it 503 ServerBusy with Azure's account-limit body",
  }),
  option({
    key: 'stragglers',
    flag: '--straggle',
    env: 'BLOB_CACHER_EMULATE_STRAGGLE',
    valueName: 'K:STALL',
    parse: stragglerSpec,
    help: 'one request in K stalls STALL (K:STALL[:first-byte|mid-body], e.g. 50:500ms)',
  }),
  option({
    key: 'objects',
    flag: '--objects',
    env: 'BLOB_CACHER_EMULATE_OBJECTS',
    valueName: 'name=size,…',
    defaultValue: [{ name: 'large.bin', sizeBytes: 80 * MIB }],
    parse: objectList,
    help: 'objects it starts with, of deterministic content (default large.bin=80MiB)',
  }),
  logLevel,
);

/** `check`'s formats: a table, or what a CI system reads (JSON, JUnit). */
export const CHECK_FORMATS = ['console', 'md', 'csv', 'json', 'junit'] as const;
export type CheckFormat = (typeof CHECK_FORMATS)[number];

/** blob-cacher check RESULTS --baseline DIR: a results file against the last runs in the same environment. */
export const CHECK_OPTIONS = table(
  option({
    key: 'baseline',
    flag: '--baseline',
    env: 'BLOB_CACHER_BASELINE',
    valueName: 'dir',
    parse: text,
    help:
      'directory of earlier results files; those run in the same environment ' +
      '(CPU model and count, Node, VM size and region, target kind) are the baseline',
  }),
  option({
    key: 'tolerance',
    flag: '--tolerance',
    env: 'BLOB_CACHER_TOLERANCE',
    valueName: 'percent',
    defaultValue: 0.1,
    parse: percent(100),
    help:
      "a throughput drop the rank test finds, beyond this share of the baseline's median, " +
      'fails the check (10%)',
  }),
  option({
    key: 'p99Tolerance',
    flag: '--p99-tolerance',
    env: 'BLOB_CACHER_P99_TOLERANCE',
    valueName: 'percent',
    defaultValue: 0.2,
    parse: percent(1000),
    help:
      "a p99 rise the rank test finds, beyond this share of the baseline's median, " +
      'fails the check (20%)',
  }),
  option({
    key: 'minBaseline',
    flag: '--min-baseline',
    env: 'BLOB_CACHER_MIN_BASELINE',
    valueName: 'n',
    defaultValue: 3,
    parse: integer(1, 1000),
    help: 'refuse (exit 2) with fewer matching baseline files than this',
  }),
  option({
    key: 'last',
    flag: '--last',
    env: 'BLOB_CACHER_LAST',
    valueName: 'n',
    defaultValue: 5,
    parse: integer(1, 1000),
    help: 'the baseline is the newest this many matching files',
  }),
  option({
    key: 'format',
    flag: '--format',
    env: 'BLOB_CACHER_FORMAT',
    valueName: 'fmt',
    defaultValue: 'console',
    parse: oneOf(CHECK_FORMATS),
    help: `report format on stdout (${CHECK_FORMATS.join(', ')})`,
  }),
);

/** A replay's report formats: every one but JUnit, which has no test cases to give. */
const REPLAY_REPORT_FORMATS = FORMATS.filter(
  (f): f is Exclude<(typeof FORMATS)[number], 'junit'> => f !== 'junit',
);

/** --speed: `2x`, `0.5x` or a bare factor; the recorded offsets are divided by it. */
const speedFactor: Parser<number> = (raw) => {
  const m = /^(\d+(?:\.\d+)?)x?$/i.exec(raw.trim());
  const n = m ? Number(m[1]) : NaN;
  return n >= 0.01 && n <= 1000 ? n : new Invalid('a factor from 0.01x to 1000x, such as 2x or 0.5x');
};

/** blob-cacher replay FILE: a recorded workload sent again at its recorded pace (docs/replay.md). */
export const REPLAY_OPTIONS = table(
  option({
    key: 'speed',
    flag: '--speed',
    env: 'BLOB_CACHER_SPEED',
    valueName: 'factor',
    defaultValue: 1,
    parse: speedFactor,
    help: 'replay this many times faster than recorded (2x: each step at half its recorded offset)',
  }),
  option({
    key: 'keepNames',
    flag: '--keep-names',
    env: 'BLOB_CACHER_KEEP_NAMES',
    valueName: 'bool',
    defaultValue: false,
    parse: bool,
    help:
      "use the log's blob names as they are (checked as blob names); " +
      'default: a stable hash of each under replay/',
  }),
  option({
    key: 'maxInFlight',
    flag: '--max-in-flight',
    env: 'BLOB_CACHER_MAX_IN_FLIGHT',
    valueName: 'n',
    defaultValue: 256,
    parse: integer(1, 100_000),
    help: 'requests out at once; a step due past it is skipped and counted, never sent late',
  }),
  option({
    key: 'timeoutMs',
    flag: '--timeout',
    env: 'BLOB_CACHER_TIMEOUT',
    valueName: 'duration',
    defaultValue: 30_000,
    parse: duration(10, MAX_TIMEOUT_MS),
    help: 'per request: the longest a socket may stay idle (30s, 500ms)',
  }),
  option({
    key: 'resultsPath',
    flag: '--results',
    env: 'BLOB_CACHER_RESULTS',
    valueName: 'path',
    parse: text,
    help: 'results file (default results/replay-<timestamp>.json); blob-cacher report reads it back',
  }),
  option({
    key: 'format',
    flag: '--format',
    env: 'BLOB_CACHER_FORMAT',
    valueName: 'fmt',
    defaultValue: 'console',
    parse: oneOf(REPLAY_REPORT_FORMATS),
    help: `report format on stdout (${REPLAY_REPORT_FORMATS.join(', ')})`,
  }),
  logLevel,
  ...TARGET_OPTIONS,
  envFile,
);
