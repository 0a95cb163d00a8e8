// Scale-out, the parts that need no second process: every item taken by exactly one client, the
// start-time arithmetic, the clock offset read from a server whose Date header is skewed by a known
// amount, and the merge of hand-made client results (overlap window, summed series, start spread).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError } from '../src/vocabulary/errors.js';
import { buildProgram, loadDownloadConfig, parseFlags, redactedConfig } from '../src/config/load.js';
import { DOWNLOAD_OPTIONS } from '../src/config/options.js';
import { PhaseHistograms } from '../src/metrics/histograms.js';
import { RECORD_COLUMNS, type RecordRow, type ResultsFile, type RunRecord } from '../src/results/schema.js';
import { newResultsFile } from '../src/results/file.js';
import { readyIndices, startTimeMs } from '../src/scaleout/barrier.js';
import { estimateClockOffset, headDateProbe, LocalClock } from '../src/scaleout/clock.js';
import {
  CLIENT_RESULTS_SCHEMA,
  CLIENT_RESULTS_VERSION,
  parseClientResults,
  type ClientResults,
} from '../src/scaleout/client-results.js';
import { mergeClients } from '../src/scaleout/collect.js';
import { shardItems } from '../src/scaleout/shard.js';
import { FileSet } from '../src/plan/items.js';

describe('sharding: client i of K takes items i, i+K, …', () => {
  it('covers every item exactly once for every K from 1 to 40, over plans of 0 to 100 items', () => {
    const problems: string[] = [];
    for (let n = 0; n <= 100; n++) {
      const items = Array.from({ length: n }, (_, i) => ({ index: i, destOffsetBytes: i, lengthBytes: 1 }));
      for (let k = 1; k <= 40; k++) {
        const taken = new Array<number>(n).fill(0);
        for (let i = 0; i < k; i++) {
          const share = shardItems(items, { index: i, count: k });
          for (const item of share) {
            if (item.index % k !== i) problems.push(`n=${n} K=${k}: client ${i} took item ${item.index}`);
            taken[item.index]!++;
          }
          // Shares differ by at most one item.
          if (Math.abs(share.length - n / k) >= 1)
            problems.push(`n=${n} K=${k}: client ${i} took ${share.length}`);
        }
        taken.forEach((count, item) => {
          if (count !== 1) problems.push(`n=${n} K=${k}: item ${item} taken ${count} times`);
        });
      }
    }
    expect(problems).toEqual([]);
  });

  it('takes the same files from a file set (a few numbers) as from the same items listed one by one', () => {
    const set = FileSet.of('run/small-files/0', 103, 10, 'upload');
    for (const k of [1, 2, 7, 103, 150]) {
      for (let i = 0; i < k; i++) {
        const share = shardItems(set, { index: i, count: k });
        expect(share).toBeInstanceOf(FileSet);
        expect([...share]).toEqual(shardItems([...set], { index: i, count: k }));
      }
    }
  });

  it('without a shard, or with K = 1, takes everything', () => {
    const items = [1, 2, 3].map((index) => ({ index, destOffsetBytes: 0, lengthBytes: 1 }));
    expect(shardItems(items)).toEqual(items);
    expect(shardItems(items, { index: 0, count: 1 })).toEqual(items);
  });
});

describe('start time: the latest ready marker plus the lead, on the service clock', () => {
  const at = (name: string, iso: string) => ({ name, lastModifiedMs: Date.parse(iso) });

  it('is the same for every client whatever order the markers were listed in', () => {
    const markers = [
      at('runs/r/ready/0', '2026-01-01T00:00:05Z'),
      at('runs/r/ready/2', '2026-01-01T00:00:09Z'),
      at('runs/r/ready/1', '2026-01-01T00:00:07Z'),
    ];
    expect(startTimeMs(markers, 3_000)).toBe(Date.parse('2026-01-01T00:00:12Z'));
    expect(startTimeMs([...markers].reverse(), 3_000)).toBe(Date.parse('2026-01-01T00:00:12Z'));
    expect(startTimeMs(markers, 0)).toBe(Date.parse('2026-01-01T00:00:09Z'));
  });

  it('counts markers of indices below K only', () => {
    const markers = [
      at('runs/r/ready/0', '2026-01-01T00:00:00Z'),
      at('runs/r/ready/3', '2026-01-01T00:00:00Z'),
      at('runs/r/ready/x', '2026-01-01T00:00:00Z'),
      at('runs/r/ready/1', '2026-01-01T00:00:00Z'),
    ];
    expect([...readyIndices(markers, 'runs/r/ready/', 3)].sort()).toEqual([0, 1]);
  });
});

describe('clock offset from the Date header (one-second resolution, so the tick is found)', () => {
  let server: Server;
  let skewMs = 0;
  let url = '';
  beforeAll(async () => {
    server = createServer((_req, res) => {
      res.setHeader('date', new Date(Date.now() + skewMs).toUTCString());
      res.end();
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  for (const skew of [0, 3_456, -7_890, 250, -120_000]) {
    it(`finds a server ${skew} ms off within ±50 ms`, async () => {
      skewMs = skew;
      const offset = await estimateClockOffset(headDateProbe(url), new LocalClock());
      expect(offset.tickSeen).toBe(true);
      expect(Math.abs(offset.offsetMs - skew)).toBeLessThan(50);
      // The interval it states holds the truth.
      expect(Math.abs(offset.offsetMs - skew)).toBeLessThanOrEqual(offset.uncertaintyMs + 2);
    });
  }

  it('finds a local clock that is off (the test-only skew) as the opposite offset', async () => {
    skewMs = 0;
    const offset = await estimateClockOffset(headDateProbe(url), new LocalClock(2_500));
    expect(Math.abs(offset.offsetMs + 2_500)).toBeLessThan(50);
  });

  it('fails with one line when the answer has no usable Date', async () => {
    await expect(estimateClockOffset(async () => undefined, new LocalClock())).rejects.toThrow(/Date header/);
  });
});

// ---- the merge, on hand-made results ----

const COL = (name: (typeof RECORD_COLUMNS)[number]) => RECORD_COLUMNS.indexOf(name);

function row(startEpochMs: number, totalMs: number, bytes: number): RecordRow {
  const r: RecordRow = RECORD_COLUMNS.map(() => null);
  r[COL('worker')] = 0;
  r[COL('item')] = 0;
  r[COL('offsetBytes')] = 0;
  r[COL('bytes')] = bytes;
  r[COL('status')] = 200;
  r[COL('startEpochMs')] = startEpochMs;
  r[COL('totalMs')] = totalMs;
  r[COL('reused')] = false;
  r[COL('retries')] = 0;
  r[COL('throttled')] = 0;
  r[COL('backoffMs')] = 0;
  return r;
}

function run(rows: RecordRow[], latenciesMs: number[]): RunRecord {
  const h = new PhaseHistograms();
  for (const ms of latenciesMs) h.record({}, ms);
  return {
    strategy: 'small-files',
    description: 'x',
    run: 0,
    warmup: false,
    objectSizeBytes: 0,
    wallMs: 0,
    bytes: rows.reduce((s, r) => s + (r[COL('bytes')] as number), 0),
    requests: rows.length,
    failedRequests: 0,
    reusedSockets: 0,
    retries: 0,
    throttled: 0,
    backoffMs: 0,
    phaseSumsMs: {},
    requestSumMs: 0,
    histograms: h.encode(),
    verified: true,
    verification: 'ok',
    workers: [],
    records: rows,
    recordsSampled: false,
  };
}

function client(
  index: number,
  recordsOffsetMs: number,
  rows: RecordRow[],
  latenciesMs: number[],
): ClientResults {
  const results: ResultsFile = {
    ...newResultsFile('upload', {}, { kind: 'account', label: 'x' }),
    complete: true,
    runs: [run(rows, latenciesMs)],
  };
  return {
    schema: CLIENT_RESULTS_SCHEMA,
    schemaVersion: CLIENT_RESULTS_VERSION,
    runId: 'r',
    index,
    parallelism: 3,
    host: `node-${index}`,
    clock: { offsetMs: recordsOffsetMs, uncertaintyMs: 3, samples: 10, recordsOffsetMs },
    results,
  };
}

describe('merging clients over the overlap window', () => {
  const T = Date.parse('2026-01-01T00:00:00Z');
  // Each client moves 1000 bytes per 100 ms request back to back; on the service's clock client 0
  // runs [T, T+3000), client 1 [T+500, T+2500), client 2 [T+1000, T+4000). Client 1's local clock is
  // 10 s behind (its records say T-10000+…, its offset +10 s).
  const steady = (fromMs: number, toMs: number) => {
    const rows: RecordRow[] = [];
    for (let t = fromMs; t < toMs; t += 100) rows.push(row(t, 100, 1000));
    return rows;
  };
  const docs = [
    client(0, 0, steady(T, T + 3000), [1, 2, 3]),
    client(1, 10_000, steady(T + 500 - 10_000, T + 2500 - 10_000), [4, 5]),
    client(2, 0, steady(T + 1000, T + 4000), [6]),
  ];

  it('is [latest start, earliest end] on the service clock, and counts only what fell in it', () => {
    const m = mergeClients('r', 3, docs);
    expect(m.overlap).toBeDefined();
    expect(m.overlap!.startMs).toBe(T + 1000);
    expect(m.overlap!.endMs).toBe(T + 2500);
    // In [T+1000, T+2500) every client moves 10,000 bytes/s: 3 x 1.5 s x 10,000.
    expect(m.overlap!.bytes).toBeCloseTo(45_000, 6);
    expect(m.overlap!.throughputMiBps).toBeCloseTo(30_000 / 1024 / 1024, 9);
    // Requests that ended in the window [T+1000, T+2500]: 16 of clients 0 and 1 (ends T+1000 … T+2500),
    // 15 of client 2 (its first ends at T+1100).
    expect(m.overlap!.requests).toBe(16 + 16 + 15);
    expect(m.startSpreadMs).toBe(1000);
    // Each client's first request after the earliest one's, on the service clock.
    expect(m.clients.map((c) => c.startAfterEarliestMs)).toEqual([0, 500, 1000]);
  });

  it('sums the per-second series across clients, and the totals and histograms over every client', () => {
    const m = mergeClients('r', 3, docs);
    const bySecond = new Map(m.series.map((b) => [b.atMs - T, b]));
    // Second 0: client 0, and client 1 from T+500; 1: all three; 2: clients 0 and 2, client 1 to T+2500; 3:
    // client 2.
    expect(bySecond.get(0)!.bytes).toBeCloseTo(15_000, 6);
    expect(bySecond.get(1000)!.bytes).toBeCloseTo(30_000, 6);
    expect(bySecond.get(2000)!.bytes).toBeCloseTo(25_000, 6);
    expect(bySecond.get(3000)!.bytes).toBeCloseTo(10_000, 6);
    expect(m.series.reduce((s, b) => s + b.bytes, 0)).toBeCloseTo(m.totals.bytes, 6);
    expect(m.series.reduce((s, b) => s + b.requests, 0)).toBe(m.totals.requests);
    expect(m.totals.requests).toBe(30 + 20 + 30);
    expect(m.contenders).toHaveLength(1);
    expect(m.contenders[0]!.totalMs!.count).toBe(6);
    expect(m.contenders[0]!.totalMs!.max).toBeCloseTo(6, 1);
    expect(m.missing).toEqual([]);
    expect(m.failed).toEqual([]);
  });

  it(
    'steady runs (--duration) merge from their per-interval series, not from the ' + 'last request per item',
    () => {
      // Two clients, each 4 intervals of 500 ms from its release: 10 requests of 100 bytes per interval.
      // Client 1's clock is 10 s behind and it was released 1 s after client 0 (service clock).
      const steadyClient = (
        index: number,
        recordsOffsetMs: number,
        releaseEpochMs: number,
      ): ClientResults => {
        const c = client(index, recordsOffsetMs, [row(releaseEpochMs + 1900, 50, 100)], [1]);
        const r = c.results!.runs[0]!;
        r.requests = 40;
        r.bytes = 4000;
        r.steady = {
          releaseEpochMs,
          durationMs: 2000,
          intervalMs: 500,
          lapBytes: 100,
          lapRequests: 1,
          laps: 40,
          workers: [{ firstStartMs: 0, stoppedMs: 2000, lastEndMs: 2000 }],
          series: Array.from({ length: 4 }, () => ({
            ops: 10,
            bytes: 1000,
            errors: 0,
            retries: 0,
            throttled: 0,
          })),
        };
        return c;
      };
      const m = mergeClients('r', 2, [steadyClient(0, 0, T), steadyClient(1, 10_000, T + 1000 - 10_000)]);
      expect(m.series.reduce((s, b) => s + b.requests, 0)).toBe(80);
      expect(m.series.reduce((s, b) => s + b.bytes, 0)).toBeCloseTo(8000, 6);
      // Both running from T+1000 to T+2000: 2 clients x 2 intervals x 1000 bytes; requests are those
      // that ended in [T+1000, T+2000], edges included: client 0's intervals ending at +1000, +1500,
      // +2000 and client 1's at +1500, +2000.
      expect(m.overlap).toMatchObject({ startMs: T + 1000, endMs: T + 2000, bytes: 4000, requests: 50 });
      expect(m.startSpreadMs).toBe(1000);
    },
  );

  it('names a missing client and a failed one', () => {
    const failed: ClientResults = {
      ...docs[2]!,
      results: undefined,
      failure: 'barrier of run r: 2 of 3 clients ready',
      exitCode: 3,
    };
    const m = mergeClients('r', 4, [docs[0]!, failed]);
    expect(m.missing).toEqual([1, 3]);
    expect(m.failed).toEqual([{ index: 2, problem: 'barrier of run r: 2 of 3 clients ready' }]);
    expect(m.totals.requests).toBe(30);
  });

  it('reads back what a client writes, and refuses a foreign file in one line', () => {
    const parsed = parseClientResults(JSON.stringify(docs[1]));
    expect('doc' in parsed && parsed.doc.clock?.recordsOffsetMs).toBe(10_000);
    expect(parseClientResults('{"schema":"other"}')).toEqual({
      problem: 'is not a blob-cacher scale-out client results file',
    });
  });
});

describe('scale-out options', () => {
  const CS =
    `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=` +
    `${Buffer.from('k').toString('base64')};BlobEndpoint=http://127.0.0.1:1/devstoreaccount1`;
  const load = (argv: string[], env: Record<string, string> = {}) => {
    const flags = parseFlags(buildProgram('download', DOWNLOAD_OPTIONS, 'test'), argv)!;
    return loadDownloadConfig(flags, { env });
  };

  it('JOB_COMPLETION_INDEX wins over BLOB_CACHER_INDEX; --index over both', () => {
    const env = {
      STORAGE_CONNECTION_STRING: CS,
      BLOB_CACHER_PARALLELISM: '3',
      BLOB_CACHER_RUN_ID: 'uid-1',
      BLOB_CACHER_INDEX: '1',
    };
    expect(load([], env).scaleout?.shard).toEqual({ index: 1, count: 3 });
    expect(load([], { ...env, JOB_COMPLETION_INDEX: '2' }).scaleout?.shard).toEqual({ index: 2, count: 3 });
    expect(load(['--index', '0'], { ...env, JOB_COMPLETION_INDEX: '2' }).scaleout?.shard).toEqual({
      index: 0,
      count: 3,
    });
    expect(load([], env).scaleout?.store).toMatchObject({ kind: 'key', account: 'devstoreaccount1' });
  });

  it('a plain run has none', () => {
    expect(load([]).scaleout).toBeUndefined();
  });

  for (const [name, argv, env, mentions] of [
    [
      '--parallelism without --run-id',
      ['--parallelism', '3', '--index', '0'],
      { STORAGE_CONNECTION_STRING: CS },
      '--run-id',
    ],
    [
      'an index not below K',
      ['--parallelism', '3', '--index', '3', '--run-id', 'x'],
      { STORAGE_CONNECTION_STRING: CS },
      'not below --parallelism 3',
    ],
    [
      'K > 1 without an index',
      ['--parallelism', '3', '--run-id', 'x'],
      { STORAGE_CONNECTION_STRING: CS },
      'JOB_COMPLETION_INDEX',
    ],
    ['the embedded target without --run-store', ['--run-id', 'x'], {}, '--run-store'],
    [
      'a --url target without --run-store',
      ['--run-id', 'x', '--url', 'http://127.0.0.1:1/x'],
      {},
      '--run-store',
    ],
    ['a bad run id', ['--run-id', 'a/b'], { STORAGE_CONNECTION_STRING: CS }, '--run-id'],
    ['the test skew without --run-id', ['--test-clock-skew', '100'], {}, '--test-clock-skew'],
    [
      '--sink file, one stream, for every K-th range',
      ['--run-id', 'x', '--parallelism', '2', '--index', '0', '--sink', 'file'],
      { STORAGE_CONNECTION_STRING: CS },
      'sparse-file',
    ],
    [
      '--cleanup, which would delete what other clients read',
      ['--run-id', 'x', '--cleanup'],
      { STORAGE_CONNECTION_STRING: CS },
      '--cleanup',
    ],
  ] as const) {
    it(`refuses ${name} in one line`, () => {
      expect(() => load([...argv], { ...env })).toThrow(ConfigError);
      expect(() => load([...argv], { ...env })).toThrow(mentions);
    });
  }

  it(
    'takes --run-store for the markers and results of a --url run, its key kept ' + 'out of the shown config',
    () => {
      const config = load(['--run-id', 'x', '--url', 'http://127.0.0.1:1/x', '--run-store', CS]);
      expect(config.scaleout?.store.kind).toBe('key');
      expect(JSON.stringify(redactedConfig(config))).not.toContain(Buffer.from('k').toString('base64'));
    },
  );
});
