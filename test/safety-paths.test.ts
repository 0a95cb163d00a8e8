// Path options that write: --out never replaces a device, a FIFO or a
// symbolic link (a dangling one too), a directory or the --results file; each is refused before
// the run, in one line with exit 2, and what was at the path is left as it was.
import { execFileSync, spawnSync } from 'node:child_process';
import { lstat, mkdir, readdir, readFile, readlink, symlink, writeFile } from 'node:fs/promises';
import type http from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_JS, runCli } from './helpers/cli.js';
import { ONE_RUN } from './helpers/cli-env.js';
import { close, deterministicBuffer, listen, objectServer } from './helpers/http-servers.js';
import { freshDirs } from './helpers/temp-dirs.js';

const isRoot = process.getuid?.() === 0;
const SIZE = 256 * 1024;
const body = deterministicBuffer(SIZE);
let server: http.Server;
let url: string;
beforeAll(async () => {
  server = objectServer(body, true).server;
  url = `${await listen(server)}/blob.bin`;
});
afterAll(() => close(server));

const fresh = freshDirs('safety-paths-');
const download = (out: string, ...more: string[]) => [
  'download',
  '--url',
  url,
  '--source-method',
  'chunked',
  '--out',
  out,
  '--results',
  'r.json',
  ...more,
];

/** Exit 2, one line on stderr naming `what`, and no results file: refused before the run. */
async function refusedBeforeRun(cwd: string, args: string[], what: string): Promise<string> {
  const run = await runCli(args, { cwd, limitMs: 20_000 });
  expect(run.stderr.trimEnd().split('\n'), run.stderr).toHaveLength(1);
  expect(run.stderr).toContain(what);
  expect(run.code, run.stderr).toBe(2);
  expect(await readdir(cwd)).not.toContain('r.json');
  return run.stderr;
}

describe('--out never replaces a special file', () => {
  for (const sink of ['file', 'sparse-file']) {
    it.runIf(isRoot)(`--out at a character device: refused with --force, kept (sink ${sink})`, async () => {
      const cwd = await fresh();
      const dev = join(cwd, 'null');
      execFileSync('mknod', [dev, 'c', '1', '3']);
      const line = await refusedBeforeRun(cwd, download(dev, '--sink', sink, '--force'), dev);
      expect(line).toContain('character device');
      expect((await lstat(dev)).isCharacterDevice()).toBe(true);
      expect((await readdir(cwd)).sort()).toEqual(['null']);
    });
  }

  it('--out naming a FIFO is refused with --force, without opening it, and stays a FIFO', async () => {
    const cwd = await fresh();
    const fifo = join(cwd, 'pipe');
    execFileSync('mkfifo', [fifo]);
    expect(await refusedBeforeRun(cwd, download(fifo, '--sink', 'file', '--force'), fifo)).toContain('FIFO');
    expect((await lstat(fifo)).isFIFO()).toBe(true);
  });

  it('--out at a dangling symlink: refused even without --force, nothing made at its target', async () => {
    const cwd = await fresh();
    const link = join(cwd, 'link');
    await symlink(join(cwd, 'nowhere'), link);
    expect(await refusedBeforeRun(cwd, download(link, '--sink', 'file'), link)).toContain('symbolic link');
    expect(await readlink(link)).toBe(join(cwd, 'nowhere'));
    expect((await readdir(cwd)).sort()).toEqual(['link']);
  });

  it("a FIFO at --out's .partial name is refused too (the run writes there first)", async () => {
    const cwd = await fresh();
    const out = join(cwd, 'blob.bin');
    execFileSync('mkfifo', [`${out}.partial`]);
    expect(await refusedBeforeRun(cwd, download(out, '--sink', 'file'), `${out}.partial`)).toContain('FIFO');
  });

  it('a regular --out file is still written, and replaced with --force', async () => {
    const cwd = await fresh();
    const out = join(cwd, 'blob.bin');
    await writeFile(out, 'old');
    const run = await runCli(download(out, '--sink', 'file', '--force'), { cwd, limitMs: 30_000 });
    expect(run.code, run.stderr).toBe(0);
    expect((await readFile(out)).equals(body)).toBe(true);
  });
});

describe('--out checked against a directory and the results file before the run', () => {
  it('--out DIR --force is refused before the run, naming the fix, and leaves no DIR.partial', async () => {
    const cwd = await fresh();
    await mkdir(join(cwd, 'adir'));
    const line = await refusedBeforeRun(cwd, download('adir', '--sink', 'file', '--force'), 'adir');
    expect(line).toContain('is a directory');
    expect(line).toContain('adir/blob.bin');
    expect((await readdir(cwd)).sort()).toEqual(['adir']);
  });

  it('--out equal to --results is refused before the run', async () => {
    const cwd = await fresh();
    const line = await refusedBeforeRun(
      cwd,
      ['download', '--url', url, '--sink', 'file', '--out', 'r.json', '--results', './r.json'],
      '--results',
    );
    expect(line).toContain('different paths');
    expect(await readdir(cwd)).toEqual([]);
  });

  it('--out naming the --results file by a hard link is refused with --force; the file is kept', async () => {
    const cwd = await fresh();
    await writeFile(join(cwd, 'r.json'), '{"kept":true}');
    execFileSync('ln', [join(cwd, 'r.json'), join(cwd, 'same.bin')]);
    const run = await runCli(
      ['download', '--url', url, '--sink', 'file', '--out', 'same.bin', '--force', '--results', 'r.json'],
      { cwd, limitMs: 20_000 },
    );
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr).toContain('different paths');
    expect(await readFile(join(cwd, 'r.json'), 'utf8')).toBe('{"kept":true}');
  });
});

/**
 * Whether this system lets a test make a private mount namespace (unshare -rm) to bind a folder read-only.
 */
const privateMounts = (() => {
  try {
    execFileSync('unshare', ['-rm', 'true'], { stdio: 'ignore', timeout: 5_000 });
    return true;
  } catch {
    return false;
  }
})();

describe('--out on a read-only mount', () => {
  it.runIf(privateMounts)(
    'is refused before the run in one line naming the folder (it failed after the whole download)',
    async () => {
      const cwd = await fresh();
      const ro = join(cwd, 'ro');
      await mkdir(ro);
      // The CLI runs in a mount namespace of its own where `ro` is bound read-only (EROFS, even for root).
      const bind = 'mount --bind "$RO" "$RO" && mount -o remount,ro,bind "$RO" && exec "$@"';
      const run = spawnSync(
        'unshare',
        [
          '-rm',
          'sh',
          '-c',
          bind,
          'sh',
          process.execPath,
          CLI_JS,
          ...download('ro/out.bin', '--sink', 'file'),
        ],
        {
          cwd,
          env: { ...ONE_RUN, PATH: process.env.PATH ?? '', RO: ro },
          encoding: 'utf8',
          timeout: 20_000,
        },
      );
      expect(run.stderr.trimEnd().split('\n'), run.stderr).toEqual([
        `blob-cacher: --out ro/out.bin: the directory ${ro} is on a read-only file system; choose ` +
          `a path where this user may write`,
      ]);
      expect(run.status).toBe(2);
      expect(await readdir(cwd)).toEqual(['ro']);
    },
  );
});
