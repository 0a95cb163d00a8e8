// Scale-out with real processes: K separate `blob-cacher` CLIs (as K pods would be) against one
// Azurite started apart from them, meeting through its blobs. The start barrier lines them up
// within 100 ms even when one client's clock is 4 s off (the test-only skew); collect merges what
// they left; a duplicate index exits 4, a missing client makes the others exit 3, a late one 5.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureFixtures } from '../src/fixture-setup/fixtures.js';
import { containerOf, startEmbeddedAzurite, type EmbeddedAzurite } from './helpers/azurite.js';
import { ONE_RUN } from './helpers/cli-env.js';
import { freshDirs } from './helpers/temp-dirs.js';

const CLI = resolve(import.meta.dirname, '..', 'dist', 'cli.js');
const FILES = 120;
const SKEW_MS = 4_000;

let azurite: EmbeddedAzurite;
let cs = '';
const freshDir = freshDirs('bc-scaleout-');

beforeAll(async () => {
  azurite = await startEmbeddedAzurite();
  cs =
    `DefaultEndpointsProtocol=http;AccountName=${azurite.account};AccountKey=${azurite.key};` +
    `BlobEndpoint=${azurite.endpoint}`;
});
afterAll(async () => {
  await azurite?.stop();
});

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

function cli(cwd: string, args: string[], env: Record<string, string> = {}): Promise<Exit> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd,
      env: { ...ONE_RUN, PATH: process.env.PATH ?? '', HOME: cwd, STORAGE_CONNECTION_STRING: cs, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

let runCount = 0;
const newRunId = () => `test-${process.pid}-${++runCount}`;

/** One client: an upload of its share of FILES small files, one process. */
function client(
  cwd: string,
  runId: string,
  k: number,
  index: number,
  extra: string[] = [],
  env: Record<string, string> = {},
): Promise<Exit> {
  return cli(
    cwd,
    [
      'upload',
      '--file-count',
      String(FILES),
      '--file-size',
      '1',
      '--processes',
      '1',
      '--max-sockets',
      '4',
      '--parallelism',
      String(k),
      '--index',
      String(index),
      '--run-id',
      runId,
      '--start-lead',
      '2s',
      '--results',
      join(cwd, `client-${index}.json`),
      ...extra,
    ],
    env,
  );
}

const oneLine = (e: Exit) =>
  e.stderr
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('blob-cacher:'));

describe('K = 3 clients, one with its clock 4 s fast', () => {
  it('start within 100 ms of each other on the storage clock, and collect adds up their work', async () => {
    const dir = await freshDir();
    const runId = newRunId();
    const exits = await Promise.all(
      [0, 1, 2].map((i) =>
        client(dir, runId, 3, i, [], i === 2 ? { BLOB_CACHER_TEST_CLOCK_SKEW_MS: String(SKEW_MS) } : {}),
      ),
    );
    for (const e of exits) expect(e.code, e.stderr).toBe(0);
    expect(exits[2]!.stderr).toMatch(/TEST ONLY: this client's clock is shifted by 4000 ms/);
    expect(exits[2]!.stderr).toMatch(/warn: this machine's clock is -\d+\.\d ms/);

    const collected = await cli(dir, ['collect', '--run-id', runId, '--format', 'json']);
    expect(collected.code, collected.stderr).toBe(0);
    const merged = JSON.parse(collected.stdout);
    console.log(
      `K=3 start spread ${merged.startSpreadMs.toFixed(1)} ms; offsets ` +
        `${merged.clients.map((c: { clockOffsetMs: number }) => c.clockOffsetMs.toFixed(1)).join(', ')} ms`,
    );
    expect(merged.startSpreadMs).toBeLessThan(100);
    expect(merged.missing).toEqual([]);
    expect(merged.failed).toEqual([]);
    expect(merged.ready).toEqual([0, 1, 2]);
    // The skewed client's offset is its skew, found from the Date header.
    expect(Math.abs(merged.clients[2].clockOffsetMs + SKEW_MS)).toBeLessThan(50);
    // Merged requests are the sum of each client's own results file, and every file was uploaded once.
    const own = [0, 1, 2].map((i) => JSON.parse(readFileSync(join(dir, `client-${i}.json`), 'utf8')).runs[0]);
    expect(own.map((r) => r.requests)).toEqual([40, 40, 40]);
    expect(merged.totals.requests).toBe(own.reduce((s, r) => s + r.requests, 0));
    expect(merged.totals.requests).toBe(FILES);
    expect(merged.totals.bytes).toBe(own.reduce((s, r) => s + r.bytes, 0));
    expect(merged.series.reduce((s: number, b: { requests: number }) => s + b.requests, 0)).toBe(FILES);
    expect(merged.contenders[0].totalMs.count).toBe(FILES);
    expect(merged.overlap.durationMs).toBeGreaterThan(0);

    const text = await cli(dir, ['collect', '--run-id', runId]);
    expect(text.stdout).toMatch(/start spread: [\d.]+ ms/);
    expect(text.stdout).toMatch(/overlap window .*: [\d.]+ MiB\/s/);
  }, 120_000);
});

describe('downloads: K = 2 clients share the ranges of one blob', () => {
  it(
    'fixtures found missing by two clients at once are written by one (If-None-Match: *), reused by ' +
      'the other',
    async () => {
      const container = containerOf(azurite, `fx-${process.pid}`);
      const specs = [
        { blob: 'large.file', offsetBytes: 0, lengthBytes: 2 * 1024 * 1024 },
        { blob: 'part.0', offsetBytes: 0, lengthBytes: 1024 },
      ];
      const states = await Promise.all([
        ensureFixtures(container, [specs]),
        ensureFixtures(container, [specs]),
      ]);
      for (const blob of ['large.file', 'part.0'])
        expect(
          states.filter((s) => s.created.includes(blob)),
          blob,
        ).toHaveLength(1);
      // Each one the other did not write, it took as reused.
      expect(states.map((s) => s.created.length + s.reused)).toEqual([2, 2]);
    },
  );

  it('both make the missing fixture at once (If-None-Match: one writes it), and together deliver ' +
    'every byte once', async () => {
    const dir = await freshDir();
    const runId = newRunId();
    const size = 3 * 1024 * 1024;
    const exits = await Promise.all(
      [0, 1].map((i) =>
        cli(dir, [
          'download',
          '--source-method',
          'chunked',
          '--concurrency',
          '6',
          '--file-size',
          `${size}B`,
          '--container',
          `dl-${process.pid}`,
          '--parallelism',
          '2',
          '--index',
          String(i),
          '--run-id',
          runId,
          '--start-lead',
          '2s',
          '--results',
          join(dir, `client-${i}.json`),
        ]),
      ),
    );
    for (const e of exits) expect(e.code, e.stderr).toBe(0);
    // One blob, written by one client: the other found it, or lost the race to commit it.
    const created = exits.map((e) => Number(/fixtures: (\d+) created/.exec(e.stderr)?.[1]));
    expect(created.reduce((a, b) => a + b, 0)).toBe(1);
    const own = [0, 1].map((i) => JSON.parse(readFileSync(join(dir, `client-${i}.json`), 'utf8')).runs[0]);
    expect(own.map((r) => r.requests)).toEqual([3, 3]);
    expect(own.every((r) => r.verified)).toBe(true);
    const collected = await cli(dir, [
      'collect',
      '--run-id',
      runId,
      '--container',
      `dl-${process.pid}`,
      '--format',
      'json',
    ]);
    expect(collected.code, collected.stderr).toBe(0);
    expect(JSON.parse(collected.stdout).totals).toEqual({ requests: 6, failedRequests: 0, bytes: size });
  }, 120_000);
});

describe('a barrier that cannot be passed ends the client with its own exit code', () => {
  it('a second client with the same index exits 4; the run goes on with the first', async () => {
    const dir = await freshDir();
    const runId = newRunId();
    const exits = await Promise.all([
      client(dir, runId, 2, 0),
      client(dir, runId, 2, 0),
      client(dir, runId, 2, 1),
    ]);
    expect(exits.map((e) => e.code).sort()).toEqual([0, 0, 4]);
    const dup = exits.find((e) => e.code === 4)!;
    expect(oneLine(dup)).toEqual([expect.stringMatching(/index 0 of run .* is taken/)]);
    expect(dup.stderr).not.toMatch(/\n\s+at /);
  }, 120_000);

  it('a missing client makes the others exit 3 after --barrier-timeout, and collect names it', async () => {
    const dir = await freshDir();
    const runId = newRunId();
    const alone = await client(dir, runId, 2, 0, ['--barrier-timeout', '1500ms']);
    expect(alone.code, alone.stderr).toBe(3);
    expect(oneLine(alone)).toEqual([
      expect.stringMatching(/1 of 2 clients ready after --barrier-timeout 1.5 s; missing index 1/),
    ]);
    const collected = await cli(dir, ['collect', '--run-id', runId]);
    expect(collected.code).toBe(1);
    expect(collected.stdout).toMatch(/MISSING client 1: no results; it never reached the barrier/);
    expect(collected.stdout).toMatch(/FAILED client 0: barrier of run/);
  }, 120_000);

  it('SIGINT while waiting at the barrier is a stop (exit 130), not a failure', async () => {
    const dir = await freshDir();
    const runId = newRunId();
    const child = spawn(
      process.execPath,
      [
        CLI,
        'upload',
        '--file-count',
        '4',
        '--file-size',
        '1',
        '--parallelism',
        '2',
        '--index',
        '0',
        '--run-id',
        runId,
        '--results',
        join(dir, 'r.json'),
      ],
      {
        cwd: dir,
        env: { ...ONE_RUN, PATH: process.env.PATH ?? '', HOME: dir, STORAGE_CONNECTION_STRING: cs },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    const exited = new Promise<number | null>((r) => child.on('close', r));
    await new Promise<void>((r) =>
      child.stderr.on('data', (d: Buffer) => {
        stderr += d;
        if (stderr.includes('waiting for the others')) r();
      }),
    );
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).not.toMatch(/\n\s+at /);
  }, 60_000);

  it('a client that sees the last marker after the start exits 5', async () => {
    const dir = await freshDir();
    const runId = newRunId();
    // Client 1 counts the start from the last marker with no lead: it can only see it after.
    const [first, late] = await Promise.all([
      client(dir, runId, 2, 0, ['--start-lead', '3s']),
      client(dir, runId, 2, 1, ['--start-lead', '0']),
    ]);
    expect(late.code, late.stderr).toBe(5);
    expect(oneLine(late)).toEqual([
      expect.stringMatching(
        /client 1 of run .* saw the last client \d+ ms after the start; raise --start-lead/,
      ),
    ]);
    expect(first.code, first.stderr).toBe(0);
  }, 120_000);
});
