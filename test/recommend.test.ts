// The recommendation on local servers that make each answer true: `single` when one GET and four
// ranges tie (every run of either waits alike), a split strategy when it is significantly faster
// (the server paces each connection, so four ranges move four times the bytes per second). And
// the billable operations the report counts are the requests the server counted, by class.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DownloadConfig } from '../src/config/load.js';
import { runDownload } from '../src/engine/download.js';
import { setLogLevel } from '../src/log/logger.js';
import { toRunRecord } from '../src/results/record.js';
import { runFailed } from '../src/results/schema.js';
import { recommend } from '../src/analysis/recommend.js';
import { close, deterministicBuffer, listen } from './helpers/http-servers.js';
import { reportOf } from './helpers/report.js';
import { shapedServer } from './helpers/shaped-server.js';
import { testConfig } from './helpers/config.js';

const RANGES = 4;
const RUNS = 4;

function configFor(url: string): DownloadConfig {
  return testConfig('download', {
    logLevel: 'error', sourceMethod: 'single,chunked', concurrency: RANGES, fileSizeBytes: 0, processes: 1, maxSockets: 8,
    sink: 'memory', bufferSizeBytes: 65536, container: 'unused', cleanup: false, credentials: { kind: 'url', url },
    httpClient: 'raw', runs: RUNS, warmup: 0, format: 'console', maxRetries: 0, timeoutMs: 30_000, trace: true,
  });
}

beforeAll(() => setLogLevel('error'));

let stop: (() => Promise<void>) | undefined;
afterEach(async () => {
  await stop?.();
  stop = undefined;
});

async function measure(body: Buffer, shaping: Parameters<typeof shapedServer>[1]) {
  const { server, log } = shapedServer(body, shaping);
  const url = `${await listen(server)}/object.bin`;
  stop = () => close(server);
  const run = await runDownload(configFor(url));
  // A plain URL vouches for no content: its runs are "not verified", and must not have failed.
  for (const r of run.results) expect(runFailed(r), `${r.strategy}: ${r.verification}`).toBe(false);
  return { report: reportOf(run.results.map(toRunRecord), { target: { kind: 'url', label: 'url 127.0.0.1' } }), log };
}

describe('the recommendation', () => {
  it('single when it ties with chunked: the fewest requests per object, the simplest', async () => {
    // Each run of either waits 40 ms or 120 ms, alternately: both see the same times, so no test can tell them apart.
    const { report } = await measure(deterministicBuffer(64 * 1024), { delaysMs: [40, 120], rangesPerRun: RANGES });
    expect(report.contenders.map((c) => [c.label, c.rank, c.tied])).toEqual(expect.arrayContaining([['single', 1, true], ['chunked', 1, true]]));
    expect(report.verdicts[0]).toMatchObject({ kind: 'tie', n: RUNS });
    expect(report.recommendation).toMatchObject({ contender: 'single', basis: 'tied', tiedWith: ['chunked'], requestsPerObject: 1 });
    expect(report.recommendation!.text).toMatch(/^Recommended: single — tied for fastest with chunked \(no significant difference at n=4\).*; 1 request per object and no extra copies\. Its bytes were not verified \(plain URL\)\.$/);
  }, 60_000);

  it('a split strategy when it is significantly faster: the server paces each connection', async () => {
    // 256 KiB at 1 MiB/s per connection: one GET takes ~250 ms, four ranges ~65 ms.
    const { report } = await measure(deterministicBuffer(256 * 1024), { bytesPerSecond: 1024 * 1024 });
    expect(report.contenders.map((c) => [c.label, c.rank, c.tied])).toEqual([['chunked', 1, false], ['single', 2, false]]);
    expect(report.recommendation).toMatchObject({ contender: 'chunked', basis: 'fastest', requestsPerObject: RANGES });
    expect(report.recommendation!.ahead!.ratioLow).toBeGreaterThan(1);
    expect(report.recommendation!.text).toMatch(/^Recommended: chunked — significantly fastest: \d\.\d\dx faster than single \(95% CI/);
  }, 60_000);
});

describe('billable operations', () => {
  it('equal the requests the server counted, by class, and the cost follows the rate table', async () => {
    const { report, log } = await measure(deterministicBuffer(64 * 1024), {});
    const single = report.contenders.find((c) => c.label === 'single')!;
    const chunked = report.contenders.find((c) => c.label === 'chunked')!;
    // Every GET the server answered is a read of one contender or the other; HEADs are the preflight's, outside any run.
    expect(single.cost.operations).toEqual({ read: log.wholeGets, write: 0, list: 0, other: 0 });
    expect(chunked.cost.operations).toEqual({ read: log.rangedGets, write: 0, list: 0, other: 0 });
    expect([log.wholeGets, log.rangedGets]).toEqual([RUNS, RUNS * RANGES]);
    // Hot tier: reads at $0.005 per 10,000; no retrieval charge.
    const hot = (c: typeof single) => c.cost.tiers.find((t) => t.tier === 'hot')!;
    expect(hot(single).per1000Objects).toBeCloseTo(1000 * 0.005 / 10_000, 12);
    expect(hot(chunked).per1000Objects).toBeCloseTo(1000 * RANGES * 0.005 / 10_000, 12);
  }, 60_000);
});

describe('the same rule over uploads and many-blob workloads', () => {
  const candidate = (label: string, description: string, rank: number, requestsPerObject: number, times: number[]) => ({
    label, strategy: label, description, rank, tied: false, requestsPerObject, timesMs: times, verified: true,
  }) as unknown as Parameters<typeof recommend>[0][number];

  it('small uploads: our Put Blob per file before the SDK\'s upload() when they tie (the SDK\'s requests are not traced)', () => {
    const r = recommend([
      candidate('sdk-small-files', 'SDK upload() per small file (baseline)', 1, 1, [100, 101, 99, 102]),
      candidate('small-files', 'one Put Blob per small file', 1, 1, [101, 100, 102, 99]),
    ]);
    expect(r).toMatchObject({ contender: 'small-files', basis: 'tied', tiedWith: ['sdk-small-files'] });
  });

  it('a large upload: staged blocks when significantly faster than the SDK', () => {
    const r = recommend([
      candidate('blocks', 'staged blocks in parallel + commit', 1, 39, [100, 101, 99, 102, 100]),
      candidate('sdk-upload', 'SDK uploadData (baseline)', 2, 39, [200, 202, 198, 204, 201]),
    ]);
    expect(r).toMatchObject({ contender: 'blocks', basis: 'fastest', ahead: { of: 'sdk-upload' }, sdk: { label: 'sdk-upload' } });
    expect(r!.text).toMatch(/^Recommended: blocks — significantly fastest: 2\.01x faster than sdk-upload .*; 39 requests per object and no extra copies\. The SDK baseline sdk-upload \(uploadData\) was 2\.01x slower/);
  });

  it('listings: fewer pages per object wins a tie', () => {
    const r = recommend([
      candidate('list-hierarchy', 'List Blobs pages, delimiter /', 1, 0.02, [50, 51, 49, 52]),
      candidate('list', 'List Blobs pages, flat', 1, 0.01, [51, 50, 52, 49]),
    ]);
    expect(r).toMatchObject({ contender: 'list', basis: 'tied' });
    expect(r!.text).toContain('0.01 requests per object');
  });
});
