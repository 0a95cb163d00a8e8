// Several worker processes on one plan: items dealt fairly (remainders to the first workers),
// records and histograms merged, and workers with nothing to do harmless.
import { describe, expect, it, beforeAll } from 'vitest';
import type { DownloadConfig } from '../src/config/load.js';
import { runDownload } from '../src/engine/download.js';
import { setLogLevel } from '../src/log/logger.js';
import { analyze } from '../src/analysis/analyze.js';
import { withWorkerFlags, workerEntry } from '../src/workers/entry.js';
import { RECORDS_ALONE_MAX } from '../src/workers/result.js';
import { toRunRecord } from '../src/results/record.js';
import type { MeasuredRun } from '../src/results/record.js';
import { testConfig, type TestSettings } from './helpers/config.js';

/** Request count of the merged 'total' histogram, as every report computes it. */
const totalCount = (r: MeasuredRun) => analyze([toRunRecord(r)])[0]!.latencyMs.total?.count;

/** A split object's completion from its records: the first request's send to the last part's end. */
function completionOf(r: MeasuredRun): number {
  const sent = Math.min(...r.records.map((x) => x.startEpochMs + (x.phases.wait ?? 0)));
  return Math.max(...r.records.map((x) => x.startEpochMs + x.totalMs)) - sent;
}

function config(overrides: TestSettings<DownloadConfig> = {}): DownloadConfig {
  return testConfig('download', {
    logLevel: 'warn',
    sourceMethod: 'all',
    concurrency: 4,
    fileSizeBytes: 500_005,
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

beforeAll(() => setLogLevel('warn'));

describe('worker processes', () => {
  it('2 processes, 5 chunks: worker 0 takes 3, worker 1 takes 2, and the merge adds up', async () => {
    const run = await runDownload(config({ processes: 2, concurrency: 5, sourceMethod: 'chunked' }));

    expect(run.results).toHaveLength(1);
    const r = run.results[0]!;
    expect(r.strategy).toBe('chunked');
    expect(r.verified, r.verification).toBe(true);
    expect(r.bytes).toBe(500_005);
    expect(r.workers.map((w) => [w.index, w.requests])).toEqual([
      [0, 3],
      [1, 2],
    ]);
    // Contiguous runs: the first three ranges on worker 0, the last two on worker 1.
    expect(r.records.map((rec) => [rec.item, rec.worker])).toEqual([
      [0, 0],
      [1, 0],
      [2, 0],
      [3, 1],
      [4, 1],
    ]);
    const ok = r.records.filter((rec) => !rec.error);
    expect(ok).toHaveLength(5);
    // Histograms from both processes are added, not averaged: one count per successful request.
    expect(totalCount(r)).toBe(ok.length);
    // The object was split between two workers: its completion is the coordinator's, from both.
    expect(r.objects?.objects).toBe(1);
    expect(r.objects!.completionMsSum).toBeCloseTo(completionOf(r), 6);
    expect(analyze([toRunRecord(r)])[0]!.latencyMs.object?.count).toBe(1);
  });

  // Past RECORDS_ALONE_MAX parts the worker makes the histograms and the completion; up to it, it
  // sends its records alone and the coordinator makes both. Either way the same figures.
  it.each([
    [
      `${RECORDS_ALONE_MAX + 16} parts: the worker records the completion and its histograms`,
      RECORDS_ALONE_MAX + 16,
    ],
    ['5 parts: the worker sends its records alone, the coordinator makes them', 5],
  ])('1 process holding every part of the object, %s', async (_, parts) => {
    const run = await runDownload(config({ processes: 1, concurrency: parts, sourceMethod: 'chunked' }));

    const r = run.results[0]!;
    expect(r.verified, r.verification).toBe(true);
    expect(r.records).toHaveLength(parts);
    expect(totalCount(r)).toBe(parts);
    expect(r.objects?.objects).toBe(1);
    expect(r.objects!.completionMsSum).toBeCloseTo(completionOf(r), 6);
    expect(r.objects!.stragglerMsSum).toBeGreaterThanOrEqual(0);
    expect(analyze([toRunRecord(r)])[0]!.latencyMs.object?.count).toBe(1);
  });

  it('3 processes, 1 item: capped at one process per item', async () => {
    const run = await runDownload(config({ processes: 3, sourceMethod: 'single' }));

    expect(run.results).toHaveLength(1);
    const r = run.results[0]!;
    expect(r.strategy).toBe('single');
    expect(r.verified, r.verification).toBe(true);
    expect(r.bytes).toBe(500_005);
    expect(r.workers.map((w) => [w.index, w.requests])).toEqual([[0, 1]]);
    expect(r.records.map((rec) => rec.worker)).toEqual([0]);
    expect(totalCount(r)).toBe(1);
  });
});

describe('worker process flags', () => {
  it(
    'a worker runs with a small young generation, from its own flags, unless node ' + 'was given one',
    async () => {
      const { execArgv } = workerEntry();
      expect(execArgv).toContain('--max-semi-space-size=4');
      // A forked worker really has it: its new space is at most 3 x 4 MiB.
      const { spawnSync } = await import('node:child_process');
      const flags = execArgv.filter((a) => a.startsWith('--max-semi'));
      const out = spawnSync(
        process.execPath,
        [
          ...flags,
          '-e',
          "console.log(require('v8').getHeapSpaceStatistics().find((s) => s.space_name === " +
            "'new_space').space_size)",
        ],
        { encoding: 'utf8' },
      );
      expect(Number(out.stdout)).toBeLessThanOrEqual(3 * 4 * 1024 * 1024);
      expect(Number(out.stdout)).toBeGreaterThan(0);
      expect(withWorkerFlags(['--max-semi-space-size=64', '--inspect'])).toEqual([
        '--max-semi-space-size=64',
        '--inspect',
      ]);
      expect(withWorkerFlags(['--max_semi_space_size=64'])).toEqual(['--max_semi_space_size=64']);
      expect(withWorkerFlags(['--max-old-space-size=512'])).toEqual([
        '--max-semi-space-size=4',
        '--max-old-space-size=512',
      ]);
    },
  );
});
