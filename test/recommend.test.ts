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
import { declared, recommend } from '../src/analysis/recommend.js';
import { strategyNamed } from '../src/strategies/index.js';

/** What the contender of that name declares, an upload's where there is one (as these tests name them). */
const declaredEither = (name: string) =>
  declared(strategyNamed('upload', name) ? 'upload' : 'download', name);
import { buildReport } from '../src/analysis/report-model.js';
import { resolveOptions } from '../src/config/load.js';
import { OUTPUT_OPTIONS } from '../src/config/options.js';
import { ConfigError } from '../src/vocabulary/errors.js';
import { newResultsFile } from '../src/results/file.js';
import type { RunRecord } from '../src/results/schema.js';
import { close, deterministicBuffer, listen } from './helpers/http-servers.js';
import { reportOf } from './helpers/report.js';
import { shapedServer } from './helpers/shaped-server.js';
import { startEmulatedTarget } from '../src/emulate/server.js';
import { testConfig } from './helpers/config.js';

const RANGES = 4;
const RUNS = 4;

function configFor(url: string, runs = RUNS, warmup = 0): DownloadConfig {
  return testConfig('download', {
    logLevel: 'error',
    sourceMethod: 'single,chunked',
    concurrency: RANGES,
    fileSizeBytes: 0,
    processes: 1,
    maxSockets: 8,
    sink: 'memory',
    bufferSizeBytes: 65536,
    container: 'unused',
    cleanup: false,
    credentials: { kind: 'url', url },
    httpClient: 'raw',
    runs,
    warmup,
    format: 'console',
    maxRetries: 0,
    timeoutMs: 30_000,
    trace: true,
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
  return {
    report: reportOf(run.results.map(toRunRecord), { target: { kind: 'url', label: 'url 127.0.0.1' } }),
    log,
  };
}

describe('the recommendation', () => {
  it('single when it ties with chunked: the fewest requests per object, the simplest', async () => {
    // Each run of either waits 40 ms or 120 ms, alternately: both see the same times, so no test can tell
    // them apart.
    const { report } = await measure(deterministicBuffer(64 * 1024), {
      delaysMs: [40, 120],
      rangesPerRun: RANGES,
    });
    expect(report.contenders.map((c) => [c.label, c.rank, c.tied])).toEqual(
      expect.arrayContaining([
        ['single', 1, true],
        ['chunked', 1, true],
      ]),
    );
    expect(report.verdicts[0]).toMatchObject({ kind: 'tie', n: RUNS });
    expect(report.recommendation).toMatchObject({
      contender: 'single',
      basis: 'tied',
      tiedWith: ['chunked'],
      requestsPerObject: 1,
    });
    expect(report.recommendation!.text).toMatch(
      new RegExp(
        String.raw`^Recommended: single — tied for fastest with chunked \(no ` +
          String.raw`significant difference at n=4\).*; 1 request per object and no extra copies\. ` +
          String.raw`Its bytes were not verified \(plain URL\)\.$`,
      ),
    );
  }, 60_000);

  it('a split strategy when it is significantly faster: the server paces each connection', async () => {
    // 256 KiB at 1 MiB/s per connection: one GET takes ~250 ms, four ranges ~65 ms.
    const { report } = await measure(deterministicBuffer(256 * 1024), { bytesPerSecond: 1024 * 1024 });
    expect(report.contenders.map((c) => [c.label, c.rank, c.tied])).toEqual([
      ['chunked', 1, false],
      ['single', 2, false],
    ]);
    expect(report.recommendation).toMatchObject({
      contender: 'chunked',
      basis: 'fastest',
      requestsPerObject: RANGES,
    });
    expect(report.recommendation!.ahead!.ratioLow).toBeGreaterThan(1);
    expect(report.recommendation!.text).toMatch(
      new RegExp(
        String.raw`^Recommended: chunked — significantly fastest: \d\.\d\dx ` +
          String.raw`faster than single \(95% CI [^)]*\), above the 5% that counts;`,
      ),
    );
  }, 60_000);

  it('single where splitting gains less than the material share: the server caps ' +
    'the total rate', async () => {
    // 256 KiB, all connections together at 256 KiB/s and each at 0.97 of it: one GET trails four
    // ranges by at most ~3% (both take ~1 s after a warm-up run). At this rate a bucket's burst (one
    // 16 KiB slice) is 64 ms, so a busy machine's late timers cost one connection no more than four.
    const KiB = 1024;
    const runs = 6;
    const body = deterministicBuffer(256 * KiB);
    const t = await startEmulatedTarget({
      totalBytesPerSecond: 256 * KiB,
      perConnectionBytesPerSecond: 0.97 * 256 * KiB,
      objects: new Map([['/object.bin', body]]),
    });
    stop = () => t.close();
    const run = await runDownload(configFor(`${t.url}/object.bin`, runs, 1));
    for (const r of run.results) expect(runFailed(r), `${r.strategy}: ${r.verification}`).toBe(false);
    const report = reportOf(run.results.map(toRunRecord), {
      target: { kind: 'url', label: 'url 127.0.0.1' },
    });
    const [single, chunked] = ['single', 'chunked'].map((l) => report.contenders.find((c) => c.label === l)!);
    const gain = single!.wallMs.median / chunked!.wallMs.median;
    expect(gain, 'splitting gains next to nothing').toBeLessThan(1.05);
    expect(report.recommendation).toMatchObject({ contender: 'single', requestsPerObject: 1 });
    // Significantly faster (its own rank) yet immaterial: the words say both; or a tie, said as one.
    if (chunked!.rank < single!.rank) {
      expect(report.recommendation).toMatchObject({
        basis: 'material',
        passedOver: { of: 'chunked', requestsPerObject: RANGES },
      });
      expect(report.recommendation!.text).toMatch(
        new RegExp(
          '^Recommended: single — chunked is 1\\.0\\dx faster \\(95% CI [^)]*\\), ' +
            'below the 5% that counts; single needs a quarter of the requests;',
        ),
      );
    } else {
      expect(report.recommendation!.basis).toBe('tied');
    }
  }, 60_000);
});

describe('billable operations', () => {
  it('equal the requests the server counted, by class, and the cost follows the rate table', async () => {
    const { report, log } = await measure(deterministicBuffer(64 * 1024), {});
    const single = report.contenders.find((c) => c.label === 'single')!;
    const chunked = report.contenders.find((c) => c.label === 'chunked')!;
    // Every GET the server answered is a read of one contender or the other; HEADs are the preflight's,
    // outside any run.
    expect(single.cost.operations).toEqual({ read: log.wholeGets, write: 0, list: 0, other: 0 });
    expect(chunked.cost.operations).toEqual({ read: log.rangedGets, write: 0, list: 0, other: 0 });
    expect([log.wholeGets, log.rangedGets]).toEqual([RUNS, RUNS * RANGES]);
    // Hot tier: reads at $0.005 per 10,000; no retrieval charge.
    const hot = (c: typeof single) => c.cost.tiers.find((t) => t.tier === 'hot')!;
    expect(hot(single).per1000Objects).toBeCloseTo((1000 * 0.005) / 10_000, 12);
    expect(hot(chunked).per1000Objects).toBeCloseTo((1000 * RANGES * 0.005) / 10_000, 12);
  }, 60_000);
});

describe('the same rule over uploads and many-blob workloads', () => {
  const candidate = (
    label: string,
    description: string,
    rank: number,
    requestsPerObject: number,
    times: number[],
  ) =>
    ({
      label,
      strategy: label,
      description,
      rank,
      tied: false,
      requestsPerObject,
      timesMs: times,
      verified: true,
      ...declaredEither(label),
    }) as unknown as Parameters<typeof recommend>[0][number];

  it(
    "small uploads: our Put Blob per file before the SDK's upload() when they tie (the SDK's " +
      'requests are not traced)',
    () => {
      const r = recommend([
        candidate('sdk-small-files', 'SDK upload() per small file (baseline)', 1, 1, [100, 101, 99, 102]),
        candidate('small-files', 'one Put Blob per small file', 1, 1, [101, 100, 102, 99]),
      ]);
      expect(r).toMatchObject({ contender: 'small-files', basis: 'tied', tiedWith: ['sdk-small-files'] });
    },
  );

  it('a large upload: staged blocks when significantly faster than the SDK', () => {
    const r = recommend([
      candidate('blocks', 'staged blocks in parallel + commit', 1, 39, [100, 101, 99, 102, 100]),
      candidate('sdk-upload', 'SDK uploadData (baseline)', 2, 39, [200, 202, 198, 204, 201]),
    ]);
    expect(r).toMatchObject({
      contender: 'blocks',
      basis: 'fastest',
      ahead: { of: 'sdk-upload' },
      sdk: { label: 'sdk-upload' },
    });
    expect(r!.text).toMatch(
      new RegExp(
        String.raw`^Recommended: blocks — significantly fastest: 2\.01x faster ` +
          String.raw`than sdk-upload .*; 39 requests per object and no extra copies\. The SDK ` +
          String.raw`baseline sdk-upload \(uploadData\) was 2\.01x slower`,
      ),
    );
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

describe('a material margin', () => {
  const candidate = (
    label: string,
    rank: number,
    requestsPerObject: number,
    times: number[],
    extra: Record<string, unknown> = {},
  ) =>
    ({
      label,
      strategy: label,
      description: label,
      rank,
      tied: false,
      requestsPerObject,
      timesMs: times,
      verified: true,
      ...declaredEither(label),
      ...extra,
    }) as unknown as Parameters<typeof recommend>[0][number];
  // chunked 4% faster than single, every run: significant at n=5, and immaterial at 5%.
  const single = candidate('single', 2, 1, [104, 104.5, 103.5, 104.2, 103.8]);
  const chunked = candidate('chunked', 1, 4, [100, 100.5, 99.5, 100.2, 99.8]);

  it(
    'a contender faster by less than it does not beat one with fewer requests, and ' + 'the words say both',
    () => {
      const r = recommend([chunked, single]);
      expect(r).toMatchObject({
        contender: 'single',
        basis: 'material',
        materialShare: 0.05,
        passedOver: { of: 'chunked', requestsPerObject: 4 },
      });
      expect(r!.passedOver!.ratio).toBeCloseTo(1.04, 2);
      expect(r!.passedOver!.ratioLow).toBeGreaterThan(1);
      expect(r!.text).toMatch(
        new RegExp(
          '^Recommended: single — chunked is 1\\.04x faster \\(95% CI [\\d.]+x–[\\d.]+x\\), ' +
            'below the 5% that counts; single needs a quarter of the requests; 1 request per object ' +
            'and no extra copies\\.$',
        ),
      );
    },
  );

  it('the split one where it is materially faster, said with the margin', () => {
    const slow = candidate('single', 2, 4 / 4, [130, 131, 129, 130.5, 129.5]);
    const r = recommend([chunked, slow]);
    expect(r).toMatchObject({ contender: 'chunked', basis: 'fastest', ahead: { of: 'single' } });
    expect(r!.text).toMatch(
      new RegExp(
        String.raw`^Recommended: chunked — significantly fastest: 1\.30x faster ` +
          String.raw`than single \(95% CI .*\), above the 5% that counts; 4 requests`,
      ),
    );
  });

  it('a larger --material passes over a larger gain; off, any significant gain counts', () => {
    expect(recommend([chunked, single], 0)).toMatchObject({
      contender: 'chunked',
      basis: 'fastest',
      materialShare: 0,
    });
    const slow = candidate('single', 2, 1, [130, 131, 129, 130.5, 129.5]);
    expect(recommend([chunked, slow], 0.35)).toMatchObject({ contender: 'single', basis: 'material' });
    expect(recommend([chunked, slow], 0.35)!.text).toContain('below the 35% that counts');
  });

  it('with the same requests, the simpler one, said as what each asks', () => {
    const rr = candidate('round-robin', 1, 4, [100, 100.5, 99.5, 100.2, 99.8]);
    const ch = candidate('chunked', 2, 4, [103, 103.5, 102.5, 103.2, 102.8]);
    const r = recommend([rr, ch]);
    expect(r).toMatchObject({ contender: 'chunked', basis: 'material' });
    expect(r!.text).toContain(
      'chunked is simpler (ranges or blocks to split and join; round-robin: extra stored copies or parts)',
    );
  });

  it('never beside a contender that asks more: a slower, costlier one stays behind', () => {
    const rr = candidate('round-robin', 2, 8, [103, 103.5, 102.5, 103.2, 102.8]);
    expect(recommend([chunked, rr])).toMatchObject({ contender: 'chunked', basis: 'fastest' });
    expect(recommend([chunked, rr])!.text).not.toMatch(/above the 5%/);
  });

  it('the only one left that did not fail is never called verified when its bytes were not', () => {
    const failed = candidate('chunked', 2, 4, [], { verified: false });
    const url = candidate('single', 1, 1, [100, 101], {
      notVerified: 'plain URL: nothing to compare the bytes with',
    });
    const r = recommend([url, failed]);
    expect(r).toMatchObject({ contender: 'single', basis: 'only' });
    expect(r!.text).toBe(
      'Recommended: single — the only contender that did not fail; 1 request per object and no ' +
        'extra copies. ' +
        'Its bytes were not verified (plain URL).',
    );
    expect(recommend([url])!.text).toMatch(/^Recommended: single — the only contender measured;/);
  });
});

describe('--material', () => {
  const material = (flags: Record<string, string>, env: Record<string, string> = {}) =>
    resolveOptions(OUTPUT_OPTIONS, flags, { env }).material;

  it('is declared once: its flag, BLOB_CACHER_MATERIAL, 5% by default, off for none', () => {
    expect(material({})).toBe(0.05);
    expect(material({}, { BLOB_CACHER_MATERIAL: '10%' })).toBeCloseTo(0.1, 12);
    expect(material({ material: '2.5' }, { BLOB_CACHER_MATERIAL: '10' })).toBeCloseTo(0.025, 12);
    expect(material({ material: 'off' })).toBe(0);
    expect(() => material({ material: 'lots' })).toThrow(ConfigError);
  });

  it(
    'reaches the report: the same results file answers single by default, chunked ' + 'with --material off',
    () => {
      const doc = newResultsFile('download', {}, { kind: 'url', label: 'url example.test' });
      doc.complete = true;
      const runOf = (strategy: string, requests: number, wallMs: number, run: number): RunRecord => ({
        strategy,
        description: strategy,
        unit: 'MiB/s',
        run,
        warmup: false,
        objectSizeBytes: 1 << 20,
        wallMs,
        bytes: 1 << 20,
        requests,
        failedRequests: 0,
        reusedSockets: 0,
        retries: 0,
        throttled: 0,
        backoffMs: 0,
        phaseSumsMs: {},
        requestSumMs: wallMs * requests,
        histograms: {},
        verified: true,
        verification: 'md5 ok',
        workers: [],
        records: [],
        recordsSampled: false,
      });
      [104, 104.5, 103.5, 104.2, 103.8].forEach((t, i) => doc.runs.push(runOf('single', 1, t, i)));
      [100, 100.5, 99.5, 100.2, 99.8].forEach((t, i) => doc.runs.push(runOf('chunked', 4, t, i)));
      const answer = (material?: number) =>
        buildReport(doc, { title: 't', ...(material === undefined ? {} : { material }) }).recommendation;
      expect(answer()).toMatchObject({ contender: 'single', basis: 'material', materialShare: 0.05 });
      expect(answer(0)).toMatchObject({ contender: 'chunked', basis: 'fastest' });
    },
  );
});
