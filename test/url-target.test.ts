// A plain URL target end to end: runDownload from src (and its workers), a
// real http server that honours Range, and one that ignores it.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DownloadConfig } from '../src/config/load.js';
import { runDownload } from '../src/engine/download.js';
import type { MeasuredRun } from '../src/results/record.js';
import { setLogLevel } from '../src/log/logger.js';
import { close, deterministicBuffer, listen, objectServer } from './helpers/http-servers.js';
import { testConfig, type TestSettings } from './helpers/config.js';
import { runFailed } from '../src/results/schema.js';

const SIZE_BYTES = 1_000_003;
const CONCURRENCY = 4;
const body = deterministicBuffer(SIZE_BYTES);
const bodyMd5 = createHash('md5').update(body).digest('base64');

function configFor(url: string, overrides: TestSettings<DownloadConfig> = {}): DownloadConfig {
  return testConfig('download', {
    logLevel: 'error',
    sourceMethod: 'all',
    concurrency: CONCURRENCY,
    fileSizeBytes: 0,
    processes: 1,
    maxSockets: 8,
    sink: 'memory',
    bufferSizeBytes: 65536,
    container: 'unused',
    cleanup: false,
    credentials: { kind: 'url', url },
    httpClient: 'raw',
    runs: 1,
    warmup: 0,
    format: 'console',
    maxRetries: 3,
    timeoutMs: 30_000,
    trace: true,
    ...overrides,
  });
}

const byName = (results: MeasuredRun[], name: string) => results.find((r) => r.strategy === name)!;

// runDownload logs from this process too; the CLI sets the level, here we do.
beforeAll(() => setLogLevel('error'));

describe('plain URL that honours Range', () => {
  const { server, log } = objectServer(body, true);
  let url: string;
  let dir: string;

  beforeAll(async () => {
    url = `${await listen(server)}/object.bin`;
    dir = await mkdtemp(join(tmpdir(), 'blob-cacher-url-'));
  });
  afterAll(async () => {
    await close(server);
    await rm(dir, { recursive: true, force: true });
  });

  it('runs single and chunked only, both verified, every byte delivered', async () => {
    log.getRanges.length = 0;
    const run = await runDownload(configFor(url));

    expect(run.objectSizeBytes).toBe(SIZE_BYTES);
    expect(run.results.map((r) => r.strategy)).toEqual(['single', 'chunked']);
    for (const r of run.results) {
      expect(r.error, r.strategy).toBeUndefined();
      expect(runFailed(r), `${r.strategy}: ${r.verification}`).toBe(false);
      expect(r.notVerified).toMatch(/plain URL/);
      expect(r.bytes, r.strategy).toBe(SIZE_BYTES);
      expect(r.failedRequests, r.strategy).toBe(0);
    }
    expect(byName(run.results, 'single').requests).toBe(1);
    const chunked = byName(run.results, 'chunked');
    expect(chunked.requests).toBe(CONCURRENCY);
    expect(chunked.records.reduce((s, r) => s + r.bytes, 0)).toBe(SIZE_BYTES);
    expect(chunked.records.every((r) => r.status === 206)).toBe(true);

    // What the server saw: one whole GET, then four ranges that tile the object exactly.
    expect(log.getRanges).toHaveLength(1 + CONCURRENCY);
    expect(log.getRanges[0]).toBeUndefined();
    const ranges = log.getRanges.slice(1).map(
      (h) =>
        /^bytes=(\d+)-(\d+)$/
          .exec(h ?? '')!
          .slice(1)
          .map(Number) as [number, number],
    );
    ranges.sort((a, b) => a[0] - b[0]);
    let next = 0;
    for (const [first, last] of ranges) {
      expect(first).toBe(next);
      next = last + 1;
    }
    expect(next).toBe(SIZE_BYTES);
  });

  it('writes the object to a sparse file at --out, byte for byte', async () => {
    const outPath = join(dir, 'object.out');
    const run = await runDownload(configFor(url, { sink: 'sparse-file', outPath }));

    expect(run.results.map((r) => r.strategy)).toEqual(['single', 'chunked']);
    for (const r of run.results) {
      expect(runFailed(r), `${r.strategy}: ${r.verification}`).toBe(false);
      expect(r.notVerified).toMatch(/plain URL/);
      expect(r.bytes, r.strategy).toBe(SIZE_BYTES);
      // With a file there is something to hash: the whole object's MD5.
      expect(r.verification, r.strategy).toContain(bodyMd5);
    }
    expect(byName(run.results, 'chunked').requests).toBe(CONCURRENCY);
    // The explicit path is kept; it holds the last strategy's (chunked's) reassembled ranges.
    const written = await readFile(outPath);
    expect(written.length).toBe(SIZE_BYTES);
    expect(written.equals(body)).toBe(true);
  });

  it(
    '--range-size: fixed ranges tile the object, at most --concurrency in flight, ' + 'across 2 processes',
    async () => {
      log.getRanges.length = 0;
      const range = 100_000;
      const run = await runDownload(
        configFor(url, {
          sourceMethod: 'chunked',
          rangeSizeBytes: range,
          concurrency: 4,
          processes: 2,
          sink: 'sparse-file',
        }),
      );
      const r = run.results[0]!;
      expect(runFailed(r), r.verification).toBe(false);
      expect(r.notVerified).toMatch(/plain URL/);
      expect(r.verification).toContain(bodyMd5);
      expect(r.requests).toBe(Math.ceil(SIZE_BYTES / range));
      // Each worker keeps 2 of the 4 in flight: the rest are issued as those finish, so none waits for a
      // socket.
      for (const rec of r.records) expect(rec.phases.wait ?? 0, `item ${rec.item}`).toBeLessThan(50);
      const firsts = log.getRanges
        .map((h) => Number(/^bytes=(\d+)-/.exec(h ?? '')![1]))
        .sort((a, b) => a - b);
      expect(firsts).toEqual(Array.from({ length: Math.ceil(SIZE_BYTES / range) }, (_, i) => i * range));
    },
  );

  it('the node:http client (--http-client node) delivers the same bytes', async () => {
    const outPath = join(dir, 'object-node.out');
    const run = await runDownload(configFor(url, { sink: 'file', outPath, httpClient: 'node' }));
    for (const r of run.results) {
      expect(runFailed(r), `${r.strategy}: ${r.verification}`).toBe(false);
      expect(r.notVerified).toMatch(/plain URL/);
    }
    expect((await readFile(outPath)).equals(body)).toBe(true);
  });

  it(
    'discard: no bytes hashed for a plain URL (nothing to compare them with), ' + 'counts still checked',
    async () => {
      const run = await runDownload(configFor(url, { sink: 'discard' }));
      for (const r of run.results) {
        expect(runFailed(r), `${r.strategy}: ${r.verification}`).toBe(false);
        expect(r.notVerified).toMatch(/plain URL/);
        expect(r.verification).toMatch(/no source MD5/);
        expect(r.records.every((rec) => rec.md5 === undefined)).toBe(true);
      }
    },
  );
});

describe('plain URL that ignores Range', () => {
  const { server, log } = objectServer(body, false);
  let url: string;

  beforeAll(async () => {
    url = `${await listen(server)}/object.bin`;
  });
  afterAll(() => close(server));

  it('verifies single but fails chunked, naming the ignored Range header', async () => {
    const run = await runDownload(configFor(url));

    expect(run.results.map((r) => r.strategy)).toEqual(['single', 'chunked']);
    const single = byName(run.results, 'single');
    expect(runFailed(single), single.verification).toBe(false);
    expect(single.notVerified).toMatch(/plain URL/);
    expect(single.bytes).toBe(SIZE_BYTES);

    const chunked = byName(run.results, 'chunked');
    expect(chunked.verified).toBe(false);
    expect(`${chunked.error ?? ''} ${chunked.verification}`).toMatch(/Range header/);
    // The ranged GETs were sent and answered; the run reports them as failed rather than dying.
    expect(log.getRanges.filter((h) => h !== undefined)).toHaveLength(CONCURRENCY);
    expect(chunked.failedRequests).toBe(CONCURRENCY);
  });
});
