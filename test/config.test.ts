// Configuration: precedence (flag > environment > .env > default) parsed in-process from the option
// table, and bad input through the real CLI, which must answer with one line and exit code 2.
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../src/vocabulary/errors.js';
import { readSources } from '../src/cli/sources.js';
import {
  buildProgram,
  loadDownloadConfig,
  loadUploadConfig,
  parseFlags,
  type DownloadConfig,
} from '../src/config/load.js';
import { formatDurationExact } from '../src/vocabulary/durations.js';
import { DOWNLOAD_OPTIONS, isTestOnly, LEGACY_ENV_NAMES, UPLOAD_OPTIONS } from '../src/config/options.js';
import { expectOneLine, runCliIn, type CliResult } from './helpers/bad-input.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DOWNLOAD_JS = join(ROOT, 'dist', 'download.js');
const CLI_JS = join(ROOT, 'dist', 'cli.js');
const MiB = 1024 * 1024;

// Fake secrets: valid base64 so that only the rule under test can reject them. The SAS is put
// together here, so that no line of the repository reads like a real token.
const KEY = 'Zm9vYmFyYmF6cXV4c2VjcmV0';
const SAS = new URLSearchParams({
  sv: '2024-11-04',
  ss: 'b',
  srt: 'sco',
  sp: 'r',
  se: '2030-01-01T00:00:00Z',
  sig: Buffer.from('not a signature').toString('base64'),
}).toString();

let tmp: string;
let dirCount = 0;

/** A fresh directory under the suite's temp dir, holding `.env` when `dotenv` is given. */
function dirWith(dotenv?: string, extra: Record<string, string> = {}): string {
  const dir = join(tmp, `d${dirCount++}`);
  mkdirSync(dir);
  if (dotenv !== undefined) writeFileSync(join(dir, '.env'), dotenv);
  for (const [name, body] of Object.entries(extra)) writeFileSync(join(dir, name), body);
  return dir;
}

/** What the CLI does before it runs anything, without spawning: flags, sources, then the resolved config. */
function load(argv: readonly string[], env: Record<string, string> = {}, cwd = dirWith()): DownloadConfig {
  const program = buildProgram('download', DOWNLOAD_OPTIONS, 'test');
  const flags = parseFlags(program, argv);
  if (!flags) throw new Error('parseFlags printed help');
  return loadDownloadConfig(flags, readSources(DOWNLOAD_OPTIONS, flags, env, cwd));
}

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'blob-cacher-config-'));
});

afterAll(() => {
  rmSync(tmp, { recursive: true, force: true });
});

describe('precedence: flag > environment > .env > default', () => {
  const dotenv = 'CONCURRENCY=7\nPROCESSES=3\nSOURCE_METHOD=chunked\n';
  const env = { CONCURRENCY: '8', PROCESSES: '5', SOURCE_METHOD: 'sdk' };
  const flags = ['--concurrency', '9', '--processes', '6', '--source-method', 'assemble'];

  it.each([
    {
      layers: 'default only',
      argv: [],
      env: {},
      dotenv: undefined,
      want: { concurrency: 4, processes: 1, sourceMethod: 'all' },
    },
    {
      layers: '.env over default',
      argv: [],
      env: {},
      dotenv,
      want: { concurrency: 7, processes: 3, sourceMethod: 'chunked' },
    },
    {
      layers: 'environment over .env',
      argv: [],
      env,
      dotenv,
      want: { concurrency: 8, processes: 5, sourceMethod: 'sdk' },
    },
    {
      layers: 'flag over environment',
      argv: flags,
      env,
      dotenv,
      want: { concurrency: 9, processes: 6, sourceMethod: 'assemble' },
    },
  ])('$layers', ({ argv, env: environment, dotenv: file, want }) => {
    expect(load(argv, environment, dirWith(file))).toMatchObject(want);
  });

  it('takes each option from its own highest layer', () => {
    const config = load(['--processes', '6'], { CONCURRENCY: '8' }, dirWith(dotenv));
    expect(config).toMatchObject({ processes: 6, concurrency: 8, sourceMethod: 'chunked', maxSockets: 16 });
  });

  it('treats an empty environment variable as unset, so .env still applies', () => {
    expect(load([], { CONCURRENCY: '' }, dirWith(dotenv)).concurrency).toBe(7);
  });

  it('reads the file named by --dotenv or BLOB_CACHER_ENV_FILE from cwd instead of .env', () => {
    const cwd = dirWith(dotenv, { 'other.env': 'CONCURRENCY=11\n', 'third.env': 'CONCURRENCY=12\n' });
    expect(load(['--dotenv', 'other.env'], {}, cwd).concurrency).toBe(11);
    expect(load([], { BLOB_CACHER_ENV_FILE: 'third.env' }, cwd).concurrency).toBe(12);
    expect(load(['--dotenv', 'other.env'], { BLOB_CACHER_ENV_FILE: 'third.env' }, cwd).concurrency).toBe(11);
    expect(load([], { BLOB_CACHER_ENV_FILE: '' }, cwd).concurrency).toBe(7);
  });

  it('config itself reads no file: loadDownloadConfig takes the dotenv variables as strings', () => {
    const flags = parseFlags(buildProgram('download', DOWNLOAD_OPTIONS, 'test'), [])!;
    expect(loadDownloadConfig(flags, { env: {}, dotenv: { CONCURRENCY: '13' } }).concurrency).toBe(13);
  });

  it('reads only the env object it is given, never process.env', () => {
    const saved = process.env.CONCURRENCY;
    process.env.CONCURRENCY = '99';
    try {
      expect(load([], {}).concurrency).toBe(4);
    } finally {
      if (saved === undefined) delete process.env.CONCURRENCY;
      else process.env.CONCURRENCY = saved;
    }
  });

  it('maps SOURCE_METHOD=url to single', () => {
    expect(load([], { SOURCE_METHOD: 'url' }).sourceMethod).toBe('single');
    expect(load(['--source-method', 'URL']).sourceMethod).toBe('single');
  });

  it('parses FILE_SIZE=80MiB to 83886080 bytes, from the environment and from .env', () => {
    expect(load([], { FILE_SIZE: '80MiB' }).fileSizeBytes).toBe(83_886_080);
    expect(load([], {}, dirWith('FILE_SIZE=100KB\n')).fileSizeBytes).toBe(100_000);
    expect(load([]).fileSizeBytes).toBe(80 * MiB);
  });
});

describe('environment namespace', () => {
  it('every name is one users already pass, STORAGE_*/AZURE_*, or BLOB_CACHER_*', () => {
    for (const spec of [...DOWNLOAD_OPTIONS, ...UPLOAD_OPTIONS]) {
      const name = spec.env ?? '';
      const kept = LEGACY_ENV_NAMES.includes(name) || /^(STORAGE|AZURE)_/.test(name);
      expect(kept || name.startsWith('BLOB_CACHER_'), name).toBe(true);
    }
  });

  it.each([
    ['OUT', 'x.bin'],
    ['SINK', 'file'],
    ['FORMAT', 'nope'],
    ['RESULTS', '/nonexistent/r.json'],
    ['RUNS', 'abc'],
    ['TIMEOUT', '1'],
    ['TRACE', 'maybe'],
    ['CLEANUP', 'yes'],
    ['WARMUP', '-1'],
    ['BUFFER_SIZE', '0'],
    ['ENV_FILE', 'missing.env'],
    ['FORCE', 'true'],
  ])('a generic %s=%s in the environment or .env is ignored', (name, value) => {
    const config = load([], { [name]: value }, dirWith(`${name}=${value}\n`));
    expect(config).toMatchObject({
      sink: 'memory',
      outPath: undefined,
      format: 'console',
      resultsPath: undefined,
      runs: 5,
      minTimeMs: 3_000,
      timeoutMs: 30_000,
      trace: true,
      cleanup: false,
      warmup: 1,
      bufferSizeBytes: 256 * 1024,
      force: false,
    });
  });

  it('the namespaced names are honoured', () => {
    const config = load([], {
      BLOB_CACHER_SINK: 'sparse-file',
      BLOB_CACHER_OUT: 'x.bin',
      BLOB_CACHER_RUNS: '3',
      BLOB_CACHER_TIMEOUT: '2m',
      BLOB_CACHER_CLEANUP: 'yes',
      BLOB_CACHER_TRACE: '0',
    });
    expect(config).toMatchObject({
      sink: 'sparse-file',
      outPath: 'x.bin',
      runs: 3,
      minTimeMs: 0,
      timeoutMs: 120_000,
      cleanup: true,
      trace: false,
    });
  });
});

describe('bool switches: alone, =value or a following value', () => {
  it.each<[string[], boolean]>([
    [['--cleanup'], true],
    [['--cleanup=false'], false],
    [['--cleanup', 'yes'], true],
    [['--cleanup', 'no'], false],
    [['--cleanup', '1'], true],
    [['--cleanup=0'], false],
    [['--cleanup', 'TRUE'], true],
    [['--cleanup', '--processes', '2'], true],
  ])('%j', (argv, want) => {
    expect(load(argv).cleanup).toBe(want);
  });
});

describe('every environment name is honoured', () => {
  it.each<[string, string, Partial<DownloadConfig>]>([
    ['LOG_LEVEL', 'debug', { logLevel: 'debug' }],
    ['CONCURRENCY', '3', { concurrency: 3 }],
    ['SOURCE_METHOD', 'round-robin', { sourceMethod: 'round-robin' }],
    ['FILE_SIZE', '1.5MiB', { fileSizeBytes: 1.5 * MiB }],
    ['PROCESSES', '2', { processes: 2 }],
    ['MAX_SOCKETS', '8', { maxSockets: 8 }],
    ['STORAGE_CONTAINER', 'bench', { container: 'bench' }],
    [
      'URL',
      'http://127.0.0.1:8080/large.file',
      { credentials: { kind: 'url', url: 'http://127.0.0.1:8080/large.file' } },
    ],
  ])('%s', (name, value, want) => {
    expect(load([], { [name]: value })).toMatchObject(want);
  });

  it('STORAGE_ACCOUNT with STORAGE_KEY', () => {
    expect(load([], { STORAGE_ACCOUNT: 'acct', STORAGE_KEY: KEY }).credentials).toEqual({
      kind: 'key',
      account: 'acct',
      key: KEY,
      endpoint: 'https://acct.blob.core.windows.net',
    });
  });

  it('STORAGE_ACCOUNT with STORAGE_SAS, leading "?" dropped', () => {
    expect(load([], { STORAGE_ACCOUNT: 'acct', STORAGE_SAS: `?${SAS}` }).credentials).toEqual({
      kind: 'sas',
      account: 'acct',
      sas: SAS,
      endpoint: 'https://acct.blob.core.windows.net',
    });
  });

  it('STORAGE_CONNECTION_STRING', () => {
    const cs =
      `DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=${KEY};` +
      `EndpointSuffix=core.windows.net`;
    expect(load([], { STORAGE_CONNECTION_STRING: cs }).credentials).toEqual({
      kind: 'key',
      account: 'acct',
      key: KEY,
      endpoint: 'https://acct.blob.core.windows.net',
    });
  });
});

describe('credential resolution', () => {
  it('account + key is SharedKey', () => {
    expect(load(['--account', 'acct', '--key', KEY]).credentials.kind).toBe('key');
  });

  it('account + SAS is a SAS', () => {
    expect(load(['--account', 'acct', '--sas', SAS]).credentials.kind).toBe('sas');
  });

  it('a connection string with AccountKey is SharedKey, at its BlobEndpoint', () => {
    const cs =
      `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${KEY};BlobEndpoint=` +
      `http://127.0.0.1:10000/devstoreaccount1/;`;
    expect(load([], { STORAGE_CONNECTION_STRING: cs }).credentials).toEqual({
      kind: 'key',
      account: 'devstoreaccount1',
      key: KEY,
      endpoint: 'http://127.0.0.1:10000/devstoreaccount1',
    });
  });

  it('a connection string with only a BlobEndpoint takes the account from its host', () => {
    const cs = `BlobEndpoint=https://acct.blob.core.windows.net;SharedAccessSignature=${SAS}`;
    expect(load([], { STORAGE_CONNECTION_STRING: cs }).credentials).toEqual({
      kind: 'sas',
      account: 'acct',
      sas: SAS,
      endpoint: 'https://acct.blob.core.windows.net',
    });
  });

  it('a connection string whose BlobEndpoint is not a URL is a ConfigError', () => {
    const cs = `AccountName=acct;AccountKey=${KEY};BlobEndpoint=notaurl`;
    expect(() => load([], { STORAGE_CONNECTION_STRING: cs })).toThrow(ConfigError);
  });

  it('nothing set is the embedded Azurite', () => {
    expect(load([]).credentials).toEqual({ kind: 'embedded' });
  });

  it('a URL is a plain HTTP target', () => {
    expect(load(['--url', 'https://example.com/large.file']).credentials).toEqual({
      kind: 'url',
      url: 'https://example.com/large.file',
    });
  });

  it('credentials in .env are honoured like the rest', () => {
    const config = load([], {}, dirWith(`STORAGE_ACCOUNT=acct\nSTORAGE_KEY=${KEY}\n`));
    expect(config.credentials).toMatchObject({ kind: 'key', account: 'acct' });
  });
});

describe('--auth, --endpoint, --client-id, --ca-file', () => {
  const AZURITE = 'https://127.0.0.1:10000/devstoreaccount1';

  it('--auth entra with an account: the public cloud endpoint, no secret', () => {
    expect(load(['--auth', 'entra', '--account', 'acct']).credentials).toEqual({
      kind: 'entra',
      account: 'acct',
      endpoint: 'https://acct.blob.core.windows.net',
    });
  });

  it(
    '--auth entra with a path-style --endpoint takes the account from the path; --client-id and ' +
      '--ca-file are kept',
    () => {
      expect(
        load(['--auth', 'entra', '--endpoint', `${AZURITE}/`, '--client-id', 'cid', '--ca-file', 'ca.pem'])
          .credentials,
      ).toEqual({
        kind: 'entra',
        account: 'devstoreaccount1',
        endpoint: AZURITE,
        clientId: 'cid',
        caFile: 'ca.pem',
      });
    },
  );

  it(
    'the environment names: BLOB_CACHER_AUTH, STORAGE_ENDPOINT, BLOB_CACHER_CLIENT_ID, ' +
      'BLOB_CACHER_CA_FILE',
    () => {
      const env = {
        BLOB_CACHER_AUTH: 'entra',
        STORAGE_ENDPOINT: 'https://acct.blob.core.chinacloudapi.cn',
        BLOB_CACHER_CLIENT_ID: 'cid',
        BLOB_CACHER_CA_FILE: '/etc/ca.pem',
      };
      expect(load([], env).credentials).toEqual({
        kind: 'entra',
        account: 'acct',
        endpoint: 'https://acct.blob.core.chinacloudapi.cn',
        clientId: 'cid',
        caFile: '/etc/ca.pem',
      });
    },
  );

  it('a key with --endpoint signs for that endpoint (a sovereign cloud or a private endpoint)', () => {
    expect(
      load([
        '--account',
        'acct',
        '--key',
        KEY,
        '--endpoint',
        'https://acct.privatelink.blob.core.windows.net',
      ]).credentials,
    ).toEqual({
      kind: 'key',
      account: 'acct',
      key: KEY,
      endpoint: 'https://acct.privatelink.blob.core.windows.net',
    });
  });

  it('the mode is inferred when unambiguous, and an explicit one that agrees changes nothing', () => {
    expect(load(['--account', 'acct', '--key', KEY, '--auth', 'key']).credentials).toEqual(
      load(['--account', 'acct', '--key', KEY]).credentials,
    );
    expect(load(['--account', 'acct', '--sas', SAS, '--auth', 'sas']).credentials.kind).toBe('sas');
    expect(load(['--auth', 'anonymous', '--endpoint', AZURITE]).credentials).toEqual({
      kind: 'anonymous',
      account: 'devstoreaccount1',
      endpoint: AZURITE,
    });
  });

  it.each<[string, string[], Record<string, string>, string[]]>([
    [
      'entra over http',
      ['--auth', 'entra', '--endpoint', 'http://127.0.0.1:10000/devstoreaccount1'],
      {},
      ['--auth entra', 'https://'],
    ],
    [
      'entra without an account',
      ['--auth', 'entra'],
      {},
      ['--auth entra', 'STORAGE_ACCOUNT', 'STORAGE_ENDPOINT'],
    ],
    [
      'entra with a key',
      ['--auth', 'entra', '--account', 'acct', '--key', KEY],
      {},
      ['STORAGE_KEY', '--auth entra', '--auth key'],
    ],
    ['key without a key', ['--auth', 'key', '--account', 'acct'], {}, ['--auth key', 'STORAGE_KEY']],
    [
      '--client-id without entra',
      ['--account', 'acct', '--key', KEY, '--client-id', 'cid'],
      {},
      ['--client-id', '--auth entra'],
    ],
    [
      '--endpoint with a query',
      ['--auth', 'entra', '--endpoint', 'https://acct.blob.core.windows.net/?sv=1'],
      {},
      ['STORAGE_ENDPOINT', '--sas'],
    ],
    [
      '--endpoint with a connection string',
      ['--endpoint', AZURITE],
      { STORAGE_CONNECTION_STRING: `AccountName=acct;AccountKey=${KEY}` },
      ['STORAGE_ENDPOINT', 'BlobEndpoint'],
    ],
    ['--endpoint alone', ['--endpoint', AZURITE], {}, ['STORAGE_ENDPOINT', '--auth entra']],
    ['--ca-file with the embedded target', ['--ca-file', 'ca.pem'], {}, ['--ca-file', 'embedded']],
    [
      '--ca-file with --url',
      ['--url', 'https://example.com/x', '--ca-file', 'ca.pem'],
      {},
      ['--ca-file', '--url'],
    ],
    [
      '--auth with --url',
      ['--url', 'https://example.com/x', '--auth', 'anonymous'],
      {},
      ['URL', 'one target'],
    ],
    ['--auth nope', ['--auth', 'nope'], {}, ['--auth', 'entra', 'anonymous']],
  ])('%s is a ConfigError naming the fix', (_, argv, env, words) => {
    let message = '';
    try {
      load(argv, env);
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      message = (err as Error).message;
    }
    for (const word of words) expect(message).toContain(word);
    expect(message).not.toContain(KEY);
  });

  it('upload refuses --auth anonymous: public access only reads', () => {
    const program = buildProgram('upload', UPLOAD_OPTIONS, 'test');
    const flags = parseFlags(program, ['--auth', 'anonymous', '--account', 'acct'])!;
    expect(() => loadUploadConfig(flags, readSources(UPLOAD_OPTIONS, flags, {}, dirWith()))).toThrow(
      /--auth anonymous only reads/,
    );
  });
});

interface BadInput {
  name: string;
  args?: string[];
  env?: Record<string, string>;
  /** Words the one line must contain: the option, as flag or env name, and what was wrong. */
  mentions: string[];
  /** A secret that is part of the bad input and must not be echoed. */
  secret?: string;
  /** Put `--` before the script, so node leaves a script argument alone (see the --env-file case). */
  endNodeOptions?: boolean;
  /** Files in the working directory, by name. */
  files?: Record<string, string>;
}

const BAD_INPUTS: BadInput[] = [
  { name: '--concurrency 0', args: ['--concurrency', '0'], mentions: ['--concurrency', 'whole number'] },
  { name: '--concurrency abc', args: ['--concurrency', 'abc'], mentions: ['--concurrency', '"abc"'] },
  { name: 'PROCESSES=-1', env: { PROCESSES: '-1' }, mentions: ['PROCESSES', '"-1"', '1 to 256'] },
  { name: 'PROCESSES=100000', env: { PROCESSES: '100000' }, mentions: ['PROCESSES', '1 to 256'] },
  { name: 'MAX_SOCKETS=0', env: { MAX_SOCKETS: '0' }, mentions: ['MAX_SOCKETS', 'whole number'] },
  { name: 'FILE_SIZE=abc', env: { FILE_SIZE: 'abc' }, mentions: ['FILE_SIZE', 'size'] },
  {
    name: '--source-method nope',
    args: ['--source-method', 'nope'],
    mentions: ['--source-method', '"nope"', 'single'],
  },
  { name: 'LOG_LEVEL=loud', env: { LOG_LEVEL: 'loud' }, mentions: ['LOG_LEVEL', '"loud"', 'debug'] },
  { name: 'unknown flag --nope', args: ['--nope'], mentions: ['--nope', '--help'] },
  { name: 'unknown flag close to one', args: ['--kye', KEY], mentions: ['--kye', '--key'], secret: KEY },
  { name: 'unknown --flag=secret', args: [`--kye=${KEY}`], mentions: ['--kye'], secret: KEY },
  { name: 'stray argument', args: ['download'], mentions: ['argument'] },
  { name: '--concurrency without a value', args: ['--concurrency'], mentions: ['--concurrency', 'missing'] },
  {
    name: 'STORAGE_ACCOUNT without key or SAS',
    env: { STORAGE_ACCOUNT: 'acct' },
    mentions: ['STORAGE_ACCOUNT', 'STORAGE_KEY', 'STORAGE_SAS'],
  },
  {
    name: 'STORAGE_ACCOUNT not an account name',
    env: { STORAGE_ACCOUNT: 'Bad_Name', STORAGE_KEY: KEY },
    mentions: ['STORAGE_ACCOUNT', 'lowercase'],
    secret: KEY,
  },
  {
    name: 'STORAGE_KEY without account',
    env: { STORAGE_KEY: KEY },
    mentions: ['STORAGE_KEY', 'STORAGE_ACCOUNT'],
    secret: KEY,
  },
  {
    name: 'STORAGE_KEY not base64',
    env: { STORAGE_ACCOUNT: 'acct', STORAGE_KEY: `${KEY}!` },
    mentions: ['STORAGE_KEY', 'base64'],
    secret: KEY,
  },
  {
    name: 'STORAGE_KEY and STORAGE_SAS both',
    env: { STORAGE_ACCOUNT: 'acct', STORAGE_KEY: KEY, STORAGE_SAS: SAS },
    mentions: ['STORAGE_KEY', 'STORAGE_SAS'],
    secret: KEY,
  },
  {
    name: 'malformed STORAGE_CONNECTION_STRING',
    env: { STORAGE_CONNECTION_STRING: `AccountName=acct;${KEY}` },
    mentions: ['STORAGE_CONNECTION_STRING', 'Key=Value'],
    secret: KEY,
  },
  {
    name: 'STORAGE_CONNECTION_STRING without a key',
    env: { STORAGE_CONNECTION_STRING: 'AccountName=acct' },
    mentions: ['STORAGE_CONNECTION_STRING', 'AccountKey'],
  },
  {
    name: 'STORAGE_CONNECTION_STRING with a bad BlobEndpoint',
    env: { STORAGE_CONNECTION_STRING: `AccountName=acct;AccountKey=${KEY};BlobEndpoint=notaurl` },
    mentions: ['STORAGE_CONNECTION_STRING', 'endpoint'],
    secret: KEY,
  },
  { name: 'URL=notaurl', env: { URL: 'notaurl' }, mentions: ['URL', '"notaurl"', 'http://'] },
  {
    name: 'URL and STORAGE_ACCOUNT',
    env: { URL: 'http://127.0.0.1:1/x', STORAGE_ACCOUNT: 'acct', STORAGE_KEY: KEY },
    mentions: ['URL', 'credentials'],
    secret: KEY,
  },
  {
    name: '--url with --source-method assemble',
    args: ['--url', 'http://127.0.0.1:1/x', '--source-method', 'assemble'],
    mentions: ['--source-method', '--url', 'assemble'],
  },
  // Our flag is --dotenv, not --env-file: Node reads `--env-file` even after the script name and
  // exits 9 on a missing file before the script runs (nodejs/node#54232).
  {
    name: '--dotenv missing.txt',
    args: ['--dotenv', 'missing.txt'],
    mentions: ['--dotenv', 'missing.txt', 'does not exist'],
  },
  {
    name: 'BLOB_CACHER_ENV_FILE=missing.txt',
    env: { BLOB_CACHER_ENV_FILE: 'missing.txt' },
    mentions: ['BLOB_CACHER_ENV_FILE', 'missing.txt'],
  },
  {
    name: '--out with --sink memory',
    args: ['--out', 'x.bin', '--sink', 'memory'],
    mentions: ['--out', '--sink'],
  },
  {
    name: '--sink file with --processes 2',
    args: ['--sink', 'file', '--processes', '2'],
    mentions: ['--sink file', '--processes'],
  },
  {
    name: '--auth entra over http',
    args: ['--auth', 'entra', '--endpoint', 'http://127.0.0.1:1/devstoreaccount1'],
    mentions: ['--auth entra', 'https://'],
  },
  {
    name: 'BLOB_CACHER_AUTH=entra with STORAGE_KEY',
    env: { BLOB_CACHER_AUTH: 'entra', STORAGE_ACCOUNT: 'acct', STORAGE_KEY: KEY },
    mentions: ['STORAGE_KEY', '--auth entra'],
    secret: KEY,
  },
  {
    name: '--client-id without --auth entra',
    args: ['--client-id', 'cid', '--account', 'acct', '--sas', SAS],
    mentions: ['--client-id', '--auth entra'],
    secret: SAS,
  },
  {
    name: '--ca-file that is not a PEM file',
    args: ['--auth', 'anonymous', '--account', 'acct', '--ca-file', 'notes.txt'],
    files: { 'notes.txt': 'hello' },
    mentions: ['--ca-file', 'PEM'],
  },
];

/** Runs dist/download.js in an empty directory with only PATH, HOME and `env`. */
function runCli(
  args: readonly string[],
  env: Record<string, string> = {},
  endNodeOptions = false,
  files: Record<string, string> = {},
): CliResult {
  return runCliIn(
    dirWith(undefined, files),
    endNodeOptions ? ['--', DOWNLOAD_JS, ...args] : [DOWNLOAD_JS, ...args],
    env,
  );
}

describe('bad input through the CLI: one line on stderr, exit code 2', () => {
  beforeAll(() => {
    if (!existsSync(DOWNLOAD_JS))
      throw new Error(`${DOWNLOAD_JS} is missing; build first: node_modules/.bin/tsc -p tsconfig.json`);
  });

  it('has at least 12 cases', () => {
    expect(BAD_INPUTS.length).toBeGreaterThanOrEqual(12);
  });

  it.each(BAD_INPUTS)('$name', ({ args = [], env = {}, mentions, secret, endNodeOptions, files }) => {
    const line = expectOneLine(runCli(args, env, endNodeOptions, files));
    for (const word of mentions) expect(line).toContain(word);
    if (secret) expect(line).not.toContain(secret);
  });
});

describe('--help', () => {
  it('exits 0 and lists every flag with its environment name', () => {
    const r = runCli(['--help']);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toContain('--source-method');
    expect(r.stdout).toContain('SOURCE_METHOD');
    for (const spec of DOWNLOAD_OPTIONS.filter((o) => !isTestOnly(o))) {
      expect(r.stdout).toContain(spec.flag);
      if (spec.env) expect(r.stdout).toContain(spec.env);
    }
    // Test-only options are hidden; durations show their unit, never a bare count of ms.
    expect(r.stdout).not.toContain('--test-clock-skew');
    // Commander wraps the help: read it as one line.
    const flat = r.stdout.replace(/\s+/g, ' ');
    expect(flat).toMatch(
      /--timeout <duration> [^(]*\(30s, 500ms; at most 24h\) \[env BLOB_CACHER_TIMEOUT\] \(default 30s\)/,
    );
    for (const spec of DOWNLOAD_OPTIONS.filter(
      (o) => o.valueName === 'duration' && typeof o.defaultValue === 'number',
    )) {
      expect(flat, spec.flag).toContain(`(default ${formatDurationExact(spec.defaultValue as number)})`);
      expect(formatDurationExact(spec.defaultValue as number), spec.flag).toMatch(/^\d+(ms|s|m|h)$/);
    }
  });

  it("no command's help shows a default as [object Object] (emulate --objects did)", () => {
    const help = (command: string) => runCliIn(dirWith(undefined, {}), [CLI_JS, command, '--help']);
    for (const command of ['download', 'upload', 'sweep', 'tune', 'compare', 'emulate']) {
      const r = help(command);
      expect(r.status, command).toBe(0);
      expect(r.stdout, command).not.toContain('[object Object]');
    }
    expect(help('emulate').stdout.replace(/\s+/g, ' ')).toContain('(default large.bin=80MiB)');
  });
});
