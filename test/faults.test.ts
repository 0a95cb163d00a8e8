// Reliability end to end: runDownload from src against a real server that resets, stalls,
// throttles, fails or ignores Range on chosen GETs, and runUpload through a proxy that fails PUTs in
// front of Azurite. What the server injected is compared with what the records counted, and every
// delivered byte with the source.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DownloadConfig, UploadConfig } from '../src/config/load.js';
import { runDownload } from '../src/engine/download.js';
import type { MeasuredRun } from '../src/results/record.js';
import { setLogLevel } from '../src/log/logger.js';
import type { OpRecord } from '../src/workers/protocol.js';
import { runUpload } from '../src/engine/upload.js';
import { startEmbeddedAzurite, type EmbeddedAzurite } from './helpers/azurite.js';
import { testConfig, type TestSettings } from './helpers/config.js';
import {
  deterministicBuffer,
  everyGet,
  firstGets,
  inOrder,
  startFaultProxy,
  startFaultServer,
  type Fault,
  type FaultLogEntry,
  type FaultPlan,
  type PutFault,
} from './helpers/fault-servers.js';
import { runFailed } from '../src/results/schema.js';
import { toRunRecord } from '../src/results/record.js';
import { renderConsole } from '../src/report/console.js';
import { reportOf } from './helpers/report.js';

const SIZE_BYTES = 1_000_003;
const CONCURRENCY = 4;
/** Where resets and stalls break the body: inside every chunked range (~250 kB), not on a round number. */
const BREAK_AT_BYTES = 100_003;
/** Only the stall cases rely on the timeout; elsewhere it is generous so a busy machine cannot trip it. */
const STALL_TIMEOUT_MS = 300;
const body = deterministicBuffer(SIZE_BYTES);
const md5 = (b: Buffer) => createHash('md5').update(b).digest('base64');

type Method = 'single' | 'chunked';
const INITIAL_GETS: Record<Method, number> = { single: 1, chunked: CONCURRENCY };

function configFor(url: string, overrides: TestSettings<DownloadConfig> = {}): DownloadConfig {
  return testConfig('download', {
    logLevel: 'error',
    sourceMethod: 'single',
    concurrency: CONCURRENCY,
    fileSizeBytes: 0,
    processes: 1,
    maxSockets: 8,
    sink: 'memory',
    bufferSizeBytes: 65536,
    container: 'unused',
    cleanup: false,
    credentials: { kind: 'url', url },
    runs: 1,
    warmup: 0,
    format: 'console',
    maxRetries: 3,
    timeoutMs: 5000,
    trace: true,
    httpClient: 'raw',
    ...overrides,
  });
}

interface FaultRun {
  result: MeasuredRun;
  records: OpRecord[];
  /** Every GET the server saw, in arrival order, with what it injected. */
  gets: FaultLogEntry[];
}

/** One strategy against a fresh fault server; the server is closed (stalls released) before returning. */
async function runAgainst(plan: FaultPlan, overrides: Partial<DownloadConfig>): Promise<FaultRun> {
  const server = await startFaultServer(body, plan);
  try {
    const run = await runDownload(configFor(server.url, overrides));
    expect(run.results.map((r) => r.strategy)).toEqual([overrides.sourceMethod]);
    const result = run.results[0]!;
    return { result, records: result.records.toArray(), gets: server.gets() };
  } finally {
    await server.stop();
  }
}

const sum = (records: OpRecord[], key: 'retries' | 'throttled' | 'backoffMs') =>
  records.reduce((s, r) => s + r[key], 0);
const injected = (gets: FaultLogEntry[], kind: Fault['kind']) => gets.filter((g) => g.injected === kind);
const rangeOf = (first: number, last: number) => `bytes=${first}-${last}`;

/** Verified, every byte there once, and each item's bytes equal to the source's at its offset. */
function expectDelivered({ result, records }: FaultRun): void {
  expect(result.error).toBeUndefined();
  expect(runFailed(result), result.verification).toBe(false);
  expect(result.notVerified).toMatch(/plain URL/);
  expect(result.failedRequests).toBe(0);
  expect(result.bytes).toBe(SIZE_BYTES);
  // For a plain URL the run itself checks only the byte count; the worker's per-item MD5 of what
  // landed in the sink lets the test check the content too.
  for (const r of records)
    expect(r.md5, `item ${r.item}`).toBe(md5(body.subarray(r.offsetBytes, r.offsetBytes + r.bytes)));
}

/** Phases add up to the total, and only retried records carry a `retry` phase. */
function expectPhasesAddUp(records: OpRecord[]): void {
  for (const r of records) {
    const phaseSumMs = Object.values(r.phases).reduce((s: number, v) => s + (v ?? 0), 0);
    expect(
      Math.abs(phaseSumMs - r.totalMs),
      `item ${r.item}: ${JSON.stringify(r.phases)} vs ${r.totalMs}`,
    ).toBeLessThanOrEqual(0.05);
    expect(
      r.phases.retry !== undefined,
      `item ${r.item}: retries=${r.retries}, phases ${Object.keys(r.phases).join(',')}`,
    ).toBe(r.retries > 0);
    if (r.retries > 0) expect(r.phases.retry!).toBeGreaterThanOrEqual(r.backoffMs);
  }
}

/**
 * Every body that broke was resumed by the item's next GET, asking only for the rest of its span
 * from the byte the client had delivered; those spans tile the object, so nothing delivered was
 * fetched twice. A sink that writes synchronously (memory) has taken every byte the server sent
 * before the break, so it resumes exactly there. A sink that applies backpressure (a file) may
 * have had bytes sitting in the paused response when the connection died: Node drops those, and
 * the resume starts that much earlier, never later.
 */
function expectResumedFromBreak(gets: FaultLogEntry[], sink: 'memory' | 'sparse-file' = 'memory'): void {
  let deliveredBytes = 0;
  for (const g of gets) {
    if (g.injected === 'status') continue;
    if (g.injected !== 'reset' && g.injected !== 'stall') {
      deliveredBytes += g.bodyBytesSent;
      continue;
    }
    expect(g.bodyBytesSent).toBe(BREAK_AT_BYTES);
    // Each item's span ends at its own last byte, so the item's next GET is the next one ending there.
    const resume = gets.find((later) => later.getIndex! > g.getIndex! && later.last === g.last);
    expect(resume, `GET #${g.getIndex} (${g.range ?? 'whole'}) was never resumed`).toBeDefined();
    expect(resume!.range).toBe(rangeOf(resume!.first, g.last));
    if (sink === 'memory')
      expect(resume!.first, `resume of GET #${g.getIndex}`).toBe(g.first + g.bodyBytesSent);
    expect(resume!.first).toBeGreaterThan(g.first);
    expect(resume!.first).toBeLessThanOrEqual(g.first + g.bodyBytesSent);
    deliveredBytes += resume!.first - g.first;
  }
  expect(deliveredBytes).toBe(SIZE_BYTES);
}

/** A GET answered with an error status is tried again for the very same span. */
function expectRetriedSameSpan(gets: FaultLogEntry[]): void {
  for (const g of injected(gets, 'status')) {
    const again = gets.filter((later) => later.getIndex! > g.getIndex! && later.range === g.range);
    expect(
      again.length,
      `GET #${g.getIndex} (${g.range ?? 'whole'}) was not tried again`,
    ).toBeGreaterThanOrEqual(1);
  }
}

// runDownload logs from this process too; the CLI sets the level, here we do.
beforeAll(() => setLogLevel('error'));

describe('reset mid-body on the first 2 GETs', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'blob-cacher-faults-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it.each([
    ['single', 'memory'],
    ['chunked', 'memory'],
    ['single', 'sparse-file'],
    ['chunked', 'sparse-file'],
  ] as const)('%s to %s: resumes from the byte where the body broke, verified', async (method, sink) => {
    const outPath = sink === 'sparse-file' ? join(dir, `${method}.out`) : undefined;
    const run = await runAgainst(firstGets(2, { kind: 'reset', afterBytes: BREAK_AT_BYTES }), {
      sourceMethod: method,
      sink,
      outPath,
    });

    expectDelivered(run);
    if (outPath) expect((await readFile(outPath)).equals(body)).toBe(true);
    expect(injected(run.gets, 'reset')).toHaveLength(2);
    expect(sum(run.records, 'retries')).toBe(2);
    expect(run.result.retries).toBe(2);
    expect(sum(run.records, 'throttled')).toBe(0);
    expect(run.gets).toHaveLength(INITIAL_GETS[method] + 2);
    expectResumedFromBreak(run.gets, sink);
    if (method === 'single' && sink === 'memory') {
      // Two breaks in a row: each resume starts where the previous try's body broke.
      expect(run.gets.map((g) => g.range)).toEqual([
        undefined,
        rangeOf(BREAK_AT_BYTES, SIZE_BYTES - 1),
        rangeOf(2 * BREAK_AT_BYTES, SIZE_BYTES - 1),
      ]);
    }
    expectPhasesAddUp(run.records);
  });
});

describe('error statuses on the first 2 GETs', () => {
  it.each([
    ['single', 503, 'ServerBusy', 2],
    ['chunked', 503, 'ServerBusy', 2],
    ['chunked', 429, 'TooManyRequests', 2],
    ['single', 500, 'InternalError', 0],
    ['chunked', 500, 'InternalError', 0],
  ] as const)(
    '%s, HTTP %i (%s): retried, verified, %i counted as throttled',
    async (method, status, code, throttled) => {
      // Retry-After: 0 keeps the throttling cases fast and their backoff exact; a 500 carries none.
      const fault: Fault = { kind: 'status', status, code, retryAfter: status === 500 ? undefined : '0' };
      const run = await runAgainst(firstGets(2, fault), { sourceMethod: method });

      expectDelivered(run);
      expect(injected(run.gets, 'status')).toHaveLength(2);
      expect(run.gets).toHaveLength(INITIAL_GETS[method] + 2);
      expect(sum(run.records, 'retries')).toBe(2);
      expect(sum(run.records, 'throttled')).toBe(throttled);
      expect(run.result.throttled).toBe(throttled);
      // Retry-After: 0 means no wait at all; without it, full jitter stays under base * 2^attempt.
      if (status !== 500) expect(sum(run.records, 'backoffMs')).toBe(0);
      else for (const r of run.records) expect(r.backoffMs).toBeLessThanOrEqual(100 + 200);
      expectRetriedSameSpan(run.gets);
      expectPhasesAddUp(run.records);
    },
  );

  it('honours Retry-After: 1 (503 once): the request sleeps the full second', async () => {
    const run = await runAgainst(
      firstGets(1, { kind: 'status', status: 503, code: 'ServerBusy', retryAfter: '1' }),
      { sourceMethod: 'single' },
    );

    expectDelivered(run);
    const [r] = run.records;
    expect(r!.retries).toBe(1);
    expect(r!.throttled).toBe(1);
    expect(r!.backoffMs).toBe(1000);
    expect(r!.phases.retry!).toBeGreaterThanOrEqual(1000 - 1);
    expectPhasesAddUp(run.records);
  });
});

describe('the report of a run that met faults', () => {
  it('says how many resets, throttled answers and retries it met, in one warning line', async () => {
    const reset: Fault = { kind: 'reset', afterBytes: BREAK_AT_BYTES };
    const busy: Fault = { kind: 'status', status: 503, code: 'ServerBusy', retryAfter: '0' };
    const run = await runAgainst(inOrder(reset, reset, busy), { sourceMethod: 'chunked' });
    expectDelivered(run);
    expect(run.result.faults).toEqual({ reset: 2 });
    const report = reportOf([toRunRecord(run.result)], { target: { kind: 'url', label: 'url 127.0.0.1' } });
    const met = '2 connection resets, 1 throttled answer (503/429), 3 retries';
    const text =
      `runs met faults: chunked (${met}): the times include the tries again and their backoff; see ` +
      `--details`;
    expect(report.warnings.filter((w) => w.kind === 'faults')).toEqual([
      { kind: 'faults', contenders: [{ label: 'chunked', detail: met }], text },
    ]);
    const lines = renderConsole(report).split('\n');
    expect(lines.filter((l) => l.includes('runs met faults'))).toEqual([`warning: ${text}`]);
  });

  it('a clean run has no such warning', async () => {
    const run = await runAgainst(() => undefined, { sourceMethod: 'chunked' });
    expectDelivered(run);
    expect(run.result.faults).toBeUndefined();
    expect(reportOf([toRunRecord(run.result)]).warnings.map((w) => w.kind)).not.toContain('faults');
  });
});

describe('more failures than maxRetries', () => {
  it.each(['single', 'chunked'] as const)(
    '%s, HTTP 500 forever with maxRetries 2: fails cleanly after exactly 3 tries per item',
    async (method) => {
      const maxRetries = 2;
      const run = await runAgainst(everyGet({ kind: 'status', status: 500, code: 'InternalError' }), {
        sourceMethod: method,
        maxRetries,
      });

      // The run returned (no throw, no hang) and says what went wrong.
      const { result, records, gets } = run;
      expect(result.verified).toBe(false);
      expect(`${result.error ?? ''} ${result.verification}`).toMatch(/HTTP 500/);
      expect(records).toHaveLength(INITIAL_GETS[method]);
      expect(result.failedRequests).toBe(INITIAL_GETS[method]);
      for (const r of records) {
        expect(r.error).toMatch(/^HTTP 500 InternalError/);
        expect(r.status).toBe(500);
        expect(r.retries).toBe(maxRetries);
        expect(r.throttled).toBe(0);
      }
      // What reached the server: maxRetries + 1 GETs for each item's span, and nothing else.
      expect(gets).toHaveLength(INITIAL_GETS[method] * (maxRetries + 1));
      const perSpan = new Map<string, number>();
      for (const g of gets) perSpan.set(g.range ?? 'whole', (perSpan.get(g.range ?? 'whole') ?? 0) + 1);
      expect(perSpan.size).toBe(INITIAL_GETS[method]);
      for (const [span, count] of perSpan) expect(count, span).toBe(maxRetries + 1);
      expectPhasesAddUp(records);
    },
  );
});

describe('a body that stalls past the timeout once', () => {
  it.each(['single', 'chunked'] as const)(
    '%s: the try times out, the retry resumes, verified',
    async (method) => {
      const run = await runAgainst(firstGets(1, { kind: 'stall', afterBytes: BREAK_AT_BYTES }), {
        sourceMethod: method,
        timeoutMs: STALL_TIMEOUT_MS,
      });

      expectDelivered(run);
      const [stall] = injected(run.gets, 'stall');
      // The client gave up on the held socket; the server never let go of it.
      expect(stall!.stallEndedBy).toBe('client');
      expect(stall!.stalledMs!).toBeGreaterThanOrEqual(STALL_TIMEOUT_MS - 50);
      expect(run.gets).toHaveLength(INITIAL_GETS[method] + 1);
      expectResumedFromBreak(run.gets);

      const retried = run.records.filter((r) => r.retries > 0);
      expect(retried).toHaveLength(1);
      const r = retried[0]!;
      expect(r.retries).toBe(1);
      expect(r.throttled).toBe(0);
      expect(r.offsetBytes).toBe(stall!.first);
      // The failed try waited out the idle timeout before it was given up: it all went into `retry`.
      expect(r.phases.retry! - r.backoffMs).toBeGreaterThanOrEqual(STALL_TIMEOUT_MS - 1);
      expectPhasesAddUp(run.records);
    },
  );

  it(
    'single, stalling every time with maxRetries 1: fails with the timeout as its error, after ' +
      'resuming once',
    async () => {
      const run = await runAgainst(everyGet({ kind: 'stall', afterBytes: BREAK_AT_BYTES }), {
        sourceMethod: 'single',
        timeoutMs: STALL_TIMEOUT_MS,
        maxRetries: 1,
      });

      expect(run.result.verified).toBe(false);
      const [r] = run.records;
      expect(r!.error).toMatch(new RegExp(`^ETIMEDOUT: no data for ${STALL_TIMEOUT_MS} ms`));
      expect(r!.retries).toBe(1);
      expect(run.gets.map((g) => g.range)).toEqual([undefined, rangeOf(BREAK_AT_BYTES, SIZE_BYTES - 1)]);
      expect(run.gets.every((g) => g.stallEndedBy === 'client')).toBe(true);
      expectPhasesAddUp(run.records);
    },
  );
});

describe('a server that ignores Range', () => {
  it('chunked fails without retrying, naming the Range header', async () => {
    const run = await runAgainst(everyGet({ kind: 'ignore-range' }), { sourceMethod: 'chunked' });

    expect(run.result.verified).toBe(false);
    expect(`${run.result.error ?? ''} ${run.result.verification}`).toMatch(/Range header/);
    expect(run.result.failedRequests).toBe(CONCURRENCY);
    for (const r of run.records) {
      expect(r.error).toMatch(/Range header/);
      expect(r.retries).toBe(0);
    }
    // Not retryable: one GET per range reached the server.
    expect(run.gets).toHaveLength(CONCURRENCY);
    expect(run.gets.every((g) => g.range !== undefined && g.status === 200)).toBe(true);
    expectPhasesAddUp(run.records);
  });
});

describe('phases of a run where some requests were retried and some were not', () => {
  it('add up to totalMs on every record; only retried ones have a retry phase', async () => {
    const plan = inOrder(
      { kind: 'reset', afterBytes: BREAK_AT_BYTES },
      { kind: 'status', status: 503, code: 'ServerBusy', retryAfter: '0' },
      { kind: 'status', status: 500, code: 'InternalError' },
    );
    const run = await runAgainst(plan, { sourceMethod: 'chunked' });

    expectDelivered(run);
    expect(sum(run.records, 'retries')).toBe(3);
    expect(sum(run.records, 'throttled')).toBe(1);
    // Three faults over four items: at least one item went through untouched.
    expect(run.records.some((r) => r.retries === 0)).toBe(true);
    expect(run.records.some((r) => r.retries > 0)).toBe(true);
    expectResumedFromBreak(run.gets);
    expectRetriedSameSpan(run.gets);
    expectPhasesAddUp(run.records);
  });
});

describe('uploads through a proxy that fails Put Blob in front of Azurite', () => {
  const FILE_COUNT = 4;
  let azurite: EmbeddedAzurite;
  beforeAll(async () => {
    azurite = await startEmbeddedAzurite();
  });
  afterAll(() => azurite?.stop());

  async function uploadThrough(
    plan: (putIndex: number) => PutFault | undefined,
    overrides: TestSettings<UploadConfig> = {},
  ) {
    const proxy = await startFaultProxy(azurite.endpoint, plan);
    try {
      const run = await runUpload(
        testConfig('upload', {
          logLevel: 'error',
          uploadMethod: 'small-files',
          fileCount: FILE_COUNT,
          fileSizeBytes: 10_000,
          blobSizeBytes: 0,
          blockSizeBytes: 4096,
          concurrency: 1,
          thresholdBytes: 0,
          processes: 1,
          maxSockets: 4,
          container: 'faults',
          keep: false,
          credentials: { kind: 'key', account: azurite.account, key: azurite.key, endpoint: proxy.endpoint },
          runs: 1,
          warmup: 0,
          format: 'console',
          maxRetries: 3,
          timeoutMs: 5000,
          trace: true,
          httpClient: 'raw',
          ...overrides,
        }),
      );
      expect(run.results.map((r) => r.strategy)).toEqual(['small-files']);
      return { result: run.results[0]!, puts: proxy.log.filter((e) => e.putIndex !== undefined) };
    } finally {
      await proxy.stop();
    }
  }

  it(
    '503, a dropped connection and a 500: each PUT is sent again whole, and the ' + 'stored blobs verify',
    async () => {
      const faults: PutFault[] = [
        { kind: 'status', status: 503, code: 'ServerBusy', retryAfter: '0' },
        { kind: 'drop' },
        { kind: 'status', status: 500, code: 'InternalError' },
      ];
      const { result, puts } = await uploadThrough((n) => faults[n]);

      expect(result.error).toBeUndefined();
      expect(result.verified, result.verification).toBe(true);
      expect(result.failedRequests).toBe(0);
      expect(result.bytes).toBe(FILE_COUNT * 10_000);
      expect(sum(result.records.toArray(), 'retries')).toBe(3);
      expect(sum(result.records.toArray(), 'throttled')).toBe(1);
      // Every faulted PUT was followed by another for the same blob, which reached the service.
      expect(puts).toHaveLength(FILE_COUNT + 3);
      expect(puts.every((p) => p.bodyBytes === 10_000)).toBe(true);
      for (const p of puts.filter((e) => e.injected !== 'none')) {
        expect(
          puts.some(
            (later) => later.putIndex! > p.putIndex! && later.path === p.path && later.status === 201,
          ),
          p.path,
        ).toBe(true);
      }
      expect(puts.filter((e) => e.status === 201)).toHaveLength(FILE_COUNT);
      expectPhasesAddUp(result.records.toArray());
    },
  );

  it('500 forever with maxRetries 1: fails cleanly after exactly 2 tries per blob', async () => {
    const { result, puts } = await uploadThrough(
      () => ({ kind: 'status', status: 500, code: 'InternalError' }),
      { maxRetries: 1 },
    );

    expect(result.verified).toBe(false);
    expect(`${result.error ?? ''} ${result.verification}`).toMatch(/HTTP 500/);
    expect(result.failedRequests).toBe(FILE_COUNT);
    for (const r of result.records) {
      expect(r.retries).toBe(1);
      expect(r.bytes).toBe(0);
    }
    expect(puts).toHaveLength(FILE_COUNT * 2);
    expect(new Set(puts.map((p) => p.path)).size).toBe(FILE_COUNT);
    expectPhasesAddUp(result.records.toArray());
  });
});
