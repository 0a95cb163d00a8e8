// Resolves options once, precedence flag > environment > .env > default, and validates them.
// Nothing downstream reads argv or process.env.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve as resolvePath } from 'node:path';
import { Command, CommanderError, Option } from 'commander';
import { parse as parseDotenv } from 'dotenv';
import { redact } from '../log/logger.js';
import { ConfigError } from './errors.js';
import { formatBytes } from './sizes.js';
import { DOWNLOAD_OPTIONS, UPLOAD_OPTIONS, type DownloadMethod, type HttpClient, type LogLevel, type OptionSpec, type ReportFormat, type SinkKind, type UploadMethod } from './options.js';

export type Credentials =
  | { kind: 'embedded' }
  | { kind: 'url'; url: string }
  | { kind: 'key'; account: string; key: string; endpoint: string }
  | { kind: 'sas'; account: string; sas: string; endpoint: string };

/** Repetition and output, shared by the measuring commands. */
export interface RunOptions {
  trace: boolean;
  maxRetries: number;
  timeoutMs: number;
  runs: number;
  warmup: number;
  resultsPath?: string;
  format: ReportFormat;
}

function runOptions(o: Record<string, unknown>): RunOptions {
  return { trace: o.trace as boolean, maxRetries: o.maxRetries as number, timeoutMs: o.timeoutMs as number, runs: o.runs as number, warmup: o.warmup as number, resultsPath: o.resultsPath as string | undefined, format: o.format as ReportFormat };
}

export interface DownloadConfig extends RunOptions {
  logLevel: LogLevel;
  sourceMethod: DownloadMethod;
  concurrency: number;
  fileSizeBytes: number;
  processes: number;
  maxSockets: number;
  sink: SinkKind;
  outPath?: string;
  bufferSizeBytes: number;
  /** chunked/round-robin/sdk: ranges of this size with `concurrency` in flight; unset: `concurrency` equal ranges. */
  rangeSizeBytes?: number;
  /** How GETs are made: our raw HTTP/1.1 client or node:http. */
  httpClient: HttpClient;
  container: string;
  cleanup: boolean;
  credentials: Credentials;
}

export interface UploadConfig extends RunOptions {
  logLevel: LogLevel;
  uploadMethod: UploadMethod;
  fileCount: number;
  fileSizeBytes: number;
  blobSizeBytes: number;
  blockSizeBytes: number;
  concurrency: number;
  thresholdBytes: number;
  processes: number;
  maxSockets: number;
  container: string;
  keep: boolean;
  httpClient: HttpClient;
  /** 'url': a plain HTTP(S) server; files are PUT below the URL (small-files only). */
  credentials: Credentials;
}

export interface Sources {
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  /** Where a relative --dotenv file is read from. */
  cwd?: string;
}

/** The property commander stores a flag under: --file-size -> fileSize. */
export function flagAttribute(spec: OptionSpec): string {
  return spec.flag.replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

function describe(spec: OptionSpec, origin: 'flag' | 'env' | 'dotenv'): string {
  return origin === 'flag' || !spec.env ? spec.flag : `${spec.env} (${spec.flag})`;
}

/** Builds the commander program from the option table; used for parsing and for --help. */
export function buildProgram(name: string, specs: readonly OptionSpec[], summary: string): Command {
  const program = new Command(name).description(summary).allowExcessArguments(false).helpOption('-h, --help');
  for (const spec of specs) {
    const flags = spec.valueName ? `${spec.flag} <${spec.valueName}>` : spec.flag;
    const env = spec.env ? ` [env ${spec.env}]` : '';
    const shown = spec.key.endsWith('Bytes') && typeof spec.defaultValue === 'number' ? formatBytes(spec.defaultValue).replace(' ', '') : String(spec.defaultValue);
    const dflt = spec.defaultValue !== undefined && !spec.secret ? ` (default ${shown})` : '';
    program.addOption(new Option(flags, `${spec.help}${env}${dflt}`));
  }
  return program;
}

/** Parses argv with commander; usage errors become ConfigError, --help returns undefined. */
export function parseFlags(program: Command, argv: readonly string[]): Record<string, unknown> | undefined {
  let helped = false;
  program.exitOverride().configureOutput({
    writeOut: (s) => {
      helped = true;
      process.stdout.write(s);
    },
    writeErr: () => {},
  });
  try {
    program.parse([...argv], { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      if (helped || err.code === 'commander.helpDisplayed' || err.code === 'commander.version') return undefined;
      const msg = err.message
        .replace(/^error: /, '')
        // An unknown --name=value is echoed whole by commander; the value may be a key.
        .replace(/'(--[^'=\s]+)=[^']*'/g, "'$1'")
        // Commander puts "(Did you mean --x?)" on a second line; usage errors are one line.
        .replace(/\s*\n\s*/g, ' ')
        .replace(/\.$/, '');
      throw new ConfigError(`${msg}; run with --help to see the options`);
    }
    throw err;
  }
  return program.opts();
}

function readDotenv(path: string, explicit: boolean, cwd: string): Record<string, string> {
  const full = path.startsWith('/') ? path : `${cwd}/${path}`;
  try {
    return parseDotenv(readFileSync(full));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (!explicit && code === 'ENOENT') return {};
    const why = code === 'ENOENT' ? 'does not exist' : code === 'EISDIR' ? 'is a directory' : 'cannot be read';
    throw new ConfigError(`env file ${path} ${why}; fix the path given to --dotenv / ENV_FILE, or remove it`);
  }
}

/** Resolves every option in `specs` to a typed value (undefined where unset and without default). */
export function resolveOptions(
  specs: readonly OptionSpec[],
  flags: Record<string, unknown>,
  sources: Sources,
): Record<string, unknown> {
  const envFileSpec = specs.find((s) => s.key === 'envFile');
  const envFileFlag = envFileSpec ? (flags[flagAttribute(envFileSpec)] as string | undefined) : undefined;
  // An empty ENV_FILE= is unset, as for every other variable below.
  const envFileEnv = envFileSpec?.env ? sources.env[envFileSpec.env] || undefined : undefined;
  const envFile = envFileFlag ?? envFileEnv ?? '.env';
  const dotenv = envFileSpec ? readDotenv(envFile, envFileFlag !== undefined || envFileEnv !== undefined, sources.cwd ?? process.cwd()) : {};

  const out: Record<string, unknown> = {};
  for (const spec of specs) {
    const flagValue = flags[flagAttribute(spec)];
    let raw: string | undefined;
    let origin: 'flag' | 'env' | 'dotenv' = 'flag';
    if (flagValue !== undefined) raw = flagValue === true ? '' : String(flagValue);
    else if (spec.env && sources.env[spec.env] !== undefined && sources.env[spec.env] !== '') {
      raw = sources.env[spec.env];
      origin = 'env';
    } else if (spec.env && dotenv[spec.env] !== undefined && dotenv[spec.env] !== '') {
      raw = dotenv[spec.env];
      origin = 'dotenv';
    }
    if (raw === undefined) {
      out[spec.key] = spec.defaultValue;
      continue;
    }
    const value = spec.parse(raw);
    if (value !== null && typeof value === 'object' && 'invalid' in value) {
      const shown = spec.secret ? '' : ` "${raw}"`;
      throw new ConfigError(`invalid ${describe(spec, origin)}${shown}: expected ${(value as { invalid: string }).invalid}`);
    }
    out[spec.key] = value;
  }
  return out;
}

interface ParsedConnectionString {
  account: string;
  key?: string;
  sas?: string;
  endpoint: string;
}

export function parseConnectionString(cs: string): ParsedConnectionString {
  const fields = new Map<string, string>();
  for (const part of cs.split(';')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    if (eq <= 0) throw new ConfigError('malformed STORAGE_CONNECTION_STRING (--connection-string): expected Key=Value pairs separated by ";"');
    fields.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim());
  }
  if (fields.get('usedevelopmentstorage') === 'true') {
    throw new ConfigError('STORAGE_CONNECTION_STRING says UseDevelopmentStorage=true; leave credentials unset to use the embedded Azurite');
  }
  const account = fields.get('accountname');
  const key = fields.get('accountkey');
  const sas = fields.get('sharedaccesssignature');
  const blobEndpoint = fields.get('blobendpoint');
  if (!account && !blobEndpoint) {
    throw new ConfigError('malformed STORAGE_CONNECTION_STRING (--connection-string): it names no AccountName or BlobEndpoint');
  }
  if (!key && !sas) {
    throw new ConfigError('malformed STORAGE_CONNECTION_STRING (--connection-string): it has neither AccountKey nor SharedAccessSignature');
  }
  const protocol = fields.get('defaultendpointsprotocol') ?? 'https';
  const suffix = fields.get('endpointsuffix') ?? 'core.windows.net';
  const endpoint = blobEndpoint ?? `${protocol}://${account}.blob.${suffix}`;
  if (!URL.canParse(endpoint) || !/^https?:$/.test(new URL(endpoint).protocol)) {
    throw new ConfigError('malformed STORAGE_CONNECTION_STRING (--connection-string): its blob endpoint is not an http:// or https:// URL');
  }
  let accountName = account;
  if (!accountName) {
    // Path-style endpoints (Azurite, IP hosts) name the account in the path; otherwise the host does.
    const u = new URL(endpoint);
    const firstSegment = u.pathname.split('/').find(Boolean);
    accountName = firstSegment ?? u.hostname.split('.')[0] ?? u.hostname;
  }
  return { account: accountName, key, sas, endpoint: endpoint.replace(/\/+$/, '') };
}

export function resolveCredentials(o: Record<string, unknown>): Credentials {
  const url = o.url as string | undefined;
  const account = o.account as string | undefined;
  const key = o.key as string | undefined;
  const sas = o.sas as string | undefined;
  const cs = o.connectionString as string | undefined;
  const accountGiven = account !== undefined || key !== undefined || sas !== undefined || cs !== undefined;
  if (url !== undefined) {
    if (accountGiven) throw new ConfigError('both URL (--url) and storage credentials are set; give one target, not both');
    return { kind: 'url', url };
  }
  if (cs !== undefined) {
    if (account !== undefined || key !== undefined || sas !== undefined) {
      throw new ConfigError('STORAGE_CONNECTION_STRING is set together with STORAGE_ACCOUNT/KEY/SAS; give one form of credentials');
    }
    const p = parseConnectionString(cs);
    if (p.key) return { kind: 'key', account: p.account, key: p.key, endpoint: p.endpoint };
    return { kind: 'sas', account: p.account, sas: p.sas!.replace(/^\?/, ''), endpoint: p.endpoint };
  }
  if (account === undefined && (key !== undefined || sas !== undefined)) {
    throw new ConfigError(`${key !== undefined ? 'STORAGE_KEY' : 'STORAGE_SAS'} is set without STORAGE_ACCOUNT; set STORAGE_ACCOUNT (--account) too`);
  }
  if (account !== undefined) {
    if (!/^[a-z0-9]{3,24}$/.test(account)) {
      throw new ConfigError(`invalid STORAGE_ACCOUNT "${account}": expected 3-24 lowercase letters and digits`);
    }
    const endpoint = `https://${account}.blob.core.windows.net`;
    if (key !== undefined && sas !== undefined) throw new ConfigError('both STORAGE_KEY and STORAGE_SAS are set; give one of them');
    if (key !== undefined) {
      if (!/^[A-Za-z0-9+/]+={0,2}$/.test(key)) throw new ConfigError('invalid STORAGE_KEY (--key): expected the base64 account key');
      return { kind: 'key', account, key, endpoint };
    }
    if (sas !== undefined) return { kind: 'sas', account, sas: sas.replace(/^\?/, ''), endpoint };
    throw new ConfigError('STORAGE_ACCOUNT is set but neither STORAGE_KEY nor STORAGE_SAS; set one of them (or STORAGE_CONNECTION_STRING)');
  }
  return { kind: 'embedded' };
}

const URL_METHODS: readonly DownloadMethod[] = ['single', 'chunked', 'all'];

export function loadDownloadConfig(flags: Record<string, unknown>, sources: Sources): DownloadConfig {
  const o = resolveOptions(DOWNLOAD_OPTIONS, flags, sources);
  const credentials = resolveCredentials(o);
  const sourceMethod = o.sourceMethod as DownloadMethod;
  if (credentials.kind === 'url' && !URL_METHODS.includes(sourceMethod)) {
    throw new ConfigError(`--source-method ${sourceMethod} needs a blob target; with --url use single, chunked or all`);
  }
  const sink = o.sink as SinkKind;
  const outPath = o.outPath as string | undefined;
  if (outPath !== undefined) {
    const dir = dirname(resolvePath(sources.cwd ?? process.cwd(), outPath));
    if (!existsSync(dir)) throw new ConfigError(`--out ${outPath}: the directory ${dir} does not exist; create it or choose another path`);
    if (existsSync(resolvePath(sources.cwd ?? process.cwd(), outPath)) && !o.force) {
      throw new ConfigError(`--out ${outPath} already exists; add --force to overwrite it, or choose another path`);
    }
  }
  if (sink === 'file' && (o.processes as number) > 1) {
    throw new ConfigError('--sink file writes one sequential stream and needs --processes 1; use --sink sparse-file with several processes');
  }
  if (outPath !== undefined && (sink === 'memory' || sink === 'discard')) {
    throw new ConfigError(`--out is only used by the file and sparse-file sinks; add --sink file or drop --out`);
  }
  return {
    logLevel: o.logLevel as LogLevel,
    sourceMethod,
    concurrency: o.concurrency as number,
    fileSizeBytes: o.fileSizeBytes as number,
    processes: o.processes as number,
    maxSockets: o.maxSockets as number,
    sink,
    outPath,
    bufferSizeBytes: o.bufferSizeBytes as number,
    httpClient: o.httpClient as HttpClient,
    rangeSizeBytes: o.rangeSizeBytes as number | undefined,
    container: o.container as string,
    cleanup: o.cleanup as boolean,
    credentials,
    ...runOptions(o),
  };
}

const MAX_BLOCKS = 50_000;
/** A plain server takes plain PUTs only: no blocks, no SDK. */
const URL_UPLOAD_METHODS: readonly UploadMethod[] = ['small-files', 'all'];

export function loadUploadConfig(flags: Record<string, unknown>, sources: Sources): UploadConfig {
  const o = resolveOptions(UPLOAD_OPTIONS, flags, sources);
  const credentials = resolveCredentials(o);
  const uploadMethod = o.uploadMethod as UploadMethod;
  if (credentials.kind === 'url' && !URL_UPLOAD_METHODS.includes(uploadMethod)) {
    throw new ConfigError(`--upload-method ${uploadMethod} needs a blob service and --url is a plain server; with --url use small-files or all, or drop --url`);
  }
  const blockSizeBytes = o.blockSizeBytes as number;
  const blobSizeBytes = o.blobSizeBytes as number;
  if (Math.ceil(blobSizeBytes / blockSizeBytes) > MAX_BLOCKS) {
    throw new ConfigError(`--blob-size / --block-size makes more than ${MAX_BLOCKS} blocks; raise --block-size`);
  }
  return {
    logLevel: o.logLevel as LogLevel,
    uploadMethod,
    fileCount: o.fileCount as number,
    fileSizeBytes: o.fileSizeBytes as number,
    blobSizeBytes,
    blockSizeBytes,
    concurrency: o.concurrency as number,
    thresholdBytes: o.thresholdBytes as number,
    processes: o.processes as number,
    maxSockets: o.maxSockets as number,
    container: o.container as string,
    keep: o.keep as boolean,
    httpClient: o.httpClient as HttpClient,
    credentials,
    ...runOptions(o),
  };
}

/** The configuration as it may be shown or written: secrets replaced. */
export function redactedConfig(config: DownloadConfig | UploadConfig): Record<string, unknown> {
  const c = config.credentials;
  const target =
    c.kind === 'key' ? { kind: c.kind, account: c.account, endpoint: c.endpoint, key: '[redacted]' }
    : c.kind === 'sas' ? { kind: c.kind, account: c.account, endpoint: c.endpoint, sas: '[redacted]' }
    // A URL may carry a SAS of its own (?…&sig=…): its signature never reaches a results file.
    : c.kind === 'url' ? { kind: c.kind, url: redact(c.url) }
    : c;
  return { ...config, credentials: target };
}
