// Where results go: a device, FIFO, directory or symbolic link at the
// results path is refused and left as it was, an unusable path is refused before any measuring, and
// no temporary file is left behind, whether a write succeeds or fails part-way.
import { execFileSync, spawn } from 'node:child_process';
import { chmod, lstat, mkdir, readdir, readFile, readlink, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../src/vocabulary/errors.js';
import { writeResults as writeResultsFromFile } from '../src/results/file.js';
import { RESULTS_SCHEMA, RESULTS_SCHEMA_VERSION, type ResultsFile } from '../src/results/schema.js';
import { checkResultsPath, writeResults, writeResultsOrExplain } from '../src/results/write.js';
import { freshDirs } from './helpers/temp-dirs.js';

const FILE_JS = fileURLToPath(new URL('../dist/results/file.js', import.meta.url));
const WRITE_JS = fileURLToPath(new URL('../dist/results/write.js', import.meta.url));
const isRoot = process.getuid?.() === 0;

const doc = (padBytes = 0): ResultsFile => ({
  schema: RESULTS_SCHEMA,
  schemaVersion: RESULTS_SCHEMA_VERSION,
  command: 'download',
  createdAt: new Date(0).toISOString(),
  complete: true,
  config: { pad: 'x'.repeat(padBytes) },
  environment: {
    node: 'v24',
    os: 'linux',
    arch: 'x64',
    cpus: 1,
    cpuModel: 'test',
    totalMemoryBytes: 1,
    targetKind: 'url',
    target: 'test',
    packageVersion: '0',
  },
  runs: [],
});

/** Rejects with a ConfigError of one line that names `path`; returns its message. */
async function refused(p: Promise<unknown>, path: string): Promise<string> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ConfigError);
  const { message, exitCode } = err as ConfigError;
  expect(exitCode).toBe(2);
  expect(message).not.toContain('\n');
  expect(message).toContain(path);
  return message;
}

const fresh = freshDirs('results-path-test-');

describe('results target kinds', () => {
  it.runIf(isRoot)(
    'a character device like /dev/null is refused and stays a character device (root)',
    async () => {
      // The real /dev/null is only ever checked: a copy made with mknod takes the write, so a
      // regression cannot replace the device every other process on this machine uses.
      await refused(checkResultsPath('/dev/null'), '/dev/null');
      expect((await stat('/dev/null')).isCharacterDevice()).toBe(true);
      const dir = await fresh();
      const devNull = join(dir, 'null');
      execFileSync('mknod', [devNull, 'c', '1', '3']);
      const before = await lstat(devNull);
      const message = await refused(writeResults(devNull, doc()), devNull);
      expect(message).toContain('character device');
      const after = await lstat(devNull);
      expect(after.isCharacterDevice()).toBe(true);
      expect(after.rdev).toBe(before.rdev);
      expect(await readdir(dir)).toEqual(['null']);
    },
  );

  it('a FIFO is refused without opening it (no hang) and stays a FIFO', { timeout: 5_000 }, async () => {
    const dir = await fresh();
    const fifo = join(dir, 'results.json');
    execFileSync('mkfifo', [fifo]);
    await refused(checkResultsPath(fifo), fifo);
    const message = await refused(writeResults(fifo, doc()), fifo);
    expect(message).toContain('FIFO');
    expect((await lstat(fifo)).isFIFO()).toBe(true);
    expect(await readdir(dir)).toEqual(['results.json']);
  });

  it('a directory is refused with the fix, and no temporary file is left beside it', async () => {
    const dir = await fresh();
    const target = join(dir, 'out');
    await mkdir(target);
    await refused(checkResultsPath(target), target);
    const message = await refused(writeResults(target, doc()), target);
    expect(message).toContain(`${target}/run.json`);
    expect((await lstat(target)).isDirectory()).toBe(true);
    expect(await readdir(dir)).toEqual(['out']);
  });

  it('a symbolic link is refused, naming where it points; the link and its file are unchanged', async () => {
    const dir = await fresh();
    const real = join(dir, 'real.json');
    const link = join(dir, 'latest.json');
    await writeFile(real, 'keep');
    await symlink('real.json', link);
    await refused(checkResultsPath(link), link);
    const message = await refused(writeResults(link, doc()), link);
    expect(message).toContain(`give --results ${real}`);
    expect(await readlink(link)).toBe('real.json');
    expect(await readFile(real, 'utf8')).toBe('keep');
    // A dangling link (nothing to follow yet) is refused too, not replaced.
    const dangling = join(dir, 'dangling.json');
    await symlink(join(dir, 'nowhere.json'), dangling);
    await refused(writeResults(dangling, doc()), dangling);
    expect((await lstat(dangling)).isSymbolicLink()).toBe(true);
    expect((await readdir(dir)).sort()).toEqual(['dangling.json', 'latest.json', 'real.json']);
  });

  it('a link planted at the old predictable temporary name is not followed', async () => {
    const dir = await fresh();
    const victim = join(dir, 'victim');
    const target = join(dir, 'results.json');
    await writeFile(victim, 'keep');
    await symlink(victim, `${target}.tmp-${process.pid}`);
    await writeResultsFromFile(target, doc());
    expect(await readFile(victim, 'utf8')).toBe('keep');
    expect(JSON.parse(await readFile(target, 'utf8'))).toEqual(doc());
  });

  it('a regular file is replaced whole, through file.ts as before, leaving no temporary file', async () => {
    const dir = await fresh();
    const target = join(dir, 'nested', 'results.json');
    await writeResultsFromFile(target, doc(10));
    await writeResultsFromFile(target, doc());
    expect(JSON.parse(await readFile(target, 'utf8'))).toEqual(doc());
    expect(await readdir(join(dir, 'nested'))).toEqual(['results.json']);
  });
});

describe('checkResultsPath, before any measuring', () => {
  it('a path under a regular file is refused, naming that file', async () => {
    const dir = await fresh();
    const file = join(dir, 'not-a-dir');
    await writeFile(file, 'keep');
    for (const target of [join(file, 'results.json'), join(file, 'sub', 'results.json')]) {
      const message = await refused(checkResultsPath(target), target);
      expect(message).toContain(`${file} is not a directory`);
    }
    expect(await readFile(file, 'utf8')).toBe('keep');
  });

  it.runIf(process.platform === 'linux')(
    'a directory that cannot be made under /proc is refused at once (no endless mkdir)',
    { timeout: 5_000 },
    async () => {
      const target = `/proc/blob-cacher-${process.pid}/results.json`;
      const message = await refused(checkResultsPath(target), target);
      expect(message).toContain('ENOENT');
    },
  );

  it.skipIf(isRoot)(
    'a directory without write permission is refused (not root: root bypasses modes)',
    async () => {
      const dir = await fresh();
      await chmod(dir, 0o500);
      try {
        const target = join(dir, 'results.json');
        const message = await refused(checkResultsPath(target), target);
        expect(message).toContain('permission denied');
      } finally {
        await chmod(dir, 0o700);
      }
    },
  );

  it('a usable path passes, creating its directory and nothing else', async () => {
    const dir = await fresh();
    const target = join(dir, 'a', 'b', 'results.json');
    await checkResultsPath(target);
    expect(await readdir(join(dir, 'a', 'b'))).toEqual([]);
    await writeFile(target, 'old');
    await checkResultsPath(target);
    expect(await readdir(join(dir, 'a', 'b'))).toEqual(['results.json']);
  });
});

/** Runs dist's writeResults in a child limited to a 512-byte file size, so the write fails part-way. */
function writeWithFileSizeLimit(
  target: string,
  explain: boolean,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const script = explain
    ? `const { writeResultsOrExplain } = await import(${JSON.stringify(WRITE_JS)});
       console.log(JSON.stringify({ line: ` +
      `await writeResultsOrExplain(process.argv[1], JSON.parse(process.argv[2])) }));`
    : `const { writeResults } = await import(${JSON.stringify(FILE_JS)});
       await writeResults(process.argv[1], JSON.parse(process.argv[2]));`;
  return new Promise((resolve, reject) => {
    // Node ignores SIGXFSZ, so a write past the limit fails with EFBIG instead of killing the child.
    const child = spawn(
      'sh',
      [
        '-c',
        'ulimit -f 1; exec "$0" --input-type=module -e "$1" "$2" "$3"',
        process.execPath,
        script,
        target,
        JSON.stringify(doc(4096)),
      ],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('a write that fails part-way (dist: npm run build first)', () => {
  it('fails, keeps the old file and leaves no temporary file', async () => {
    const dir = await fresh();
    const target = join(dir, 'results.json');
    await writeFile(target, 'old');
    const run = await writeWithFileSizeLimit(target, false);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('EFBIG');
    expect(await readFile(target, 'utf8')).toBe('old');
    expect(await readdir(dir)).toEqual(['results.json']);
  });

  it('writeResultsOrExplain returns one line saying where results could not go', async () => {
    const dir = await fresh();
    const target = join(dir, 'results.json');
    const run = await writeWithFileSizeLimit(target, true);
    expect(run.code).toBe(0);
    const { line } = JSON.parse(run.stdout) as { line: string };
    expect(line).toMatch(
      /^results not saved: cannot write results to .*results\.json \(file too large.*EFBIG\); free space/,
    );
    expect(await readdir(dir)).toEqual([]);
    // And a refused target explains itself the same way instead of throwing.
    const explained = await writeResultsOrExplain(dir, doc());
    expect(explained).toContain(`results not saved: results path ${dir} is a directory`);
    expect(await writeResultsOrExplain(target, doc())).toBeUndefined();
  });
});
