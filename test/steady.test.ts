// Steady state (--duration): each run repeats its requests for a time and is counted per interval.
// Real runs on the embedded Azurite and on a throttling test server: the series adds up to what was
// counted, every byte of the last lap is verified, the rate over the active window ranks, --autoterm
// ends a stable run early, throttling onset is found, and the HTML chart draws it in Chromium.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../src/analysis/analyze.js';
import { buildReport } from '../src/analysis/report-model.js';
import { steadyFigures, THROTTLE_DROP } from '../src/analysis/steady.js';
import { ConfigError } from '../src/vocabulary/errors.js';
import { loadDownloadConfig, redactedConfig, type DownloadConfig } from '../src/config/load.js';
import { runDownload } from '../src/engine/download.js';
import { runUpload } from '../src/engine/upload.js';
import { renderHtml } from '../src/report/html.js';
import { sparkline, steadyLines } from '../src/report/steady.js';
import { newResultsFile } from '../src/results/file.js';
import { toRunRecord, type MeasuredRun } from '../src/results/record.js';
import type { RunRecord, SteadyRecord } from '../src/results/schema.js';
import { parseResultsDoc } from '../src/results/validate.js';
import { isStable } from '../src/workers/timers.js';
import { SteadyMeter } from '../src/workers/steady.js';
import type { OpRecord } from '../src/metrics/records.js';
import { startEmulatedTarget } from '../src/emulate/server.js';
import { contentBuffer, FIXTURE_SEED } from '../src/payload/content.js';
import { azuriteForFile, blobNames, containerOf, keyCredentialsOf } from './helpers/azurite.js';
import { ONE_RUN } from './helpers/cli-env.js';
import { deterministicBuffer, startFaultServer } from './helpers/fault-servers.js';
import { CHROMIUM_PATH, requires } from './helpers/requires.js';
import { testConfig, type TestSettings } from './helpers/config.js';

const MiB = 1024 * 1024;
const azurite = azuriteForFile();
const keyCredentials = () => keyCredentialsOf(azurite());

function download(overrides: TestSettings<DownloadConfig> = {}): DownloadConfig {
  return testConfig('download', {
    logLevel: 'error',
    sourceMethod: 'chunked',
    concurrency: 4,
    fileSizeBytes: MiB,
    processes: 1,
    maxSockets: 4,
    sink: 'memory',
    bufferSizeBytes: 65536,
    container: 'steady',
    cleanup: false,
    credentials: keyCredentials(),
    runs: 1,
    warmup: 0,
    format: 'console',
    maxRetries: 3,
    timeoutMs: 10_000,
    trace: true,
    httpClient: 'raw',
    steady: { durationMs: 1_500, intervalMs: 250 },
    ...overrides,
  });
}

const sum = (xs: readonly number[]) => xs.reduce((a, b) => a + b, 0);

/** The console's steady block for these runs, from the report model the console renders. */
function steadyText(runs: RunRecord[]): string {
  const target = { kind: 'embedded-azurite', label: 'embedded Azurite' } as const;
  const doc = newResultsFile('download', redactedConfig(download({})), target);
  doc.runs = runs;
  const r = buildReport(doc, { title: 'steady' });
  return steadyLines(r.contenders, r.tables.steady).join('\n');
}
const steadyOf = (r: MeasuredRun): SteadyRecord => {
  expect(r.steady, `${r.strategy} is a steady run`).toBeDefined();
  return r.steady!;
};

describe('--duration options', () => {
  const load = (argv: Record<string, unknown>, env: Record<string, string> = {}) =>
    loadDownloadConfig(argv, { env });

  it(
    'defaults to one run and no warm-up, with 1 s intervals, and asks for one way ' + 'of saying how long',
    () => {
      const c = load({ duration: '30s' });
      expect(c.steady).toEqual({ durationMs: 30_000, intervalMs: 1_000 });
      expect([c.runs, c.warmup, c.minTimeMs]).toEqual([1, 0, 0]);
      expect(load({ duration: '30s', runs: '3', warmup: '1' })).toMatchObject({ runs: 3, warmup: 1 });
      const env = {
        BLOB_CACHER_DURATION: '20s',
        BLOB_CACHER_AUTOTERM: 'true',
        BLOB_CACHER_AUTOTERM_TOLERANCE: '5%',
      };
      expect(load({}, env).steady).toEqual({
        durationMs: 20_000,
        intervalMs: 1_000,
        autoterm: { windowMs: 10_000, tolerance: 0.05 },
      });
      expect(load({}).steady).toBeUndefined();
    },
  );

  it('refuses what cannot work, in one line that names the fix', () => {
    expect(() => load({ autoterm: 'true' })).toThrow(/--autoterm .*give --duration too/);
    expect(() => load({ duration: '10s', minTime: '5s' })).toThrow(/--min-time and --duration .*give one/);
    expect(() => load({ duration: '1s', interval: '600ms' })).toThrow(/fewer than 2 intervals/);
    expect(() => load({ duration: '10s', autoterm: 'true', autotermWindow: '1s' })).toThrow(
      /--autoterm-window must hold at least 2 intervals/,
    );
    expect(() => load({ duration: '10s', autotermTolerance: '0' })).toThrow(ConfigError);
    // A window the run cannot outlast could never end it early.
    expect(() => load({ duration: '10s', autoterm: 'true' })).toThrow(
      /--autoterm-window 10000 ms is not shorter than --duration 10000 ms/,
    );
    expect(() => load({ duration: '5s', autoterm: 'true', autotermWindow: '8s' })).toThrow(
      /give a shorter --autoterm-window/,
    );
    expect(() => load({ duration: '10s', autotermTolerance: 'lots' })).toThrow(/percentage/);
  });
});

describe('steady downloads on the embedded Azurite', () => {
  let runs: MeasuredRun[];
  let wallMs: number;

  beforeAll(async () => {
    const t0 = performance.now();
    runs = (await runDownload(download({ sourceMethod: 'all' }))).results;
    wallMs = performance.now() - t0;
  }, 120_000);

  it(
    'every contender ran for the duration, lap after lap, and its last lap is ' + 'verified byte for byte',
    () => {
      expect(runs.map((r) => r.strategy)).toEqual(['single', 'chunked', 'round-robin', 'assemble', 'sdk']);
      for (const r of runs) {
        const s = steadyOf(r);
        expect(r.verified, `${r.strategy}: ${r.verification}`).toBe(true);
        expect(r.failedRequests).toBe(0);
        expect(s.laps, r.strategy).toBeGreaterThanOrEqual(2);
        // Requests are issued until the deadline; the last ones end a little after it.
        expect(r.wallMs, r.strategy).toBeGreaterThan(s.durationMs - s.intervalMs);
        expect(r.wallMs, r.strategy).toBeLessThan(s.durationMs + 5_000);
        expect(r.requests, r.strategy).toBeGreaterThanOrEqual(s.laps * s.lapRequests);
        expect(r.bytes, r.strategy).toBeGreaterThanOrEqual(s.laps * MiB);
      }
      // Five contenders of 1.5 s each, plus setup: not five times the default runs.
      expect(wallMs).toBeLessThan(60_000);
    },
  );

  it('the series adds up to what was counted: requests, bytes and latency per interval', () => {
    for (const r of runs) {
      const s = steadyOf(r);
      expect(sum(s.series.map((p) => p.ops)), r.strategy).toBe(r.requests);
      expect(sum(s.series.map((p) => p.bytes)), r.strategy).toBe(r.bytes);
      expect(s.series.length, r.strategy).toBeGreaterThanOrEqual(Math.floor(s.durationMs / s.intervalMs));
      for (const p of s.series.filter((x) => x.ops > x.errors)) {
        expect(p.p50Ms!, r.strategy).toBeGreaterThan(0);
        expect(p.p99Ms!, r.strategy).toBeGreaterThanOrEqual(p.p50Ms!);
      }
      // The histograms hold every request of every lap, not just the last one per item.
      const stats = analyze([toRunRecord(r)])[0]!;
      expect(stats.latencyMs.total!.count, r.strategy).toBe(r.requests);
    }
  });

  it('ranks by the rate over the active window: the time is one pass at that rate', () => {
    for (const r of runs) {
      const rec = toRunRecord(r) as RunRecord & { steady: SteadyRecord };
      const f = steadyFigures(rec);
      expect(f.windowed, r.strategy).toBe(true);
      expect(f.activeStartMs).toBeGreaterThanOrEqual(
        Math.max(...rec.steady.workers.map((w) => w.firstStartMs)),
      );
      expect(f.activeEndMs).toBeLessThanOrEqual(
        Math.min(...rec.steady.workers.map((w) => w.stoppedMs)) + 1e-9,
      );
      const stats = analyze([rec])[0]!;
      const mibps = f.activeBytes / MiB / (f.activeMs / 1000);
      expect(stats.throughputMiBps.median).toBeCloseTo(mibps, 6);
      expect(f.lapTimeMs).toBeCloseTo((MiB / (mibps * MiB)) * 1000, 6);
      // Ranked by its intervals (n = intervals), each the time of one pass at that interval's rate.
      const iv = rec.steady.intervalMs;
      const inside = rec.steady.series
        .slice(f.activeStartMs / iv, f.activeEndMs / iv)
        .filter((p) => p.bytes > 0);
      expect(stats.samples).toEqual({ n: inside.length, of: 'intervals' });
      expect(stats.timesMs).toHaveLength(inside.length);
      inside.forEach((p, i) => expect(stats.timesMs[i]).toBeCloseTo((iv * rec.steady.lapBytes) / p.bytes, 6));
    }
    const lines = steadyText(runs.map(toRunRecord));
    expect(lines).toMatch(/steady state \(--duration 1\.50 s, one point every 250 ms/);
    for (const r of runs) expect(lines).toContain(`  ${r.strategy}: `);
  });

  it('the results file keeps the series, and reading it back checks it', () => {
    const doc = newResultsFile('download', redactedConfig(download({})), {
      kind: 'embedded-azurite',
      label: 'embedded Azurite',
    });
    doc.runs = runs.map(toRunRecord);
    doc.complete = true;
    const back = parseResultsDoc(JSON.parse(JSON.stringify(doc)));
    expect('doc' in back && back.doc.runs.map((r) => r.steady?.series.length)).toEqual(
      runs.map((r) => r.steady!.series.length),
    );
    const damaged = JSON.parse(JSON.stringify(doc));
    damaged.runs[1].steady.series[0].bytes = 'lots';
    expect(parseResultsDoc(damaged)).toEqual({
      problem: 'run 2 has a bad steady.series; it is damaged, re-run the benchmark',
    });
  });
});

describe('--autoterm', () => {
  it('pure: stable means every interval of the window within the tolerance of its mean', () => {
    expect(isStable([100, 105, 95], 3, 0.075)).toBe(true);
    expect(isStable([100, 120, 95], 3, 0.075)).toBe(false);
    expect(isStable([5, 100, 101], 2, 0.075)).toBe(true);
    expect(isStable([100, 101], 3, 0.075)).toBe(false);
    expect(isStable([0, 0, 0], 3, 0.075)).toBe(false);
  });

  it('ends a steady run once its rate is stable, long before the duration, and says when', async () => {
    const t0 = performance.now();
    const [r] = (
      await runDownload(
        download({
          sourceMethod: 'chunked',
          steady: { durationMs: 60_000, intervalMs: 250, autoterm: { windowMs: 750, tolerance: 0.6 } },
        }),
      )
    ).results;
    const elapsed = performance.now() - t0;
    const s = steadyOf(r!);
    expect(r!.verified, r!.verification).toBe(true);
    expect(s.autoterm, 'autoterm recorded').toBeDefined();
    expect(s.autoterm!.atMs).toBeGreaterThanOrEqual(750);
    expect(s.autoterm!.atMs).toBeLessThan(30_000);
    expect(r!.wallMs).toBeLessThan(s.autoterm!.atMs + 5_000);
    expect(elapsed).toBeLessThan(45_000);
    expect(steadyText([toRunRecord(r!)])).toMatch(
      /--autoterm ended a run at .* of 60 s: its rate had stayed within ±60% for 750 ms/,
    );
  }, 90_000);
  it('fires with an interval under a second: it compares whole intervals, not 250 ms ticks sampled at ' +
    'another pace', async () => {
    // Thousands of small GETs a second on a local emulated target: a rate as steady as a rate gets.
    const small = contentBuffer(FIXTURE_SEED, 0, 4096);
    const target = await startEmulatedTarget({ objects: new Map([['/small.bin', small]]) });
    try {
      const [r] = (
        await runDownload(
          download({
            sourceMethod: 'single',
            credentials: { kind: 'url', url: `${target.url}/small.bin` },
            fileSizeBytes: 0,
            processes: 2,
            steady: { durationMs: 20_000, intervalMs: 300, autoterm: { windowMs: 2_000, tolerance: 0.3 } },
          }),
        )
      ).results;
      const s = steadyOf(r!);
      expect(s.autoterm, 'autoterm recorded').toBeDefined();
      expect(s.autoterm!.atMs).toBeGreaterThanOrEqual(2_000);
      expect(s.autoterm!.atMs).toBeLessThan(15_000);
    } finally {
      await target.close();
    }
  }, 60_000);
});

describe('throttling onset', () => {
  it('is the first interval with 429/503 answers and a drop in rate, found on a server that starts ' +
    'throttling', async () => {
    const size = 256 * 1024;
    // Clean for 0.75 s from the first GET (the run's start, however long setup took on a busy
    // machine), then every other GET is refused with 503 and a Retry-After: the client backs off,
    // and the rate falls.
    let firstGet: number | undefined;
    const server = await startFaultServer(deterministicBuffer(size), (n) => {
      firstGet ??= performance.now();
      return performance.now() - firstGet > 750 && n % 2 === 0
        ? { kind: 'status', status: 503, code: 'ServerBusy', retryAfter: '1' }
        : undefined;
    });
    try {
      const [r] = (
        await runDownload(
          download({
            sourceMethod: 'single',
            credentials: { kind: 'url', url: server.url },
            fileSizeBytes: 0,
            maxRetries: 5,
            steady: { durationMs: 2_500, intervalMs: 250 },
          }),
        )
      ).results;
      const rec = toRunRecord(r!) as RunRecord & { steady: SteadyRecord };
      const f = steadyFigures(rec);
      expect(r!.throttled).toBeGreaterThan(0);
      expect(f.firstThrottledMs, 'throttled intervals').toBeDefined();
      expect(f.throttleOnsetMs, 'onset with a drop').toBeDefined();
      expect(f.throttleOnsetMs!).toBeGreaterThanOrEqual(f.firstThrottledMs!);
      const rates = rec.steady.series.map((p) => p.bytes);
      const onset = f.throttleOnsetMs! / rec.steady.intervalMs;
      expect(rates[onset]!).toBeLessThan(THROTTLE_DROP * Math.max(...rates.slice(0, onset)));
      expect(steadyText([rec])).toMatch(
        /throttled \(429\/503\) from .*; throughput dropped at .*: throttling onset/,
      );
    } finally {
      await server.stop();
    }
  }, 60_000);
});

describe('steady uploads', () => {
  it('small-files keep putting the same files for the duration; the last lap is ' +
    'read back and deleted', async () => {
    const config = testConfig('upload', {
      logLevel: 'error',
      uploadMethod: 'small-files',
      fileCount: 20,
      fileSizeBytes: 4096,
      blobSizeBytes: 0,
      blockSizeBytes: 4096,
      concurrency: 4,
      thresholdBytes: 0,
      processes: 2,
      maxSockets: 4,
      container: 'steady-up',
      keep: false,
      httpClient: 'raw',
      trace: true,
      maxRetries: 3,
      timeoutMs: 10_000,
      runs: 1,
      warmup: 0,
      format: 'console',
      credentials: keyCredentials(),
      steady: { durationMs: 1_500, intervalMs: 250 },
    });
    const [r] = (await runUpload(config)).results;
    const s = steadyOf(r!);
    expect(r!.verified, r!.verification).toBe(true);
    expect(s.laps).toBeGreaterThanOrEqual(2);
    expect(r!.requests).toBeGreaterThanOrEqual(s.laps * 20);
    expect(sum(s.series.map((p) => p.ops))).toBe(r!.requests);
    expect(s.workers).toHaveLength(2);
    expect(await blobNames(containerOf(azurite(), 'steady-up'))).toEqual([]);
  }, 60_000);
});

describe('the CLI without a terminal', () => {
  it('prints progress as time and the steady block, and writes the series', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'blob-cacher-steady-'));
    try {
      const out = spawnSync(
        process.execPath,
        [
          resolve('dist/download.js'),
          '--source-method',
          'chunked',
          '--file-size',
          '1MiB',
          '--duration',
          '2s',
          '--interval',
          '500ms',
          '--progress-interval',
          '500ms',
          '--details',
        ],
        {
          cwd: dir,
          encoding: 'utf8',
          timeout: 60_000,
          env: { PATH: process.env.PATH, ...ONE_RUN },
        },
      );
      expect(out.status, out.stderr).toBe(0);
      expect(out.stderr).toMatch(/progress: chunked run 1\/1: \d+ requests, \d\/2 s, [\d.]+ (MiB|ops)\/s/);
      expect(out.stdout).toMatch(/steady state \(--duration 2 s, one point every 500 ms/);
      expect(out.stdout).toMatch(/chunked: [\d.]+ MiB\/s, \d+ req\/s \(active /);
      expect(out.stdout).toMatch(/[▁▂▃▄▅▆▇█]{3,}/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 90_000);
});

describe("a request's bytes in the series", () => {
  const record = (over: Partial<OpRecord>): OpRecord => ({
    worker: 0,
    item: 0,
    offsetBytes: 0,
    bytes: 0,
    status: 200,
    startEpochMs: 0,
    totalMs: 0,
    phases: {},
    reused: true,
    retries: 0,
    throttled: 0,
    backoffMs: 0,
    ...over,
  });

  it('are spread over the intervals its body took, not all counted in the one it finished', () => {
    const meter = new SteadyMeter(1_000, 1_000);
    // Sent at 1.0 s after the epoch, first byte at 1.5 s, body until 4.5 s: 3 s of body over 4 intervals.
    const phases = { send: 0.1, firstByte: 499.9, download: 3_000 };
    meter.add(record({ bytes: 30 * MiB, startEpochMs: 2_000, totalMs: 3_500, phases }));
    const series = meter.result(1, 6_000).intervals;
    expect(series.map((c) => c.bytes)).toEqual([0, 5 * MiB, 10 * MiB, 10 * MiB, 5 * MiB]);
    expect(series.map((c) => c.ops)).toEqual([0, 0, 0, 0, 1]);
    expect(sum(series.map((c) => c.bytes))).toBe(30 * MiB);
  });

  it("an upload's bytes go over its send phase, a short request's all in one interval", () => {
    const meter = new SteadyMeter(0, 1_000);
    meter.add(
      record({ bytes: 4 * MiB, startEpochMs: 500, totalMs: 1_010, phases: { send: 1_000, firstByte: 10 } }),
    );
    meter.add(
      record({ bytes: 1_000, startEpochMs: 2_100, totalMs: 50, phases: { firstByte: 20, download: 30 } }),
    );
    const series = meter.result(1, 3_000).intervals;
    expect(series.map((c) => c.bytes)).toEqual([2 * MiB, 2 * MiB, 1_000]);
    expect(series.map((c) => c.ops)).toEqual([0, 1, 1]);
  });
});

describe('sparkline', () => {
  it('scales from nothing to the largest value', () => {
    expect(sparkline([0, 50, 100], 100)).toBe('▁▅█');
    expect(sparkline([0, 0], 0)).toBe('▁▁');
  });
});

requires('chromium').describe('the series chart in headless Chromium', () => {
  it('draws one line per contender with a point per interval and the active window, and leaves a ' +
    'screenshot', async () => {
    const runs = (
      await runDownload(download({ sourceMethod: 'all', steady: { durationMs: 1_500, intervalMs: 250 } }))
    ).results;
    const doc = newResultsFile('download', redactedConfig(download({})), {
      kind: 'embedded-azurite',
      label: 'embedded Azurite',
    });
    doc.runs = runs.map(toRunRecord);
    doc.complete = true;
    const stats = analyze(doc.runs);
    const html = renderHtml({ report: buildReport(doc, { title: 'steady state on embedded Azurite' }) });
    const dir = await mkdtemp(join(tmpdir(), 'blob-cacher-steady-html-'));
    const browser = await chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run'],
    });
    try {
      const file = join(dir, 'steady.html');
      await writeFile(file, html);
      const page = await browser.newPage({ viewport: { width: 1120, height: 900 } });
      const errors: string[] = [];
      page.on('pageerror', (err) => errors.push(err.message));
      await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
      expect(errors).toEqual([]);
      const charts = page.locator('svg[data-chart="series"]');
      await expect(charts.count()).resolves.toBe(stats.length);
      for (const s of stats) {
        const svg = page.locator(`svg[data-chart="series"][data-strategy="${s.label}"]`);
        const box = await svg.boundingBox();
        expect(box!.width).toBeGreaterThan(500);
        const points = await svg
          .locator('.datum')
          .evaluateAll((els) =>
            els.map((el) => ({ v: Number(el.getAttribute('data-value')), r: el.getBoundingClientRect() })),
          );
        expect(points.length, s.label).toBe(s.steady!.series.length);
        for (const p of points) expect(p.r.width, s.label).toBeGreaterThan(0);
        expect(Math.max(...points.map((p) => p.v)), s.label).toBeGreaterThan(0);
        const band = await svg.locator('rect.active').boundingBox();
        expect(band!.width, `${s.label} active window`).toBeGreaterThan(0);
      }
      await mkdir(resolve('test-output'), { recursive: true });
      await page.screenshot({ path: resolve('test-output/steady-report.png'), fullPage: true });
    } finally {
      await browser.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
