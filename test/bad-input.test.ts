// Bad input through the real CLI (dist/cli.js as a child process): every case must end with exit
// code 2 and exactly one line on stderr that names the option and says what to give instead, with
// no stack trace and no warning, before anything is measured.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOneLine, runCliIn } from './helpers/bad-input.js';

const CLI_JS = join(resolve(dirname(fileURLToPath(import.meta.url)), '..'), 'dist', 'cli.js');

interface BadInput {
  /** The command line after `blob-cacher`; `{dir}` is replaced by the case's working directory. */
  args: string[];
  env?: Record<string, string>;
  /** How the line names the option (flag, env name or command). */
  option: string;
  /** Words of the fix: what a valid value looks like, or what to do. */
  fix: string;
  /** Files to create in the working directory first. */
  files?: string[];
}

const BAD_INPUTS: BadInput[] = [
  // --hedge: a delay or a percentile, and only for the contenders whose GETs it can duplicate.
  {
    args: ['download', '--url', 'http://127.0.0.1:1/x', '--source-method', 'chunked', '--hedge', 'p100'],
    option: '--hedge',
    fix: 'p50 to p99.99',
  },
  {
    args: ['download', '--url', 'http://127.0.0.1:1/x', '--source-method', 'chunked', '--hedge', 'soon'],
    option: '--hedge',
    fix: 'such as 20ms',
  },
  {
    args: ['download', '--url', 'http://127.0.0.1:1/x', '--source-method', 'single', '--hedge', 'p90'],
    option: '--hedge',
    fix: 'name those contenders, or drop --hedge',
  },
  // One integer grammar for every count: plain digits, in range.
  { args: ['download', '--concurrency', '0x2'], option: '--concurrency', fix: 'plain digits' },
  { args: ['tune', 'sideways'], option: 'tune', fix: 'tune download' },
  { args: ['tune', 'download', '--budget', '0'], option: '--budget', fix: 'such as 30s' },
  {
    args: [
      'tune',
      'download',
      '--url',
      'http://127.0.0.1:1/x',
      '--source-method',
      'chunked',
      '--concurrency',
      '4',
      '--max-sockets',
      '8',
      '--processes',
      '1',
    ],
    option: 'tune',
    fix: 'leave one out',
  },
  { args: ['emulate', '--port', '99999'], option: '--port', fix: 'from 0 to 65535' },
  { args: ['emulate', '--objects', 'bad'], option: '--objects', fix: 'name=size' },
  { args: ['emulate', '--straggle', '0:5ms'], option: '--straggle', fix: 'K:STALL' },
  { args: ['download', '--tls', '--url', 'http://127.0.0.1:1/x'], option: '--tls', fix: 'own scheme' },
  {
    args: [
      'upload',
      '--tls',
      '--connection-string',
      'AccountName=a;AccountKey=a2V5;BlobEndpoint=http://127.0.0.1:1/a',
    ],
    option: '--tls',
    fix: 'over HTTPS already',
  },
  { args: ['download', '--concurrency', '2.0'], option: '--concurrency', fix: 'whole number' },
  { args: ['download', '--concurrency', '1e3'], option: '--concurrency', fix: 'whole number' },
  { args: ['download', '--concurrency', '-1'], option: '--concurrency', fix: 'from 1 to 100000' },
  { args: ['download', '--concurrency='], option: '--concurrency', fix: 'whole number' },
  { args: ['download'], env: { PROCESSES: ' ' }, option: 'PROCESSES', fix: 'from 1 to 256' },
  { args: ['download', '--processes', '257'], option: '--processes', fix: 'from 1 to 256' },
  { args: ['download', '--max-sockets', '+5'], option: '--max-sockets', fix: 'plain digits' },
  { args: ['download', '--runs', '0'], option: '--runs', fix: 'from 1 to 1000' },
  { args: ['download', '--warmup', '101'], option: '--warmup', fix: 'from 0 to 100' },
  {
    args: ['download'],
    env: { BLOB_CACHER_MAX_RETRIES: '21' },
    option: 'BLOB_CACHER_MAX_RETRIES',
    fix: 'from 0 to 20',
  },
  { args: ['upload', '--file-count', '1e3'], option: '--file-count', fix: 'plain digits' },
  // Sizes: a grammar and a bound that the message states.
  { args: ['download', '--file-size', '9000TB'], option: '--file-size', fix: 'at most 1TiB' },
  { args: ['download', '--file-size', '1PiB'], option: '--file-size', fix: 'at most 1TiB' },
  { args: ['download'], env: { FILE_SIZE: '-5MiB' }, option: 'FILE_SIZE', fix: 'such as 80MiB' },
  { args: ['download', '--file-size', '1e6'], option: '--file-size', fix: 'such as 80MiB' },
  { args: ['download', '--range-size', '0'], option: '--range-size', fix: 'at least 1B' },
  { args: ['download', '--buffer-size', '1GiB'], option: '--buffer-size', fix: 'at most 256MiB' },
  { args: ['download', '--buffer-size', '0'], option: '--buffer-size', fix: 'at least 1B' },
  { args: ['upload', '--file-size', '6000MiB'], option: '--file-size', fix: 'at most 5000MiB' },
  { args: ['upload', '--single-shot-size', '1GiB'], option: '--single-shot-size', fix: 'at most 256MiB' },
  { args: ['upload', '--block-size', '0'], option: '--block-size', fix: 'at least 1B' },
  { args: ['upload', '--blob-size', '2TiB'], option: '--blob-size', fix: 'at most 1TiB' },
  // Durations: bounded, so no TimeoutOverflowWarning either.
  { args: ['download', '--timeout', '40000m'], option: '--timeout', fix: 'to 24h' },
  { args: ['download', '--timeout', '5ms'], option: '--timeout', fix: 'from 10ms' },
  {
    args: ['download'],
    env: { BLOB_CACHER_TIMEOUT: 'forever' },
    option: 'BLOB_CACHER_TIMEOUT',
    fix: 'such as 30s',
  },
  // Booleans: true/false/yes/no/1/0, alone or as a value.
  { args: ['download', '--force=maybe'], option: '--force', fix: 'true or false' },
  { args: ['download', '--cleanup', 'sometimes'], option: '--cleanup', fix: 'true or false' },
  { args: ['download', '--trace='], option: '--trace', fix: 'true or false' },
  {
    args: ['download'],
    env: { BLOB_CACHER_TRACE: 'enabled' },
    option: 'BLOB_CACHER_TRACE',
    fix: 'true or false',
  },
  { args: ['upload', '--keep=perhaps'], option: '--keep', fix: 'true or false' },
  // Container names: Azure's rule.
  {
    args: ['download', '--url', 'http://127.0.0.1:1/x', '--source-method', 'chunked', '--hedge-on', 'finish'],
    option: '--hedge-on',
    fix: 'add --hedge (e.g. --hedge p90) or drop --hedge-on',
  },
  {
    args: ['download', '--url', 'http://127.0.0.1:1/x', '--source-method', 'chunked'],
    env: { BLOB_CACHER_HEDGE_ON: 'finish' },
    option: '--hedge-on',
    fix: 'add --hedge',
  },
  // tune: fewer runs a cell than its rank test can decide on; a budget example within the budget's range.
  { args: ['tune', 'download', '--runs=3'], option: '--runs 4', fix: 'at least 4 measured runs a cell' },
  { args: ['tune', 'upload', '--runs', '1'], option: '--runs 4', fix: 'at least 4 measured runs a cell' },
  { args: ['tune', 'download', '--budget', '500ms'], option: '--budget', fix: 'from 1s to 24h such as 30s' },
  { args: ['download', '--container', 'Bad_Name'], option: '--container', fix: 'lowercase letters' },
  { args: ['download', '--container', 'ab'], option: '--container', fix: '3-63' },
  {
    args: ['download', '--container', '-abc'],
    option: '--container',
    fix: 'starting and ending with a letter or digit',
  },
  { args: ['download', '--container', 'ab--cd'], option: '--container', fix: 'single hyphens' },
  { args: ['upload'], env: { STORAGE_CONTAINER: 'a'.repeat(64) }, option: 'STORAGE_CONTAINER', fix: '3-63' },
  // Choices.
  {
    args: ['download', '--sink', 'nope'],
    option: '--sink',
    fix: 'one of discard, memory, file, sparse-file',
  },
  { args: ['download', '--format', 'pdf'], option: '--format', fix: 'one of console' },
  { args: ['download', '--log-level', 'loud'], option: '--log-level', fix: 'one of error' },
  { args: ['download', '--results='], option: '--results', fix: 'non-empty' },
  // Combinations.
  {
    args: ['download', '--source-method', 'sdk', '--sink', 'file', '--out', 'x.bin'],
    option: '--source-method sdk',
    fix: 'drop --sink file and --out',
  },
  {
    args: ['download', '--source-method', 'sdk', '--sink', 'sparse-file'],
    option: '--source-method sdk',
    fix: 'drop --sink sparse-file',
  },
  {
    args: ['download', '--sink', 'file', '--out', 'exists.bin'],
    files: ['exists.bin'],
    option: '--out exists.bin',
    fix: 'add --force',
  },
  {
    args: ['download', '--sink', 'file', '--out', 'no/such/dir/x.bin'],
    option: '--out',
    fix: 'create it or choose another path',
  },
  // The dotenv file: named but not a regular file (a FIFO must not hang the run).
  { args: ['download', '--dotenv', 'fifo'], option: '--dotenv', fix: 'not a regular file' },
  { args: ['download', '--dotenv', '{dir}'], option: '--dotenv', fix: 'is a directory' },
  {
    args: ['upload'],
    env: { BLOB_CACHER_ENV_FILE: 'fifo' },
    option: 'BLOB_CACHER_ENV_FILE',
    fix: 'not a regular file',
  },
  // Commands: only the five names, never an Object.prototype member.
  { args: ['constructor'], option: '"constructor"', fix: 'use one of: download' },
  { args: ['toString'], option: '"toString"', fix: 'use one of: download' },
  { args: ['__proto__'], option: '"__proto__"', fix: 'use one of: download' },
  { args: ['hasOwnProperty', '--help'], option: '"hasOwnProperty"', fix: 'use one of: download' },
  // Sweep axes.
  { args: ['sweep', '--concurrency', ',,'], option: '--concurrency', fix: 'single commas' },
  { args: ['sweep', 'upload', '--processes=1,,2'], option: '--processes', fix: 'single commas' },
  { args: ['sweep', '--concurrency', '1,x'], option: '--concurrency', fix: 'whole number' },
];

let tmp: string;
let count = 0;

beforeAll(() => {
  if (!existsSync(CLI_JS)) throw new Error(`${CLI_JS} is missing; build first: npm run build`);
  tmp = mkdtempSync(join(tmpdir(), 'blob-cacher-bad-input-'));
});

afterAll(() => {
  rmSync(tmp, { recursive: true, force: true });
});

/** A fresh working directory with a FIFO named `fifo` and the case's files. */
function caseDir(files: readonly string[]): string {
  const dir = join(tmp, `c${count++}`);
  mkdirSync(dir);
  const fifo = spawnSync('mkfifo', [join(dir, 'fifo')]);
  if (fifo.status !== 0) throw new Error(`mkfifo failed: ${fifo.stderr}`);
  for (const name of files) writeFileSync(join(dir, name), 'x');
  return dir;
}

describe('bad input: exit code 2, one line naming the option and the fix', () => {
  it('has at least 40 distinct cases', () => {
    const keys = new Set(BAD_INPUTS.map((c) => JSON.stringify([c.args, c.env])));
    expect(keys.size).toBe(BAD_INPUTS.length);
    expect(keys.size).toBeGreaterThanOrEqual(40);
  });

  it.each(
    BAD_INPUTS.map((c) => ({
      ...c,
      name: [...Object.entries(c.env ?? {}).map(([k, v]) => `${k}=${v}`), ...c.args].join(' '),
    })),
  )('$name', ({ args, env = {}, option, fix, files = [] }) => {
    const cwd = caseDir(files);
    const line = expectOneLine(
      runCliIn(cwd, [CLI_JS, ...args.map((a) => a.replace('{dir}', cwd))], env, 15_000),
    );
    expect(line).not.toMatch(/Warning/);
    expect(line).toContain(option);
    expect(line).toContain(fix);
  });
});
