// Every command line in the README, as printed: each names a real entry point and command, and every
// flag and environment name it uses is one of that command's options with a value its parser takes.
// The ones that run on this machine alone (embedded Azurite, results files) are run for real under
// an older `node` first on PATH, as on Debian, where the entry re-runs itself under the pinned Node 24.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { delimiter, join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  Invalid,
  CHECK_OPTIONS,
  REPLAY_OPTIONS,
  CHECKPOINT_OPTIONS,
  TRAIN_OPTIONS,
  COLLECT_OPTIONS,
  DOWNLOAD_OPTIONS,
  EMULATE_OPTIONS,
  MANIFEST_OPTIONS,
  REPORT_OPTIONS,
  TUNE_OPTIONS,
  UPLOAD_OPTIONS,
  type AnyOption,
} from '../src/config/options.js';
import { ONE_RUN } from './helpers/cli-env.js';
import { freshDirs } from './helpers/temp-dirs.js';

const ROOT = resolve(import.meta.dirname, '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The README's fenced shell lines, continuations joined; a ```text fence is printed output, not commands. */
function codeLines(markdown: string): string[] {
  const lines: string[] = [];
  let inFence = false;
  let output = false;
  let pending = '';
  for (const line of markdown.split('\n')) {
    const fence = /^\s*```\s*(\S*)/.exec(line);
    if (fence) {
      inFence = !inFence;
      output = inFence && fence[1] === 'text';
      continue;
    }
    if (!inFence || output) continue;
    if (line.endsWith('\\')) {
      pending += `${line.slice(0, -1)} `;
      continue;
    }
    lines.push(pending + line);
    pending = '';
  }
  return lines;
}

/**
 * Shell words of one line: quotes removed; a comment ends it, `&&` and `|` split it, a redirection's file is
 * dropped.
 */
function commands(line: string): string[][] {
  const out: string[][] = [[]];
  let word: string | undefined;
  let skipNext = false;
  const end = () => {
    if (word !== undefined && !skipNext) out.at(-1)!.push(word);
    else if (word !== undefined) skipNext = false;
    word = undefined;
  };
  for (let i = 0; i < line.length; i++) {
    const ch = line[i]!;
    if (ch === "'" || ch === '"') {
      const close = line.indexOf(ch, i + 1);
      word = (word ?? '') + line.slice(i + 1, close < 0 ? undefined : close);
      i = close < 0 ? line.length : close;
    } else if (/\s/.test(ch)) end();
    else if (ch === '#' && word === undefined) break;
    else if (ch === '>') {
      end();
      skipNext = true;
    } else if (ch === '|' || (ch === '&' && line[i + 1] === '&')) {
      end();
      out.push([]);
      if (ch === '&' || line[i + 1] === '|') i++;
    } else word = (word ?? '') + ch;
  }
  end();
  return out.filter((c) => c.length > 0);
}

interface Ours {
  command: string;
  args: string[];
  env: Record<string, string>;
  line: string;
}

const ENTRIES: Record<string, string | undefined> = {
  'dist/download.js': 'download',
  'dist/upload.js': 'upload',
  'dist/cli.js': undefined,
};

/**
 * The blob-cacher command a shell command runs, or undefined for any other program (npm ci, docker, kubectl).
 */
function ours(words: string[], line: string): Ours | undefined {
  const env: Record<string, string> = {};
  let i = 0;
  for (; i < words.length && /^[A-Z_][A-Z0-9_]*=/.test(words[i]!); i++) {
    const [name, ...value] = words[i]!.split('=');
    env[name!] = value.join('=');
  }
  const [program, ...rest] = words.slice(i);
  const as = (command: string | undefined, args: string[]) =>
    command === undefined ? undefined : { command, args, env, line };
  if (program === 'node' && rest[0]! in ENTRIES) {
    const entry = ENTRIES[rest[0]!];
    return entry ? as(entry, rest.slice(1)) : as(rest[1], rest.slice(2));
  }
  if (program === 'blob-cacher') return as(rest[0] ?? 'download', rest.slice(1));
  if (program === 'npx' && rest[0] === 'blob-cacher') return as(rest[1] ?? 'download', rest.slice(2));
  if (program === 'npm' && rest[0] === 'start') return as('download', []);
  if (program === 'npm' && rest[0] === 'run' && rest[1] === 'download')
    return as('download', rest.slice(rest[2] === '--' ? 3 : 2));
  return undefined;
}

const SPECS: Record<string, readonly AnyOption[]> = {
  download: DOWNLOAD_OPTIONS,
  upload: UPLOAD_OPTIONS,
  report: REPORT_OPTIONS,
  compare: REPORT_OPTIONS,
  collect: COLLECT_OPTIONS,
  'k8s-manifest': MANIFEST_OPTIONS,
  emulate: EMULATE_OPTIONS,
  check: CHECK_OPTIONS,
  replay: REPLAY_OPTIONS,
  'tune download': [...DOWNLOAD_OPTIONS, ...TUNE_OPTIONS],
  'tune upload': [...UPLOAD_OPTIONS, ...TUNE_OPTIONS],
  checkpoint: CHECKPOINT_OPTIONS,
  'tune checkpoint': [...CHECKPOINT_OPTIONS, ...TUNE_OPTIONS],
  train: [...DOWNLOAD_OPTIONS, ...TRAIN_OPTIONS],
  'tune train': [...DOWNLOAD_OPTIONS, ...TRAIN_OPTIONS, ...TUNE_OPTIONS],
};

/** Names users pass that are not one option's: the Azure SDK's own and a shell variable the README sets. */
const OTHER_ENV = new Set([
  'STORAGE_CONNECTION_STRING',
  'AZURE_CLIENT_ID',
  'AZURE_TENANT_ID',
  'AZURE_CLIENT_SECRET',
  'RUN_ID',
]);

/** The problems of one command's words against its option table: unknown flags, unparsable values. */
function problems(c: Ours): string[] {
  const found: string[] = [];
  let { command, args } = c;
  // A sweep takes the download or upload options, any of them as a comma-separated list.
  const sweep = command === 'sweep';
  if (sweep || command === 'tune') {
    const named =
      args[0] === 'upload' ||
      args[0] === 'download' ||
      (!sweep && (args[0] === 'checkpoint' || args[0] === 'train'));
    const direction = named ? args[0]! : 'download';
    command = sweep ? direction : `tune ${direction}`;
    if (named) args = args.slice(1);
  }
  const specs = SPECS[command];
  if (!specs) return [`unknown command ${command}`];
  for (const [name, value] of Object.entries(c.env)) {
    const spec = specs.find((s) => s.env === name || s.platformEnv === name);
    if (!spec && !OTHER_ENV.has(name)) found.push(`${name} is no environment name of ${command}`);
    else if (spec && spec.parse(value) instanceof Invalid)
      found.push(`${name}=${value} is refused by ${spec.flag}`);
  }
  for (let i = 0; i < args.length; i++) {
    const word = args[i]!;
    if (word === '--' && command === 'k8s-manifest') {
      const inner = ours(['blob-cacher', ...args.slice(i + 1)], c.line);
      if (inner) found.push(...problems(inner));
      break;
    }
    if (!word.startsWith('--')) continue; // a results file, or a value taken below
    const [flag, inline] = word.split(/=(.*)/s) as [string, string | undefined];
    const spec = specs.find((s) => s.flag === flag);
    if (!spec) {
      found.push(`${flag} is no option of ${command}`);
      continue;
    }
    if (!spec.valueName) continue;
    const raw =
      inline ?? (spec.valueName === 'bool' && (args[i + 1] ?? '--').startsWith('--') ? 'true' : args[++i]);
    if (raw === undefined) {
      found.push(`${flag} has no value`);
      continue;
    }
    // A shell variable stands for a value the reader supplies (the run id from kubectl).
    if (raw.startsWith('$')) continue;
    // A sweep's axes and a training run's cells (`--prefetch 0,1,2`) are lists of values.
    for (const value of sweep || command === 'train' ? raw.split(',') : [raw])
      if (spec.parse(value) instanceof Invalid) found.push(`${flag} ${value} is refused`);
  }
  return found;
}

const LINES = codeLines(README).flatMap((line) => commands(line).flatMap((words) => ours(words, line) ?? []));

describe('README command lines', () => {
  it('name real commands and only options those commands take, with values they accept', () => {
    // Every kind of line the README shows is here: the entry files, the bin, npx and npm scripts.
    expect(LINES.length).toBeGreaterThanOrEqual(25);
    expect(new Set(LINES.map((l) => l.command))).toEqual(
      new Set([
        'download',
        'upload',
        'report',
        'compare',
        'sweep',
        'tune',
        'emulate',
        'collect',
        'k8s-manifest',
        'check',
        'replay',
        'train',
        'checkpoint',
      ]),
    );
    const bad = LINES.flatMap((l) => problems(l).map((p) => `${l.line.trim()}: ${p}`));
    expect(bad).toEqual([]);
  });

  it('the check itself catches an unknown flag, a bad value and a stray environment name', () => {
    const [c] = commands('FILE_SIZ=3 node dist/download.js --concurency 4 --runs many');
    expect(problems(ours(c!, 'x')!)).toEqual([
      'FILE_SIZ is no environment name of download',
      '--concurency is no option of download',
      '--runs many is refused',
    ]);
  });

  it('documents npx blob-cacher for a clone, where blob-cacher is not on PATH', () => {
    expect(README).toMatch(/npx blob-cacher/);
  });
});

/** The Node first on PATH when it is older than 22 (Debian's), as users meet it; undefined otherwise. */
function olderNode(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    const node = join(dir, 'node');
    if (dir.includes('node_modules') || !existsSync(node)) continue;
    const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout?.trim() ?? '';
    return Number(version.replace(/^v/, '').split('.')[0]) < 22 ? node : undefined;
  }
  return undefined;
}

const OLD_NODE = olderNode();
const tempDir = freshDirs('blob-cacher-readme-');
const PATH = OLD_NODE ? [resolve(OLD_NODE, '..'), process.env.PATH].join(delimiter) : '';

describe('the re-run under the pinned Node', () => {
  it("keeps the Node flags given and adds the coordinator's young generation where none was", async () => {
    const { rerunArgs } = await import('../src/cli/node-check.js');
    expect(rerunArgs([], ['/old/node', 'dist/cli.js', 'download', '--runs', '1'])).toEqual([
      '--max-semi-space-size=4',
      'dist/cli.js',
      'download',
      '--runs',
      '1',
    ]);
    expect(rerunArgs(['--max-semi-space-size=16', '--inspect'], ['/old/node', 'dist/download.js'])).toEqual([
      '--max-semi-space-size=16',
      '--inspect',
      'dist/download.js',
    ]);
  });
});

describe.skipIf(!OLD_NODE)(
  `the README's examples under an older node first on ` +
    `PATH${OLD_NODE ? '' : ' (skipped: no node older than 22 on PATH)'}`,
  () => {
    const env = { ...process.env, PATH, FILE_SIZE: '64KiB', BLOB_CACHER_MIN_TIME: '0', NO_COLOR: '1' };
    const run = (args: string[], cwd: string, extra: Record<string, string> = {}) =>
      spawnSync('node', args, { cwd, env: { ...env, ...extra }, encoding: 'utf8', timeout: 120_000 });

    it('node dist/*.js re-run themselves under the pinned Node 24, quietly', () => {
      for (const entry of ['dist/download.js', 'dist/upload.js', 'dist/cli.js']) {
        const r = run([entry, '--help'], ROOT);
        expect(r.stderr).toBe('');
        expect(r.status).toBe(0);
        expect(r.stdout).toMatch(/usage/i);
      }
      // The Node it runs under is the pinned one, not the one on PATH.
      const probe = spawnSync('node', ['--version'], { env, encoding: 'utf8' }).stdout.trim();
      expect(Number(probe.replace(/^v/, '').split('.')[0])).toBeLessThan(22);
    });

    it('npx blob-cacher runs in the clone', () => {
      const r = spawnSync('npx', ['--no-install', 'blob-cacher', 'download', '--help'], {
        cwd: ROOT,
        env,
        encoding: 'utf8',
        timeout: 60_000,
      });
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/--source-method/);
    });

    it('a download, its results, report and compare run as printed', async () => {
      const dir = await tempDir();
      const cli = join(ROOT, 'dist', 'cli.js');
      // node dist/download.js --runs 5 --warmup 1 --results a.json (two of them, for compare)
      for (const file of ['a.json', 'b.json']) {
        const r = run(
          [
            join(ROOT, 'dist', 'download.js'),
            '--source-method',
            'single,chunked',
            '--runs',
            '2',
            '--warmup',
            '0',
            '--results',
            file,
          ],
          dir,
        );
        expect(r.stderr.split('\n').filter((l) => /Node .* too old|error/i.test(l))).toEqual([]);
        expect(r.status).toBe(0);
        expect(existsSync(join(dir, file))).toBe(true);
      }
      for (const [args, shape] of [
        [['report', 'a.json', '--format', 'md'], /single/],
        [['report', 'a.json', 'b.json'], /single/],
        [['compare', 'a.json', 'b.json'], /single/],
        [['report', 'a.json', '--format', 'html'], /<html/i],
      ] as const) {
        const r = run([cli, ...args], dir);
        expect(r.status, `${args.join(' ')}: ${r.stderr}`).toBe(0);
        expect(r.stdout).toMatch(shape);
      }
    });

    it('a signal to the re-running process reaches the run: partial results and 143', async () => {
      const dir = await tempDir();
      const child = spawn(
        'node',
        [
          join(ROOT, 'dist', 'download.js'),
          '--source-method',
          'single',
          '--runs',
          '1000',
          '--warmup',
          '0',
          '--results',
          'r.json',
        ],
        {
          cwd: dir,
          env: { ...env, ...ONE_RUN, BLOB_CACHER_RUNS: '1000' },
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stderr = '';
      child.stderr.on('data', (d: Buffer) => (stderr += d));
      // Once the first run has ended (its line says so), stop it as `kill` or a supervisor would.
      await new Promise<void>((done, fail) => {
        const timer = setTimeout(() => fail(new Error(`no run ended within 60 s: ${stderr}`)), 60_000);
        child.once('exit', (code) => fail(new Error(`exited ${code} before a run ended: ${stderr}`)));
        const poll = setInterval(() => {
          if (!existsSync(join(dir, 'r.json'))) return;
          clearInterval(poll);
          clearTimeout(timer);
          done();
        }, 100);
      });
      child.kill('SIGTERM');
      const code = await new Promise<number | null>((done) => child.on('exit', (c) => done(c)));
      expect(code).toBe(143);
      const results = JSON.parse(readFileSync(join(dir, 'r.json'), 'utf8')) as {
        interrupted?: string;
        runs: unknown[];
      };
      expect(results.interrupted).toBe('SIGTERM');
      expect(results.runs.length).toBeGreaterThan(0);
      // The pinned Node is found from the entry's own place, whatever the working directory.
      expect(
        execFileSync('node', ['-e', 'process.stdout.write(process.versions.node)'], {
          env,
          encoding: 'utf8',
        }),
      ).not.toMatch(/^2[2-9]\./);
    });
  },
);
