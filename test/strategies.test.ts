// Every download strategy against a real Azurite: sizes at the edges, every sink, and fixture reuse
// and cleanup. The engine and its workers run from src/.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DownloadConfig } from '../src/config/load.js';
import { runDownload, type DownloadRunResult } from '../src/engine/download.js';
import type { MeasuredRun } from '../src/results/record.js';
import type { RunParams } from '../src/results/schema.js';
import { contentBuffer, FIXTURE_SEED } from '../src/payload/content.js';
import { setLogLevel } from '../src/log/logger.js';
import { blobNames, containerOf, startEmbeddedAzurite, type EmbeddedAzurite } from './helpers/azurite.js';
import { testConfig, type TestSettings } from './helpers/config.js';

const ALL = ['single', 'chunked', 'round-robin', 'assemble', 'sdk'];
const HTTP_STRATEGIES = ['single', 'chunked', 'round-robin', 'assemble'] as const;
const RANGED = new Set(['chunked', 'round-robin', 'assemble']);
const MIB = 1024 * 1024;

function config(overrides: TestSettings<DownloadConfig> = {}): DownloadConfig {
  return testConfig('download', {
    logLevel: 'warn',
    sourceMethod: 'all',
    concurrency: 4,
    fileSizeBytes: 1_000_003,
    processes: 1,
    maxSockets: 16,
    sink: 'memory',
    bufferSizeBytes: 64 * 1024,
    container: 'blob-cacher-test',
    cleanup: false,
    credentials: { kind: 'embedded' },
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

const md5Hex = (data: Buffer) => createHash('md5').update(data).digest('hex');

function expectVerified(run: DownloadRunResult, sizeBytes: number): void {
  for (const r of run.results) {
    expect(r.error, r.strategy).toBeUndefined();
    expect(r.verified, `${r.strategy}: ${r.verification}`).toBe(true);
    expect(r.failedRequests, r.strategy).toBe(0);
    expect(r.bytes, r.strategy).toBe(sizeBytes);
  }
}

/** The records of a ranged strategy tile [0, size) with no gap or overlap. */
function expectContiguous(r: MeasuredRun, sizeBytes: number): void {
  let at = 0;
  for (const rec of r.records) {
    expect(rec.offsetBytes, `${r.strategy} item ${rec.item}`).toBe(at);
    at += rec.bytes;
  }
  expect(at, r.strategy).toBe(sizeBytes);
}

beforeAll(() => setLogLevel('warn'));

describe('sourceMethod all on an embedded Azurite', () => {
  it.each([
    { sizeBytes: 0, concurrency: 4 },
    { sizeBytes: 1, concurrency: 4 },
    { sizeBytes: 1_000_003, concurrency: 4 },
    { sizeBytes: 2 * MIB, concurrency: 3 },
  ])(
    '$sizeBytes bytes at concurrency $concurrency: all five strategies deliver verified bytes',
    async ({ sizeBytes, concurrency }) => {
      const run = await runDownload(config({ fileSizeBytes: sizeBytes, concurrency }));

      expect(run.objectSizeBytes).toBe(sizeBytes);
      expect(run.results.map((r) => r.strategy)).toEqual(ALL);
      expectVerified(run, sizeBytes);
      for (const r of run.results) {
        const expected = RANGED.has(r.strategy) ? Math.max(1, Math.min(concurrency, sizeBytes)) : 1;
        expect(r.requests, r.strategy).toBe(expected);
        expect(r.records, r.strategy).toHaveLength(expected);
        if (RANGED.has(r.strategy)) expectContiguous(r, sizeBytes);
      }
    },
  );
});

describe('sinks', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'blob-cacher-sinks-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const sizeBytes = 1_000_003;
  const expectedMd5 = md5Hex(contentBuffer(FIXTURE_SEED, 0, sizeBytes));

  it.each(['discard', 'memory'] as const)('%s: every strategy verified', async (sink) => {
    const run = await runDownload(config({ sink, fileSizeBytes: sizeBytes }));
    expect(run.results.map((r) => r.strategy)).toEqual(ALL);
    expectVerified(run, sizeBytes);
  });

  // file is one sequential stream (one process); sparse-file takes positional writes from several.
  const fileCases = HTTP_STRATEGIES.flatMap((strategy) => [
    { sink: 'file' as const, processes: 1, strategy },
    { sink: 'sparse-file' as const, processes: 2, strategy },
  ]);

  it.each(fileCases)(
    '$sink over $processes process(es), $strategy: the file holds the fixture bytes',
    async ({ sink, processes, strategy }) => {
      const outPath = join(dir, `${sink}-${strategy}.bin`);
      const run = await runDownload(
        config({ sink, processes, sourceMethod: strategy, fileSizeBytes: sizeBytes, outPath }),
      );

      expect(run.results.map((r) => r.strategy)).toEqual([strategy]);
      expectVerified(run, sizeBytes);
      const written = await readFile(outPath);
      expect(written.length).toBe(sizeBytes);
      expect(md5Hex(written)).toBe(expectedMd5);
    },
  );

  // The sdk baseline runs last: it must not truncate --out to zeros after every other strategy has
  // written (and verified) it.
  it.each(['file', 'sparse-file'] as const)(
    '%s with sourceMethod all: --out still holds the fixture bytes afterwards',
    async (sink) => {
      const outPath = join(dir, `${sink}-all.bin`);
      const run = await runDownload(config({ sink, fileSizeBytes: sizeBytes, outPath }));

      expect(run.results.map((r) => r.strategy)).toEqual(ALL);
      expectVerified(run, sizeBytes);
      expect(md5Hex(await readFile(outPath))).toBe(expectedMd5);
    },
  );
});

describe('fixtures on a shared Azurite', () => {
  let azurite: EmbeddedAzurite;
  beforeAll(async () => {
    azurite = await startEmbeddedAzurite();
  });
  afterAll(async () => {
    await azurite?.stop();
  });

  const sizeBytes = 300_007;
  const keyConfig = (container: string, cleanup: boolean) =>
    config({
      fileSizeBytes: sizeBytes,
      container,
      cleanup,
      credentials: { kind: 'key', account: azurite.account, key: azurite.key, endpoint: azurite.endpoint },
    });
  // sourceMethod all at concurrency 4: the blob, its four copies and its four parts.
  const FIXTURES = [
    'large.1',
    'large.2',
    'large.3',
    'large.4',
    'large.file',
    'part.0',
    'part.1',
    'part.2',
    'part.3',
  ];

  it('a second run reuses the fixtures the first created, and its cleanup leaves them alone', async () => {
    const first = await runDownload(keyConfig('reuse', false));
    expectVerified(first, sizeBytes);
    expect([...first.fixtures.created].sort()).toEqual(FIXTURES);
    expect(first.fixtures.reused).toBe(0);

    const second = await runDownload(keyConfig('reuse', true));
    expectVerified(second, sizeBytes);
    expect(second.fixtures.created).toEqual([]);
    expect(second.fixtures.reused).toBe(FIXTURES.length);
    // Cleanup removes only what its own run created: nothing here.
    expect(await blobNames(containerOf(azurite, 'reuse'))).toEqual(FIXTURES);
  });

  it('cleanup removes the fixtures the run created', async () => {
    const run = await runDownload(keyConfig('cleanup', true));
    expectVerified(run, sizeBytes);
    expect([...run.fixtures.created].sort()).toEqual(FIXTURES);
    // The container, which this run created too, goes with them.
    expect(await containerOf(azurite, 'cleanup').exists()).toBe(false);
  });
});

describe("the SDK upload's settings line", () => {
  it('gives the maxSingleShotSize the run passed: 0 stages every blob, as the SDK does with 0', async () => {
    const { sdkUpload } = await import('../src/strategies/upload/sdk-upload.js');
    const params = { concurrency: 4, blockSizeBytes: 8 * 1024 * 1024 };
    const line = (thresholdBytes: number) =>
      sdkUpload.sdkSettings({ ...params, thresholdBytes } as RunParams, 80 * 1024 * 1024).at(-1);
    expect(line(0)).toBe('  maxSingleShotSize: 0 (every blob in staged blocks)');
    expect(line(4 * 1024 * 1024)).toBe('  maxSingleShotSize: 4194304 (4 MiB)');
  });
});
