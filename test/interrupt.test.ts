// Stopping and dying mid-run, through the real CLI: SIGINT/SIGTERM write partial results and exit
// 130/143; a worker killed with SIGKILL is named, the other worker's results are kept; no worker
// process outlives the run.
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { close, deterministicBuffer, listen, slowObjectServer } from './helpers/http-servers.js';
import { alive, childPids } from './helpers/processes.js';
import { ONE_RUN } from './helpers/cli-env.js';
import { runFailed } from '../src/results/schema.js';
import { freshDirsSync } from './helpers/temp-dirs.js';

// Scratch directories, removed after the file so none is left in /tmp.
const scratchDir = freshDirsSync('bc-int-');
const scratchDirUp = freshDirsSync('bc-int-up-');

const root = resolve(import.meta.dirname, '..');
const SIZE = 2 * 1024 * 1024;
const body = deterministicBuffer(SIZE);
/** How long the upload test holds PUT answers after its signal: far longer than a stop takes to reach
 * the workers, and shorter than the second the pool gives what is in flight before it kills them. */
const STOP_REACHES_WORKERS_MS = 800;
let server: http.Server;
let baseUrl: string;
let rangeGets = 0;

// Serves ranges slowly (64 KiB every 40 ms), so a run is still in flight when the test acts.
beforeAll(async () => {
  server = slowObjectServer(body, () => rangeGets++);
  baseUrl = await listen(server);
});
afterAll(() => close(server));

function startCli(args: string[]) {
  const cwd = scratchDir();
  const child = spawn(
    process.execPath,
    [
      join(root, 'dist/cli.js'),
      'download',
      '--url',
      `${baseUrl}/x`,
      '--results',
      'r.json',
      '--log-level',
      'verbose',
      ...args,
    ],
    {
      cwd,
      env: { ...ONE_RUN, PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
  const waitFor = async (re: RegExp) => {
    for (let i = 0; i < 300 && !re.test(stderr); i++) await new Promise((r) => setTimeout(r, 50));
    expect(stderr).toMatch(re);
  };
  return { child, cwd, exited, waitFor, out: () => ({ stdout, stderr }) };
}

describe('SIGINT and SIGTERM', () => {
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    it(
      `${signal}: starts nothing new, stops the run in flight, writes partial results, exits ${code} ` +
        `promptly, leaves no workers`,
      async () => {
        const cli = startCli(['--source-method', 'chunked', '--concurrency', '4', '--runs', '20']);
        // Let at least one run complete, then stop in the middle of a later one.
        await cli.waitFor(/chunked: 4 request\(s\)[\s\S]*chunked: 4 request\(s\)/);
        const workers = childPids(cli.child.pid!);
        const signalled = performance.now();
        cli.child.kill(signal);
        expect(await cli.exited).toBe(code);
        // Bounded, not instant: a grace second for what is in flight, then the workers are ended (the
        // issue's goal is 2 s; the slack is for a loaded CI machine).
        expect(performance.now() - signalled).toBeLessThan(4_000);
        const { stdout, stderr } = cli.out();
        expect(stderr).toContain(`${signal}: no new requests`);
        expect(stderr).not.toMatch(/\n\s+at /);
        expect(stdout).toContain(`STOPPED by ${signal}`);
        const doc = JSON.parse(readFileSync(join(cli.cwd, 'r.json'), 'utf8'));
        expect(doc.complete).toBe(false);
        expect(doc.runs.length).toBeGreaterThanOrEqual(1);
        expect(doc.runs.length).toBeLessThan(20);
        // Runs cut short are left out rather than reported as failures.
        expect(
          doc.runs.some(runFailed),
          JSON.stringify(
            doc.runs.map((r: { verification: string; error?: string }) => [r.verification, r.error]),
          ),
        ).toBe(false);
        expect(readdirSync(cli.cwd).filter((f) => f.includes('.tmp-'))).toEqual([]);
        for (const pid of workers) expect(alive(pid)).toBe(false);
      },
    );
  }
});

describe('results that cannot be written at the end', () => {
  it(
    'the report is still printed, the line says where the results could not go, ' + 'and the exit is 1',
    async () => {
      const cli = startCli(['--source-method', 'chunked', '--concurrency', '4', '--runs', '3']);
      // After the first run the file exists; then something puts a directory in its place.
      await cli.waitFor(/chunked: 4 request\(s\)[\s\S]*chunked: 4 request\(s\)/);
      // The CLI may be saving the first run at this moment (a temp file renamed into place): the
      // directory goes in once no file is renamed back between the removal and the mkdir.
      for (let tries = 0; ; tries++) {
        rmSync(join(cli.cwd, 'r.json'), { force: true });
        try {
          mkdirSync(join(cli.cwd, 'r.json'));
          break;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || tries >= 50) throw err;
          await new Promise((r) => setTimeout(r, 10));
        }
      }
      expect(await cli.exited).toBe(1);
      const { stdout, stderr } = cli.out();
      expect(stdout).toMatch(/^\d+=?\s+chunked\s.*\snot verified \(plain URL/m);
      expect(stderr).toMatch(/^blob-cacher: results not saved: .*r\.json/m);
      expect(stderr).not.toMatch(/\n\s+at /);
      expect(readdirSync(cli.cwd).filter((f) => f.includes('.tmp'))).toEqual([]);
    },
  );
});

describe('a worker process that dies', () => {
  it('is named with its cause; the other worker is kept; the run exits 1 with its results file', async () => {
    rangeGets = 0;
    const cli = startCli(['--source-method', 'chunked', '--concurrency', '4', '--processes', '2']);
    await cli.waitFor(/chunked: 4 request\(s\) over 2 process/);
    // Both workers are mid-body once the server has seen all four ranges.
    for (let i = 0; i < 300 && rangeGets < 4; i++) await new Promise((r) => setTimeout(r, 20));
    expect(rangeGets).toBe(4);
    const workers = childPids(cli.child.pid!);
    expect(workers).toHaveLength(2);
    const victim = workers[1]!;
    process.kill(victim, 'SIGKILL');
    expect(await cli.exited).toBe(1);
    const { stdout, stderr } = cli.out();
    const named = new RegExp(
      `worker (\\d) \\(pid ${victim}\\) died before it was done: killed by SIGKILL`,
    ).exec(stderr + stdout);
    expect(named, stderr + stdout).not.toBeNull();
    const deadIndex = Number(named![1]);
    const doc = JSON.parse(readFileSync(join(cli.cwd, 'r.json'), 'utf8'));
    const run = doc.runs[0];
    expect(run.verified).toBe(false);
    expect(run.error).toMatch(/SIGKILL/);
    // The surviving worker's two ranges were measured and kept.
    expect(run.records.length).toBe(2);
    expect(run.records.every((r: unknown[]) => r[0] === 1 - deadIndex)).toBe(true);
    for (const pid of workers) expect(alive(pid)).toBe(false);
  });
});

describe('SIGINT during a large upload', () => {
  it('stops sending at once, deletes only what can have been sent, and exits in under 4 s', async () => {
    let puts = 0;
    let deletes = 0;
    let putsAfter = 0;
    let signalled = false;
    // From the signal on, PUTs are answered only after a pause long enough for the stop to reach
    // the workers however loaded the machine: a lane waits for its answer before sending again, so
    // what the server sees after the signal is what was in flight, plus anything sent after the
    // stop arrived. Without the pause the count also held whatever a busy machine let through
    // while the signal travelled, which measured the scheduler rather than the stop.
    let answerFrom = 0;
    const sink = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        if (req.method === 'PUT') {
          puts++;
          if (signalled) putsAfter++;
        }
        if (req.method === 'DELETE') deletes++;
        const answer = () => res.writeHead(req.method === 'PUT' ? 201 : 204).end();
        const wait = req.method === 'PUT' ? answerFrom - performance.now() : 0;
        if (wait > 0) setTimeout(answer, wait);
        else answer();
      });
    });
    const url = await listen(sink);
    try {
      const cwd = scratchDirUp();
      const child = spawn(
        process.execPath,
        [
          join(root, 'dist/cli.js'),
          'upload',
          '--url',
          `${url}/dav/`,
          '--file-count',
          '50000',
          '--file-size',
          '1B',
          '--processes',
          '2',
          '--max-sockets',
          '16',
          '--results',
          'r.json',
          '--log-level',
          'warn',
        ],
        {
          cwd,
          env: { ...ONE_RUN, PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
        },
      );
      const exited = new Promise<number | null>((r) => child.on('exit', (code) => r(code)));
      for (let i = 0; i < 1200 && puts < 2000; i++) await new Promise((r) => setTimeout(r, 25));
      expect(puts).toBeGreaterThanOrEqual(2000);
      const putsAtSignal = puts;
      signalled = true;
      const started = performance.now();
      answerFrom = started + STOP_REACHES_WORKERS_MS;
      child.kill('SIGINT');
      expect(await exited).toBe(130);
      // Without the stop, every planned file would be DELETEd before the process could exit.
      expect(performance.now() - started).toBeLessThan(4_000);
      // What was in flight (one per socket: 2 processes × 16), not the 48,000 still planned: without
      // the stop, every lane would send its next PUT as soon as the pause ends.
      expect(putsAfter).toBeLessThanOrEqual(2 * 16);
      expect(deletes).toBeLessThanOrEqual(putsAtSignal + putsAfter + 2 * 16 + 1);
    } finally {
      await close(sink);
    }
  });
});
