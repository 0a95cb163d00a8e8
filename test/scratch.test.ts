// Scratch space for downloaded bytes: a private, unpredictable directory instead
// of /tmp/blob-cacher-<pid>-<strategy>.out, and the directories of killed runs swept on the next.
import { spawn } from 'node:child_process';
import { lstat, mkdir, readdir, readFile, readlink, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { makeScratchDir, sweepStaleScratchDirs } from '../src/payload/scratch.js';
import { freshDirs } from './helpers/temp-dirs.js';

const SCRATCH_JS = fileURLToPath(new URL('../dist/payload/scratch.js', import.meta.url));

const fresh = freshDirs('scratch-test-');

/** The pid of a process that has already exited. */
function deadPid(): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', () => resolve(child.pid!));
  });
}

describe('makeScratchDir', () => {
  it('creates a private (0700) directory with an unpredictable name, a new one each time', async () => {
    const parent = await fresh();
    const a = await makeScratchDir({ parent });
    const b = await makeScratchDir({ parent });
    expect(a.dir).not.toBe(b.dir);
    for (const s of [a, b]) {
      expect(s.dir.startsWith(join(parent, `blob-cacher-${process.pid}-`))).toBe(true);
      const st = await lstat(s.dir);
      expect(st.isDirectory()).toBe(true);
      expect(st.mode & 0o777).toBe(0o700);
    }
    await a.remove();
    await b.remove();
    expect(await readdir(parent)).toEqual([]);
  });

  it('uses the OS temp directory by default', async () => {
    const s = await makeScratchDir();
    try {
      expect(s.dir.startsWith(join(tmpdir(), `blob-cacher-${process.pid}-`))).toBe(true);
    } finally {
      await s.remove();
    }
  });

  it('does not follow a link planted at the old predictable name', async () => {
    const parent = await fresh();
    const victim = join(parent, 'victim');
    await writeFile(victim, 'keep');
    const planted = join(parent, `blob-cacher-${process.pid}-single.out`);
    await symlink(victim, planted);
    const s = await makeScratchDir({ parent });
    await writeFile(s.path('single.out'), 'downloaded bytes');
    expect(await readFile(victim, 'utf8')).toBe('keep');
    expect(await readlink(planted)).toBe(victim);
    expect(await readFile(s.path('single.out'), 'utf8')).toBe('downloaded bytes');
    await s.remove();
  });

  it('path() takes plain file names only', async () => {
    const s = await makeScratchDir({ parent: await fresh() });
    expect(s.path('chunked.out')).toBe(join(s.dir, 'chunked.out'));
    for (const bad of ['', '.', '..', '../escape', 'a/b', '/etc/passwd'])
      expect(() => s.path(bad)).toThrow(/plain file name/);
    await s.remove();
  });

  it('remove() takes everything with it and can be called twice', async () => {
    const s = await makeScratchDir({ parent: await fresh() });
    await writeFile(s.path('x.out'), 'x');
    await s.remove();
    await s.remove();
    await expect(stat(s.dir)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('sweeping stale scratch directories', () => {
  it('removes directories of ended processes only, and never follows a link', async () => {
    const parent = await fresh();
    const dead = await deadPid();
    const stale = join(parent, `blob-cacher-${dead}-aB3xYz`);
    await mkdir(stale);
    await writeFile(join(stale, 'single.out'), 'x');
    const mine = join(parent, `blob-cacher-${process.pid}-Qw3rTy`);
    const parents = join(parent, `blob-cacher-${process.ppid}-Qw3rTy`);
    const notOurs = join(parent, 'blob-cacher-other');
    for (const d of [mine, parents, notOurs]) await mkdir(d);
    const plainFile = join(parent, `blob-cacher-${dead}-fIlE00`);
    await writeFile(plainFile, 'keep');
    // A link with a stale-looking name: the link may go or stay, what it points to must stay.
    const victimDir = join(parent, 'victim');
    await mkdir(victimDir);
    await writeFile(join(victimDir, 'precious'), 'keep');
    await symlink(victimDir, join(parent, `blob-cacher-${dead}-LiNk00`));

    expect(await sweepStaleScratchDirs(parent)).toEqual([stale]);
    expect((await readdir(parent)).sort()).toEqual(
      [
        `blob-cacher-${dead}-LiNk00`,
        `blob-cacher-${dead}-fIlE00`,
        `blob-cacher-${process.ppid}-Qw3rTy`,
        `blob-cacher-${process.pid}-Qw3rTy`,
        'blob-cacher-other',
        'victim',
      ].sort(),
    );
    expect(await readFile(join(victimDir, 'precious'), 'utf8')).toBe('keep');
    expect(await readFile(plainFile, 'utf8')).toBe('keep');
  });

  it(
    'a run killed with SIGKILL leaves its directory, and the next makeScratchDir sweeps it (dist: ' +
      'npm run build first)',
    async () => {
      const parent = await fresh();
      const script = `const { makeScratchDir } = await import(${JSON.stringify(SCRATCH_JS)});
      const s = await makeScratchDir({ parent: process.argv[1] });
      console.log(s.dir); setInterval(() => {}, 1000);`;
      const child = spawn(process.execPath, ['--input-type=module', '-e', script, parent], {
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      const killedDir = await new Promise<string>((resolve, reject) => {
        child.on('error', reject);
        child.on('exit', (code) => reject(new Error(`child exited early (${code})`)));
        child.stdout.once('data', (c: Buffer) => resolve(c.toString().trim()));
      });
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
      expect((await lstat(killedDir)).isDirectory()).toBe(true);
      const next = await makeScratchDir({ parent });
      expect(await readdir(parent)).toEqual([next.dir.slice(parent.length + 1)]);
      await next.remove();
    },
  );
});
