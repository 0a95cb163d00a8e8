// Cost: an upload's billable writes equal the PUTs a local server counted (a failed PUT retried is
// billed twice), the price follows the rate table given, and a --prices file is checked field by field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contenderCost, operationClassOf } from '../src/analysis/cost.js';
import { DEFAULT_PRICES, parsePriceTable, type PriceTable } from '../src/analysis/prices.js';
import type { UploadConfig } from '../src/config/load.js';
import { runUpload } from '../src/engine/upload.js';
import { setLogLevel } from '../src/log/logger.js';
import { toRunRecord } from '../src/results/record.js';
import { close } from './helpers/http-servers.js';
import { startPutServer, type PutServer } from './helpers/put-server.js';
import { testConfig } from './helpers/config.js';

const FILES = 30;
let s: PutServer;
/** Every PUT's path, as the server saw it. */
const putPaths: string[] = [];
beforeAll(async () => {
  setLogLevel('error');
  // Every 7th PUT fails once with 503: retried, and every try is billed.
  s = await startPutServer({ failPut: (path) => (putPaths.push(path) % 7 === 0 ? 503 : undefined) });
});
afterAll(() => close(s.server));

const config = (url: string): UploadConfig =>
  testConfig('upload', {
    logLevel: 'error',
    uploadMethod: 'small-files',
    fileCount: FILES,
    fileSizeBytes: 2_000,
    blobSizeBytes: 100_000,
    blockSizeBytes: 40_000,
    concurrency: 4,
    thresholdBytes: 0,
    processes: 1,
    maxSockets: 4,
    container: 'unused',
    keep: true,
    httpClient: 'raw',
    credentials: { kind: 'url', url },
    runs: 1,
    warmup: 0,
    maxRetries: 3,
    timeoutMs: 30_000,
    trace: true,
    format: 'console',
  });

const TABLE: PriceTable = {
  name: 'test prices',
  asOf: '2026-01-01',
  currency: 'USD',
  tiers: { hot: { per10kOperations: { read: 1, write: 10, list: 100, other: 1000 }, retrievalPerGiB: 0 } },
};

describe('billable operations of an upload', () => {
  it("writes equal the PUTs the server counted, retries included; the cost is the rate table's", async () => {
    const run = await runUpload(config(`${s.url}/dav/`));
    const [r] = run.results;
    expect(r!.verified, r!.verification).toBe(true);
    expect(r!.retries).toBeGreaterThan(0);
    // The preflight's probe PUT is before any run; every other PUT is the run's.
    const runPuts = putPaths.filter((p) => !p.endsWith('/probe')).length;
    expect(putPaths.length).toBe(s.log.puts);
    expect(runPuts).toBe(s.log.puts - 1);
    const cost = contenderCost('upload', [toRunRecord(r!)], TABLE);
    expect(cost.operations).toEqual({ read: 0, write: runPuts, list: 0, other: 0 });
    expect(cost.objects).toBe(FILES);
    expect(cost.requestsPerObject).toBeCloseTo(runPuts / FILES, 12);
    expect(cost.tiers).toEqual([
      {
        tier: 'hot',
        per1000Objects: expect.closeTo(((runPuts * 10) / 10_000 / FILES) * 1000, 12),
        perGiB: expect.any(Number),
      },
    ]);
  }, 60_000);
});

describe("the class of a run's requests", () => {
  const run = { bytes: 10, requests: 2 };
  it('upload: write; listing: list; a download that moved no bytes: other (HEAD); else read', () => {
    expect(operationClassOf('upload', run)).toBe('write');
    expect(
      operationClassOf('download', {
        ...run,
        params: { processes: 1, maxSockets: 1, concurrency: 1, pageSize: 10 },
      }),
    ).toBe('list');
    expect(operationClassOf('download', { ...run, bytes: 0 })).toBe('other');
    expect(operationClassOf('download', run)).toBe('read');
  });
});

describe('--prices tables', () => {
  it('the default is dated and named as Azure list prices, with hot, cool and cold', () => {
    expect(DEFAULT_PRICES.name).toMatch(/Azure .*list prices/);
    expect(DEFAULT_PRICES.asOf).toMatch(/^\d{4}-\d\d-\d\d$/);
    expect(Object.keys(DEFAULT_PRICES.tiers)).toEqual(['hot', 'cool', 'cold']);
    expect(parsePriceTable(JSON.parse(JSON.stringify(DEFAULT_PRICES)))).toEqual({ table: DEFAULT_PRICES });
  });

  it('a bad table is one line naming the field', () => {
    expect(parsePriceTable([])).toMatchObject({ problem: expect.stringMatching(/^needs \{"name"/) });
    expect(parsePriceTable({ tiers: { warm: {} } })).toEqual({
      problem: 'has an unknown tier "warm"; the tiers are hot, cool, cold',
    });
    expect(
      parsePriceTable({ tiers: { hot: { per10kOperations: { read: 1, write: -1, list: 1, other: 1 } } } }),
    ).toEqual({ problem: 'tier hot needs per10kOperations.write as a number >= 0' });
    expect(parsePriceTable({ tiers: {} })).toEqual({
      problem: 'has no tiers; give at least one of hot, cool, cold',
    });
  });

  it(
    'a name, date or currency over 200 characters is refused by name, never replaced (the currency ' +
      'had become USD)',
    () => {
      const hot = { per10kOperations: { read: 1, write: 1, list: 1, other: 1 } };
      expect(parsePriceTable({ name: 'n'.repeat(201), tiers: { hot } })).toEqual({
        problem: 'has a name of 201 characters, more than 200; shorten it',
      });
      expect(parsePriceTable({ currency: 'EUR'.repeat(70), tiers: { hot } })).toEqual({
        problem: 'has a currency of 210 characters, more than 200; shorten it',
      });
      expect(parsePriceTable({ asOf: 20250101, tiers: { hot } })).toEqual({
        problem: 'has an asOf that is not text; give a string',
      });
      // At the bound, and absent, as before: kept as given, or the stated fallback.
      expect(parsePriceTable({ name: 'n'.repeat(200), currency: 'EUR', tiers: { hot } })).toMatchObject({
        table: { name: 'n'.repeat(200), currency: 'EUR', asOf: 'undated' },
      });
    },
  );
});

describe('the estimate before a run against a real account', () => {
  const base = {
    runsPerContender: 6,
    cells: 1,
    atLeast: true,
    objectSizeBytes: 80 * 1024 * 1024,
    concurrency: 4,
    fileCount: 2400,
  };
  it('a default download: reads per strategy and run, at least, priced at the first tier', async () => {
    const { estimateSession, estimateLine } = await import('../src/analysis/estimate.js');
    const e = estimateSession(
      { ...base, command: 'download', strategies: ['single', 'chunked', 'round-robin', 'assemble', 'sdk'] },
      DEFAULT_PRICES,
    );
    // single 1, the four split ones 4 each: 17 reads a round, 6 rounds.
    expect(e.operations).toEqual({ read: 17 * 6, write: 0, list: 0, other: 0 });
    expect(e.cost).toEqual({
      tier: 'hot',
      amount: expect.closeTo((17 * 6 * 0.005) / 10_000, 12),
      currency: 'USD',
    });
    expect(estimateLine(e, DEFAULT_PRICES)).toMatch(
      new RegExp(
        '^estimate for this session: at least 102 reads, 0 writes, 0 ' +
          String.raw`list and 0 other operations, about 0\.000051 USD at hot`,
      ),
    );
  });

  it('uploads: a Put Blob per file, blocks plus their commit', async () => {
    const { estimateSession } = await import('../src/analysis/estimate.js');
    const e = estimateSession(
      {
        ...base,
        command: 'upload',
        strategies: ['small-files', 'blocks'],
        blobSizeBytes: 300 * 1024 * 1024,
        blockSizeBytes: 8 * 1024 * 1024,
      },
      DEFAULT_PRICES,
    );
    expect(e.operations.write).toBe((2400 + 38 + 1) * 6);
  });
});

describe('--prices on the command line', () => {
  it('report FILE --prices TABLE prices with it; a bad table is one line and exit 2', async () => {
    const { spawnSync } = await import('node:child_process');
    const { mkdtempSync, writeFileSync, rmSync } = await import('node:fs');
    const { join, resolve } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const cwd = mkdtempSync(join(tmpdir(), 'bc-prices-'));
    const cli = (args: string[]) =>
      spawnSync(process.execPath, [resolve('dist/cli.js'), ...args], {
        cwd,
        encoding: 'utf8',
        timeout: 60_000,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: cwd,
          BLOB_CACHER_RUNS: '1',
          BLOB_CACHER_WARMUP: '0',
          LOG_LEVEL: 'warn',
        },
      });
    try {
      expect(
        cli(['download', '--source-method', 'single', '--file-size', '64KiB', '--results', 'r.json']).status,
      ).toBe(0);
      writeFileSync(join(cwd, 'p.json'), JSON.stringify(TABLE));
      const json = JSON.parse(cli(['report', 'r.json', '--prices', 'p.json', '--format', 'json']).stdout) as {
        prices: { name: string };
        contenders: { cost: { tiers: { tier: string; per1000Objects: number }[] } }[];
      };
      expect(json.prices.name).toBe('test prices');
      // One read per object at 1 per 10,000: 0.1 per 1,000 objects.
      expect(json.contenders[0]!.cost.tiers).toEqual([
        { tier: 'hot', per1000Objects: expect.closeTo(0.1, 12), perGiB: expect.any(Number) },
      ]);
      writeFileSync(
        join(cwd, 'bad.json'),
        JSON.stringify({ tiers: { hot: { per10kOperations: { read: 'free' } } } }),
      );
      const bad = cli(['report', 'r.json', '--prices', 'bad.json']);
      expect([bad.status, bad.stdout]).toEqual([2, '']);
      expect(bad.stderr).toBe(
        'blob-cacher: prices file bad.json tier hot needs per10kOperations.read as a number >= 0\n',
      );
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });
});
