// blob-cacher tune against the emulated target, whose optimum is known: each connection is paced at
// r, all of them together at R, so parallel requests help up to R / r and no further, and nothing
// can beat R. The grid's measured time is bounded below by the same pacing (no run of a cell can be
// faster than its pace allows), so "at most a quarter of the grid's time" is checked against less
// than the grid would really take.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmulatedTarget, type EmulatedTarget } from '../src/emulate/server.js';
import { contentBuffer, FIXTURE_SEED } from '../src/payload/content.js';
import type { ResultsFile } from '../src/results/schema.js';
import { freshDirs } from './helpers/temp-dirs.js';

const ROOT = resolve(import.meta.dirname, '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const MiB = 1024 * 1024;
const tempDir = freshDirs('blob-cacher-tune-');

function cli(args: string[], cwd: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd,
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 240_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

describe('tune on the emulated target (r per connection, R in all)', () => {
  const r = 8 * MiB;
  const R = 32 * MiB;
  const size = 4 * MiB;
  let target: EmulatedTarget;
  beforeAll(async () => {
    target = await startEmulatedTarget({
      perConnectionBytesPerSecond: r,
      totalBytesPerSecond: R,
      objects: new Map([['/large.bin', contentBuffer(FIXTURE_SEED, 0, size)]]),
    });
  });
  afterAll(() => target.close());

  it('finds the knee (R / r in flight) within 5% of the best the grid could hold, for under a quarter ' +
    "of the grid's time", {
    timeout: 300_000,
  }, async () => {
    const dir = await tempDir();
    const res = await cli(
      [
        'tune',
        'download',
        '--url',
        `${target.url}/large.bin`,
        '--source-method',
        'single,chunked',
        '--processes',
        '1',
        '--budget',
        '3m',
        '--results',
        'tune.json',
      ],
      dir,
    );
    expect(res.code, res.stderr).toBe(0);
    const doc = JSON.parse(readFileSync(join(dir, 'tune.json'), 'utf8')) as ResultsFile;
    const tune = doc.tune!;
    expect(tune.stopped).toBe('converged');
    expect(tune.best?.['--source-method']).toBe('chunked');
    const parallel = Math.min(Number(tune.best!['--concurrency']), Number(tune.best!['--max-sockets']));
    expect(parallel).toBeGreaterThanOrEqual(R / r - 1);
    // The best's rate: nothing can go faster than R, so within 5% of R is within 5% of the grid's best.
    const bestRuns = doc.runs.filter(
      (x) => !x.warmup && JSON.stringify(x.cell) === JSON.stringify(tune.best),
    );
    const bestMiBps = bestRuns.map((x) => x.bytes / MiB / (x.wallMs / 1000)).sort((a, b) => a - b)[
      Math.floor(bestRuns.length / 2)
    ]!;
    // The grid over the same axes (2 strategies x 9 concurrencies x 9 socket counts), each cell 1 warm-up
    // and 5 runs no faster than its pace: a lower bound on what measuring it would take.
    const axes = Object.fromEntries(tune.axes.map((a) => [a.flag, a.values]));
    let gridMs = 0;
    for (const method of axes['--source-method']!) {
      for (const c of axes['--concurrency']!) {
        for (const s of axes['--max-sockets']!) {
          const inFlight = method === 'single' ? 1 : Math.min(Number(c), Number(s));
          gridMs += 6 * (size / Math.min(inFlight * r, R)) * 1000;
        }
      }
    }
    const spentMs = tune.path.reduce((t, p) => t + p.spentMs, 0);
    process.stdout.write(
      `tune: best ${JSON.stringify(tune.best)} at ${bestMiBps.toFixed(1)} MiB/s of ${R / MiB} ` +
        `possible; ${tune.path.length} cells, ${(spentMs / 1000).toFixed(1)} s against a grid of ` +
        `${tune.axes.reduce((n, a) => n * a.values.length, 1)} cells taking at least ` +
        `${(gridMs / 1000).toFixed(0)} s (${((100 * spentMs) / gridMs).toFixed(1)}%)\n`,
    );
    expect(bestMiBps).toBeGreaterThanOrEqual(0.95 * (R / MiB));
    expect(spentMs).toBeLessThanOrEqual(0.25 * gridMs);
    // The console answer: the best, its neighbours, the path, and what to deploy.
    expect(res.stdout).toMatch(/^best: source-method chunked/m);
    expect(res.stdout).toMatch(
      new RegExp(
        String.raw`^deploy:\n {2}PROCESSES=1 SOURCE_METHOD=chunked ` +
          String.raw`CONCURRENCY=\d+ MAX_SOCKETS=\d+\n {2}npx blob-cacher k8s-manifest --parallelism ` +
          '1 -- download --processes 1 --source-method chunked',
        'm',
      ),
    );
    expect(res.stdout).toMatch(/^Recommended: --source-method chunked/m);
    // report renders the saved tune, the HTML with a chart per searched axis.
    const html = await cli(['report', 'tune.json', '--format', 'html'], dir);
    expect(html.code).toBe(0);
    for (const a of tune.axes) expect(html.stdout).toContain(`data-chart="tune-${a.flag}"`);
    expect(html.stdout).toContain('class="datum best"');
    const md = await cli(['report', 'tune.json', '--format', 'md'], dir);
    expect(md.stdout).toContain('### Tune');
  });

  // With --max-retries 0 a 503 ends its request (the class is in its error); with retries, a retry
  // overcomes it and the run's count by class keeps which limit it was.
  it.each([
    ['--max-retries', '0'],
    ['--max-retries', '3'],
  ])(
    'past a request-rate limit (%s %s) it stops growing there, names the class and the value, and ' +
      'recommends the best unthrottled cell',
    { timeout: 300_000 },
    async (...retries) => {
      // 4 MiB at 32 MiB/s is 125 ms a run, its ranges all asked at its start; the "account" takes 60
      // requests a second held over 100 ms windows (6 at once): 4 ranges pass, 8 are throttled.
      const limited = await startEmulatedTarget({
        perConnectionBytesPerSecond: r,
        totalBytesPerSecond: R,
        opsPerSecond: 60,
        opsWindowMs: 100,
        objects: new Map([['/o.bin', contentBuffer(FIXTURE_SEED, 0, 4 * MiB)]]),
      });
      try {
        const dir = await tempDir();
        const res = await cli(
          [
            'tune',
            'download',
            '--url',
            `${limited.url}/o.bin`,
            '--source-method',
            'chunked',
            '--processes',
            '1',
            '--max-sockets',
            '64',
            ...retries,
            '--budget',
            '2m',
            '--results',
            't.json',
          ],
          dir,
        );
        const doc = JSON.parse(readFileSync(join(dir, 't.json'), 'utf8')) as ResultsFile;
        const tune = doc.tune!;
        expect(limited.log.throttled).toBeGreaterThan(0);
        const pathSeen = JSON.stringify(
          tune.path.map((p) => [p.reason, p.axis, p.cell, p.throttled, p.throttleClass]),
        );
        const stderrSeen = res.stderr
          .split('\n')
          .filter((l) => !/ error: chunked .*failed: HTTP 503/.test(l))
          .join('\n');
        expect(
          tune.best,
          `the search did not finish: ${pathSeen}\nexit ${res.code}: ${stderrSeen}`,
        ).toBeDefined();
        const boundary = tune.throttling.find((b) => b.axis === '--concurrency');
        // (Its exit is 1 where runs failed: --max-retries 0 lets a 503 fail its run.)
        expect(boundary?.throttleClass, pathSeen).toBe('operations');
        const best = tune.path.find((p) => JSON.stringify(p.cell) === JSON.stringify(tune.best))!;
        expect(best.throttled).toBe(0);
        expect(Number(tune.best!['--concurrency'])).toBeLessThan(Number(boundary!.value));
        expect(res.stdout).toMatch(
          /^throttling began at concurrency \d+ \(operations per second over the limit\)$/m,
        );
        expect(res.stdout).toMatch(/^Recommended: .*Throttling began at --concurrency \d+ \(operations\)/m);
        // The deploy lines carry the settings kept as given beside the searched one.
        expect(res.stdout).toMatch(/^ {2}SOURCE_METHOD=chunked MAX_SOCKETS=64 PROCESSES=1 CONCURRENCY=\d+$/m);
      } finally {
        await limited.close();
      }
    },
  );

  it('an upload of many small files: the sockets at the knee, the fewest that are as fast, within 5% of R', {
    timeout: 300_000,
  }, async () => {
    const put = await startEmulatedTarget({
      perConnectionBytesPerSecond: 4 * MiB,
      totalBytesPerSecond: 16 * MiB,
    });
    try {
      const dir = await tempDir();
      const res = await cli(
        [
          'tune',
          'upload',
          '--url',
          `${put.url}/dav/`,
          '--file-count',
          '64',
          '--file-size',
          '64KiB',
          '--budget',
          '2m',
          '--results',
          'u.json',
        ],
        dir,
      );
      expect(res.code, res.stderr).toBe(0);
      const doc = JSON.parse(readFileSync(join(dir, 'u.json'), 'utf8')) as ResultsFile;
      const tune = doc.tune!;
      expect(tune.axes.map((a) => a.flag)).toEqual(['--max-sockets', '--processes']);
      const sockets = Number(tune.best!['--max-sockets']) * Number(tune.best!['--processes']);
      const runs = doc.runs.filter((x) => !x.warmup && JSON.stringify(x.cell) === JSON.stringify(tune.best));
      const mibps = runs.map((x) => x.bytes / MiB / (x.wallMs / 1000)).sort((a, b) => a - b)[
        Math.floor(runs.length / 2)
      ]!;
      // The grid over the same axes, each cell 6 runs of 4 MiB no faster than its pace: a lower bound.
      // The start (16 sockets) is past the knee: the search shows growth does not help (2 cells),
      // bisects down to the knee, and races the slower cells (3 runs each instead of 5), rather than
      // walking down a step (and a half step) at a time.
      const axes = Object.fromEntries(tune.axes.map((a) => [a.flag, a.values]));
      let gridMs = 0;
      for (const s of axes['--max-sockets']!)
        for (const p of axes['--processes']!)
          gridMs += 6 * ((4 * MiB) / Math.min(Number(s) * Number(p) * 4 * MiB, 16 * MiB)) * 1000;
      const spentMs = tune.path.reduce((t, p) => t + p.spentMs, 0);
      process.stdout.write(
        `tune upload: best ${JSON.stringify(tune.best)} at ${mibps.toFixed(1)} MiB/s of 16 ` +
          `possible; ${tune.path.length} cells, ${(spentMs / 1000).toFixed(1)} s against a grid of ` +
          `at least ${(gridMs / 1000).toFixed(1)} s (${((100 * spentMs) / gridMs).toFixed(1)}%)\n`,
      );
      // R / r = 4 connections fill the total; more are no faster, so the fewest as fast is the answer.
      expect(sockets).toBeGreaterThanOrEqual(3);
      expect(sockets).toBeLessThanOrEqual(8);
      expect(mibps).toBeGreaterThanOrEqual(0.95 * 16);
      expect(spentMs).toBeLessThanOrEqual(0.25 * gridMs);
      // Raced: a cell of half the knee's connections or fewer (at least 2x slower) stops after 3 measured
      // runs; the best has all 5.
      const measuredRuns = (cell: Record<string, string>) =>
        doc.runs.filter((x) => !x.warmup && JSON.stringify(x.cell) === JSON.stringify(cell)).length;
      // (Under load 4 sockets, exactly at the knee, can measure slower than 16: the bisection then
      // settles at 8 and never visits 2 or fewer. The race itself is tested on the model too.)
      const slow = tune.path.filter(
        (p) => Number(p.cell['--max-sockets']) * Number(p.cell['--processes']) <= 2,
      );
      for (const p of slow) expect(measuredRuns(p.cell), JSON.stringify(p.cell)).toBe(3);
      expect(measuredRuns(tune.best!)).toBe(5);
      expect(res.stdout).toMatch(
        /^ {2}BLOB_CACHER_UPLOAD_METHOD=small-files MAX_SOCKETS=\d+ PROCESSES=\d+$/m,
      );
    } finally {
      await put.close();
    }
  });

  it('the deploy lines carry every request-shaping option given', { timeout: 120_000 }, async () => {
    const dir = await tempDir();
    const shaping: [string, string][] = [
      ['--range-size', '1MiB'],
      ['--hedge', 'p90'],
      ['--http-client', 'node'],
      ['--buffer-size', '64KiB'],
      ['--sink', 'discard'],
      ['--connections', 'warm'],
    ];
    const fixed = ['--source-method=chunked', '--processes=1', '--max-sockets=8', '--runs=4', '--warmup=0'];
    fixed.push('--budget=1s');
    const url = `${target.url}/large.bin`;
    const res = await cli(['tune', 'download', `--url=${url}`, ...fixed, ...shaping.flat()], dir);
    expect(res.code, res.stderr).toBe(0);
    const lines = res.stdout.split('\n');
    const [environment, manifest] = lines.slice(lines.indexOf('deploy:') + 1).map((l) => l.trim());
    for (const [flag, value] of shaping) {
      expect(manifest, flag).toContain(` ${flag} ${value}`);
      const name = `BLOB_CACHER_${flag.slice(2).toUpperCase().replace('-', '_')}`;
      expect(environment, flag).toContain(`${name}=${value}`);
    }
    expect(manifest).toMatch(/ --concurrency \d+$/);
  });

  it('refuses a tune with nothing left to search, in one line', async () => {
    const dir = await tempDir();
    const res = await cli(
      [
        'tune',
        'download',
        '--url',
        `${target.url}/large.bin`,
        '--source-method',
        'chunked',
        '--processes',
        '1',
        '--max-sockets',
        '8',
        '--concurrency',
        '4',
      ],
      dir,
    );
    expect(res.code).toBe(2);
    expect(res.stderr.trim().split('\n')).toHaveLength(1);
    expect(res.stderr).toMatch(/every setting tune searches was given/);
  });
});
