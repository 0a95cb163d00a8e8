// Open-loop load (--rate): each send has an intended start on a schedule, its latency counts from
// there, and a send that finds --max-in-flight reached is skipped. Real runs against plain http
// servers on port 0 that log each request's arrival and answer: one that answers in 5 ms but holds
// every request that arrives in one tenth of each cycle for 200 ms, and one that holds everything.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openLoopSummary } from '../src/analysis/open-loop.js';
import { buildReport } from '../src/analysis/report-model.js';
import { ConfigError } from '../src/vocabulary/errors.js';
import {
  buildProgram,
  clientShare,
  loadDownloadConfig,
  parseFlags,
  redactedConfig,
  type DownloadConfig,
} from '../src/config/load.js';
import { DOWNLOAD_OPTIONS } from '../src/config/options.js';
import { runDownload } from '../src/engine/download.js';
import { sumEncoded, valuesAtPercentiles } from '../src/metrics/histograms.js';
import { renderReport } from '../src/report/render.js';
import { newResultsFile } from '../src/results/file.js';
import { toRunRecord, type MeasuredRun } from '../src/results/record.js';
import { runFailed } from '../src/results/schema.js';
import { parseResultsDoc } from '../src/results/validate.js';
import { OpenLoopMeter, runOpenLoop, Schedule } from '../src/workers/open-loop.js';
import { FixedShape } from '../src/workers/shape.js';
import { echoLanes } from './helpers/echo-lanes.js';
import type { OpRecord } from '../src/metrics/records.js';
import { testConfig, type TestSettings } from './helpers/config.js';
import { close, deterministicBuffer, listen } from './helpers/http-servers.js';
import { startCli } from './helpers/cli.js';
import { startEmulatedTarget } from '../src/emulate/server.js';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Report } from '../src/analysis/report-model.js';

const RANGE_BYTES = 1024;
const RANGES = 100;
const body = deterministicBuffer(RANGE_BYTES * RANGES);

/** One request as the server saw it: arrival and answer on the epoch clock (timeOrigin + now), ms. */
interface Logged {
  arrivedMs: number;
  answeredMs: number;
}

/**
 * Serves `body` (HEAD, whole or one range). A GET that arrives in the first `stallShare` of each
 * `cycleMs` (counted from the server's start) is answered `stallMs` after it arrived; any other
 * after `answerMs`. The server holds no queue: each request waits on its own timer.
 */
function stallingServer(o: { answerMs: number; stallMs: number; cycleMs: number; stallShare: number }) {
  const log: Logged[] = [];
  const bornMs = performance.timeOrigin + performance.now();
  const server = http.createServer((req, res) => {
    const arrivedMs = performance.timeOrigin + performance.now();
    if (req.method === 'HEAD') {
      res.writeHead(200, { 'content-length': body.length, 'accept-ranges': 'bytes' }).end();
      return;
    }
    const m = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? '');
    const [first, last] = m ? [Number(m[1]), Math.min(Number(m[2]), body.length - 1)] : [0, body.length - 1];
    const inStall = (arrivedMs - bornMs) % o.cycleMs < o.cycleMs * o.stallShare;
    setTimeout(
      () => {
        const range = m ? { 'content-range': `bytes ${first}-${last}/${body.length}` } : {};
        res.writeHead(m ? 206 : 200, { 'content-length': last - first + 1, ...range });
        res.end(body.subarray(first, last + 1));
        log.push({ arrivedMs, answeredMs: performance.timeOrigin + performance.now() });
      },
      inStall ? o.stallMs : o.answerMs,
    );
  });
  return { server, log };
}

function configFor(url: string, overrides: TestSettings<DownloadConfig> = {}): DownloadConfig {
  return testConfig('download', {
    sourceMethod: 'chunked',
    rangeSizeBytes: RANGE_BYTES,
    concurrency: 1,
    processes: 1,
    maxSockets: 1,
    fileSizeBytes: body.length,
    sink: 'memory',
    bufferSizeBytes: 65536,
    container: 'unused',
    cleanup: false,
    credentials: { kind: 'url', url },
    runs: 1,
    warmup: 0,
    maxRetries: 0,
    timeoutMs: 10_000,
    httpClient: 'raw',
    ...overrides,
  });
}

const p99Ms = (encoded: string | undefined) => {
  const h = sumEncoded(encoded ? [encoded] : []);
  return h ? valuesAtPercentiles(h, [99])[0]! / 1000 : NaN;
};
const percentileOf = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

describe('--rate options', () => {
  const load = (argv: Record<string, unknown>) =>
    loadDownloadConfig({ url: 'http://127.0.0.1:1/x', ...argv }, { env: {} });

  it('reads a rate with or without /s, uniform by default; refuses the open-loop options without it', () => {
    expect(load({ rate: '800/s' }).openLoop).toEqual({ ratePerSecond: 800, arrival: 'uniform' });
    expect(load({ rate: '2.5', arrival: 'poisson', maxInFlight: '16' }).openLoop).toEqual({
      ratePerSecond: 2.5,
      arrival: 'poisson',
      maxInFlight: 16,
    });
    expect(load({}).openLoop).toBeUndefined();
    expect(() => load({ maxInFlight: '4' })).toThrow(ConfigError);
    expect(() => load({ arrival: 'poisson' })).toThrow(/give --rate too/);
  });

  it('reads --slo as a percentile and a bound, and only beside --rate', () => {
    expect(load({ rate: '800', slo: 'p99<200ms' }).slo).toEqual({ percentile: 99, boundMs: 200 });
    expect(load({ rate: '800', slo: 'p99.9 < 1.5s' }).slo).toEqual({ percentile: 99.9, boundMs: 1500 });
    expect(() => load({ rate: '800', slo: 'p98<200ms' })).toThrow(/such as p99<200ms/);
    expect(() => load({ slo: 'p99<200ms' })).toThrow(/give --rate too/);
  });
});

describe('the schedule', () => {
  it('interleaves uniform sends over workers into one grid at the total rate', () => {
    const starts = [0, 1]
      .flatMap((w) => {
        const s = new Schedule(0, 100, 'uniform', w, 2);
        return Array.from({ length: 5 }, () => s.take());
      })
      .sort((a, b) => a - b);
    expect(starts).toEqual(Array.from({ length: 10 }, (_, i) => i * 10));
  });

  it('draws Poisson gaps of the mean rate, the same draw for the same worker every time', () => {
    const gaps = (w: number) => {
      const s = new Schedule(0, 1000, 'poisson', w, 1);
      let last = 0;
      return Array.from({ length: 20_000 }, () => {
        const at = s.take();
        const gap = at - last;
        last = at;
        return gap;
      });
    };
    const a = gaps(0);
    expect(gaps(0)).toEqual(a);
    expect(gaps(1)).not.toEqual(a);
    const mean = a.reduce((x, y) => x + y, 0) / a.length;
    expect(mean).toBeGreaterThan(0.97);
    expect(mean).toBeLessThan(1.03);
    // Exponential: the share of gaps over the mean is e^-1.
    expect(a.filter((g) => g > 1).length / a.length).toBeCloseTo(Math.exp(-1), 1);
  });
});

describe('open loop against a server that stalls one tenth of the time', () => {
  // 5 ms answers; every request arriving in the first 300 ms of each 3 s cycle waits 200 ms: the
  // issue's "one second in ten", scaled so that a 6 s run holds exactly two stall windows.
  const served = stallingServer({ answerMs: 5, stallMs: 200, cycleMs: 3_000, stallShare: 0.1 });
  let url: string;
  beforeAll(async () => {
    url = `${await listen(served.server)}/object.bin`;
  });
  afterAll(() => close(served.server));

  it('reports the p99 from the intended start that a closed loop hides; the server log agrees', async () => {
    const steady = { durationMs: 6_000, intervalMs: 1_000 };
    const [closed] = (await runDownload(configFor(url, { steady }))).results as [MeasuredRun];
    expect(runFailed(closed), closed.verification).toBe(false);
    expect(closed.failedRequests).toBe(0);
    const closedRate = closed.requests / (steady.durationMs / 1000);
    const closedP99 = p99Ms(closed.histograms.total);

    served.log.length = 0;
    const rate = Math.round(closedRate);
    const [open] = (
      await runDownload(
        configFor(url, {
          steady,
          maxSockets: 64,
          openLoop: { ratePerSecond: rate, arrival: 'uniform', maxInFlight: 64 },
        }),
      )
    ).results as [MeasuredRun];
    expect(runFailed(open), open.verification).toBe(false);
    expect(open.failedRequests).toBe(0);
    const summary = openLoopSummary([open])!;
    expect(summary.skippedSends).toBe(0);
    expect(summary.offeredPerSecond).toBeGreaterThan(rate * 0.95);
    expect(summary.offeredPerSecond).toBeLessThan(rate * 1.05);
    const openP99 = summary.fromIntendedMs!.p99;

    // What a client sending on the schedule would have waited, from the server's own log: the k-th
    // intended start is the release plus k gaps (one worker, uniform, no send skipped); the k-th
    // request to arrive is that send (sends go in order); it was answered when the server logged.
    // So the wait is the k-th answer time minus the k-th intended start: the client's own lateness,
    // the way there and the server's hold, all of it on the server's clock but the schedule.
    const releaseEpochMs = open.steady!.releaseEpochMs;
    const arrived = [...served.log].sort((a, b) => a.arrivedMs - b.arrivedMs);
    expect(arrived.length).toBe(summary.sent);
    const waits = arrived.map((l, k) => l.answeredMs - (releaseEpochMs + (k * 1000) / rate));
    const serverP99 = percentileOf(waits, 99);
    expect(serverP99).toBeGreaterThan(150);
    expect(Math.abs(openP99 - serverP99) / serverP99).toBeLessThan(0.1);
    // The server's hold alone (arrival to answer) is no more than what the schedule met.
    expect(
      percentileOf(
        arrived.map((l) => l.answeredMs - l.arrivedMs),
        99,
      ),
    ).toBeLessThanOrEqual(openP99);
    // The closed loop sent few requests into the stalls (its one lane waits them out): its p99 stays
    // well under what the same rate on a schedule meets.
    expect(closedP99).toBeLessThan(openP99 * 0.6);
    // The queue shows between the two: timed from the send, the same requests are no slower.
    expect(summary.fromSendMs!.p99).toBeLessThanOrEqual(openP99);
  }, 30_000);
});

describe('skipped sends', () => {
  // Everything held 1.5 s: after the first sends fill --max-in-flight, every slot is skipped.
  const served = stallingServer({ answerMs: 1_500, stallMs: 1_500, cycleMs: 1_000, stallShare: 1 });
  let url: string;
  beforeAll(async () => {
    url = `${await listen(served.server)}/object.bin`;
  });
  afterAll(() => close(served.server));

  it('counts a slot that finds --max-in-flight (split over processes) reached as skipped', async () => {
    const [run] = (
      await runDownload(
        configFor(url, {
          processes: 2,
          maxSockets: 4,
          steady: { durationMs: 1_000, intervalMs: 500 },
          openLoop: { ratePerSecond: 100, arrival: 'uniform', maxInFlight: 4 },
        }),
      )
    ).results as [MeasuredRun];
    const o = run.openLoop!;
    // Two processes, 2 in flight each: 4 sends went, the rest of the second's slots were skipped.
    expect(o.sent).toBe(4);
    // Every slot meant for the second is offered, however late the event loop reaches it.
    expect(o.offered).toBe(100);
    expect(o.skipped).toBe(o.offered - o.sent);
    expect(run.requests).toBe(4);
    const summary = openLoopSummary([run])!;
    expect(summary.skippedShare).toBeGreaterThan(0.9);
    expect(summary.achievedPerSecond).toBeLessThan(5);
  }, 20_000);

  it('sends every item of a fixed run once (a skipped slot takes none); every format shows it', async () => {
    const short = stallingServer({ answerMs: 100, stallMs: 100, cycleMs: 1_000, stallShare: 1 });
    const at = `${await listen(short.server)}/object.bin`;
    try {
      const [run] = (
        await runDownload(
          configFor(at, {
            maxSockets: 4,
            openLoop: { ratePerSecond: 200, arrival: 'poisson', maxInFlight: 4 },
          }),
        )
      ).results as [MeasuredRun];
      expect(runFailed(run), run.verification).toBe(false);
      expect(run.failedRequests).toBe(0);
      const o = run.openLoop!;
      expect(o.sent).toBe(RANGES);
      expect(run.requests).toBe(RANGES);
      expect(o.skipped).toBeGreaterThan(0);
      expect(o.offered).toBe(o.sent + o.skipped);

      // The results file keeps the open loop and reading it back checks it; every format shows it.
      const doc = newResultsFile('download', redactedConfig(configFor(at)), { kind: 'url', label: 'test' });
      doc.runs = [toRunRecord(run)];
      doc.complete = true;
      const back = parseResultsDoc(JSON.parse(JSON.stringify(doc)));
      expect('doc' in back && back.doc.runs[0]!.openLoop?.skipped).toBe(o.skipped);
      const damaged = JSON.parse(JSON.stringify(doc));
      damaged.runs[0].openLoop.skipped = o.offered + 1;
      const problem = 'run 1 has a bad openLoop; it is damaged, re-run the benchmark';
      expect(parseResultsDoc(damaged)).toEqual({ problem });
      const report = buildReport(doc, { title: 'open loop' });
      const shown = report.contenders[0]!.openLoop!;
      expect(shown.skippedSends).toBe(o.skipped);
      expect(shown.fromIntendedMs!.p99).toBeGreaterThanOrEqual(shown.fromSendMs!.p99);
      for (const format of ['console', 'md', 'html'] as const) {
        const text = await renderReport(report, format);
        expect(text, format).toContain(`${o.skipped} skipped send(s)`);
        expect(text, format).toContain('latency from the intended start, ms: p50');
        expect(text, format).toContain('latency from the actual send, ms: p50');
      }
      const [head, row] = (await renderReport(report, 'csv')).split('\n').map((l) => l.split(','));
      expect(row![head!.indexOf('skipped_sends')]).toBe(String(o.skipped));
      expect(Number(row![head!.indexOf('intended_p99_ms')])).toBe(shown.fromIntendedMs!.p99);
      const json = JSON.parse(await renderReport(report, 'json'));
      expect(json.contenders[0].openLoop.skippedSends).toBe(o.skipped);
    } finally {
      await close(short.server);
    }
  }, 20_000);
});

describe('a --rate sweep against --slo', () => {
  it("finds the knee one sweep step below the emulated target's request limit", async () => {
    // 300 requests a second, then 503 ServerBusy: 200/s keeps the SLO, 400/s fails a quarter of its
    // sends. The bound and the in-flight cap are loose: this machine's load is not what is measured.
    const objects = new Map([['/k.bin', deterministicBuffer(1024)]]);
    const target = await startEmulatedTarget({ opsPerSecond: 300, objects });
    const dir = await mkdtemp(join(tmpdir(), 'blob-cacher-knee-'));
    try {
      const run = startCli(
        [
          'sweep',
          'download',
          '--url',
          `${target.url}/k.bin`,
          '--source-method',
          'single',
          '--rate',
          '100,200,400,800',
          '--duration',
          '2s',
          '--max-retries',
          '0',
          '--slo',
          'p99<500ms',
          '--max-in-flight',
          '200',
          '--format',
          'json',
          '--results',
          join(dir, 'r.json'),
        ],
        { cwd: dir, limitMs: 60_000 },
      );
      const out = await run.exited;
      // The cells past the limit met 503s: their runs failed, so the sweep exits 1 after its report.
      expect(out.code, out.stderr).toBe(1);
      const report = JSON.parse(out.stdout) as Report;
      const [curve] = report.rateCurves!;
      const kept = curve!.points.map((p) => [p.ratePerSecond, p.keeps]);
      expect(kept).toEqual([
        [100, true],
        [200, true],
        [400, false],
        [800, false],
      ]);
      expect(curve!.kneePerSecond).toBe(200);
    } finally {
      await target.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 60_000);
});

describe('--rate over scale-out clients', () => {
  const CS =
    `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=` +
    `${Buffer.from('k').toString('base64')};BlobEndpoint=http://127.0.0.1:1/devstoreaccount1`;
  const env = { STORAGE_CONNECTION_STRING: CS, BLOB_CACHER_PARALLELISM: '3', BLOB_CACHER_RUN_ID: 'uid-1' };
  const load = (argv: string[], index: string) => {
    const flags = parseFlags(buildProgram('download', DOWNLOAD_OPTIONS, 'test'), argv)!;
    return loadDownloadConfig(flags, { env: { ...env, BLOB_CACHER_INDEX: index } });
  };

  it('gives each of K clients a Kth of --rate and --max-in-flight, and its place among them', () => {
    const argv = ['--rate', '900/s', '--max-in-flight', '10'];
    expect(load(argv, '1').openLoop).toEqual({
      ratePerSecond: 300,
      arrival: 'uniform',
      maxInFlight: 4,
      client: { index: 1, count: 3 },
    });
    expect(load(['--rate', '900/s'], '2').openLoop).toEqual({
      ratePerSecond: 300,
      arrival: 'uniform',
      client: { index: 2, count: 3 },
    });
    expect(clientShare({ ratePerSecond: 900, arrival: 'poisson' }, { index: 0, count: 1 })).toEqual({
      ratePerSecond: 900,
      arrival: 'poisson',
    });
  });

  it("interleaves every client's workers into one grid at the whole rate; each draws its own", () => {
    // Two clients of two workers each, 50/s per client: together a 10 ms grid.
    const grid = [0, 1]
      .flatMap((c) =>
        [0, 1].flatMap((w) => {
          const s = new Schedule(0, 50, 'uniform', w, 2, { index: c, count: 2 });
          return Array.from({ length: 5 }, () => s.take());
        }),
      )
      .sort((a, b) => a - b);
    expect(grid).toEqual(Array.from({ length: 20 }, (_, i) => i * 10));
    const draws = (c: number) => {
      const s = new Schedule(0, 50, 'poisson', 0, 2, { index: c, count: 2 });
      return Array.from({ length: 10 }, () => s.take());
    };
    expect(draws(1)).not.toEqual(draws(0));
  });

  it('two clients of two processes each offer the rate asked for between them, not twice it', async () => {
    const served = stallingServer({ answerMs: 2, stallMs: 2, cycleMs: 1_000, stallShare: 0 });
    const url = `${await listen(served.server)}/object.bin`;
    try {
      const whole = { ratePerSecond: 200, arrival: 'uniform' as const, maxInFlight: 8 };
      const steady = { durationMs: 1_000, intervalMs: 500 };
      const runs = await Promise.all(
        [0, 1].map(async (index) => {
          const openLoop = clientShare(whole, { index, count: 2 });
          const config = configFor(url, { processes: 2, maxSockets: 2, steady, openLoop });
          return (await runDownload(config)).results[0] as MeasuredRun;
        }),
      );
      // Each process of each client: 50 slots in the second.
      for (const run of runs) expect(run.openLoop!.offered).toBe(100);
      expect(runs.reduce((a, r) => a + r.openLoop!.offered, 0)).toBe(whole.ratePerSecond);
      expect(served.log.length).toBe(runs.reduce((a, r) => a + r.openLoop!.sent, 0));
    } finally {
      await close(served.server);
    }
  }, 20_000);
});

describe('an open loop after its own event loop stalls', () => {
  it('sends the slots due during the stall as lanes free, not skipped for its own lateness', async () => {
    const LANES = 4;
    const ITEMS = 60;
    const STALL_MS = 40;
    const echo = await echoLanes(LANES);
    const meter = new OpenLoopMeter();
    // 1000/s: the 40 ms the 10th send holds the event loop cover 40 slots, while each answer takes well
    // under a slot's 1 ms: at no intended start were the 4 lanes full of earlier sends.
    const schedule = new Schedule(performance.now() + 5, 1000, 'uniform', 0, 1);
    try {
      const sent = await runOpenLoop<OpRecord>(
        ITEMS,
        LANES,
        new FixedShape(ITEMS),
        schedule,
        meter,
        new AbortController().signal,
        (n, lane, _intendedMs, done) => {
          if (n === 9) {
            const until = performance.now() + STALL_MS;
            while (performance.now() < until);
          }
          echo.send(lane, done);
        },
        () => {},
      );
      expect(sent).toBe(ITEMS);
      expect(meter.skipped).toBe(0);
      expect(meter.offered).toBe(ITEMS);
      // The stall shows where it belongs: in this client's own lateness.
      const late = sumEncoded([meter.result(performance.timeOrigin).lateness])!;
      expect(late.maxValue / 1000).toBeGreaterThan(STALL_MS / 2);
    } finally {
      await echo.close();
    }
  }, 20_000);
});
