// `tune --slo`: the search over --rate for the highest offered rate that keeps an SLO. On a model
// (a rate keeps it up to a known limit) the search brackets and bisects to within its tolerance in
// few steps, whatever it starts from; on the emulated target with an ops/s limit (503 past it), the
// CLI finds the rate within one bisection tolerance below the limit and reports the rates it tried.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Report } from '../src/analysis/report-model.js';
import { ConfigError } from '../src/vocabulary/errors.js';
import { parseRateSearch } from '../src/config/rate-range.js';
import { RATE_TOLERANCE } from '../src/cli/tune-rate.js';
import { startEmulatedTarget } from '../src/emulate/server.js';
import { rateSearch, type RateSearchOptions } from '../src/tune/rate-search.js';
import { startCli } from './helpers/cli.js';
import { deterministicBuffer } from './helpers/http-servers.js';

const model =
  (limit: number): RateSearchOptions['measure'] =>
  async (rate) => ({
    keeps: rate <= limit,
    spentMs: 1_000,
  });
const search = (from: RateSearchOptions['from'], limit: number, more: Partial<RateSearchOptions> = {}) =>
  rateSearch({
    from,
    tolerance: 1.1,
    maxSteps: 16,
    budgetMs: 60_000,
    floorPerSecond: 0.01,
    ceilingPerSecond: 1_000_000,
    measure: model(limit),
    ...more,
  });

describe('the rate search on a model', () => {
  for (const [name, from, limit] of [
    ['a start below the limit', { start: 100 }, 730],
    ['a start above it', { start: 5_000 }, 730],
    ['a range around it', { low: 10, high: 2_000 }, 730],
    ['a start just under it', { start: 29 }, 30],
  ] as const) {
    it(`${name}: the answer is kept, within the tolerance of the first rate not kept`, async () => {
      const o = await search(from, limit);
      expect(o.stopped).toBe('converged');
      expect(o.answerPerSecond).toBeLessThanOrEqual(limit);
      expect(o.answerPerSecond! * 1.1).toBeGreaterThanOrEqual(limit);
      expect(o.abovePerSecond! / o.answerPerSecond!).toBeLessThanOrEqual(1.1);
      expect(o.tried.length).toBeLessThanOrEqual(12);
      // Every rate tried is measured once.
      expect(new Set(o.tried.map((t) => t.ratePerSecond)).size).toBe(o.tried.length);
    });
  }

  it('says so when no rate keeps it, or every rate of the range does', async () => {
    expect(await search({ low: 100, high: 200 }, 50)).toMatchObject({ stopped: 'none-keeps', tried: [{}] });
    const all = await search({ low: 100, high: 200 }, 500);
    expect(all).toMatchObject({ stopped: 'all-keep', answerPerSecond: 200 });
    expect((await search({ start: 1 }, 0.001)).stopped).toBe('none-keeps');
  });

  it('stops at its step limit, its budget and a stop, with the best answer so far', async () => {
    const steps = await search({ start: 100 }, 730, { maxSteps: 3 });
    expect(steps).toMatchObject({ stopped: 'steps', answerPerSecond: 400 });
    expect(steps.tried).toHaveLength(3);
    const budget = await search({ start: 100 }, 730, { budgetMs: 2_000 });
    expect(budget).toMatchObject({ stopped: 'budget', answerPerSecond: 200 });
    const stop = new AbortController();
    stop.abort();
    expect(await search({ start: 100 }, 730, { signal: stop.signal })).toMatchObject({
      stopped: 'signal',
      tried: [],
    });
  });

  it('reads --rate as a start or a range, and refuses anything else in one line', () => {
    expect(parseRateSearch('100/s')).toEqual({ start: 100 });
    expect(parseRateSearch('50..2000/s')).toEqual({ low: 50, high: 2000 });
    expect(parseRateSearch('50/s..2000')).toEqual({ low: 50, high: 2000 });
    for (const bad of ['2000..50', 'fast', '0..10', undefined]) {
      expect(() => parseRateSearch(bad)).toThrow(ConfigError);
    }
  });
});

describe('tune --slo against the emulated target', () => {
  it('finds the highest rate keeping the SLO within one bisection tolerance of the ops limit', async () => {
    // 300 requests a second, then 503 ServerBusy (with --max-retries 0, a failed request): a rate
    // above it fails more than 1% of its sends. The latency bound is loose: the machine's load is not
    // what is measured.
    const LIMIT = 300;
    const objects = new Map([['/k.bin', deterministicBuffer(1024)]]);
    // Held over 2 s, not Azure's 1 s: a send this loaded machine made late (a stall, then the slots
    // it held sent together) does not push a rate under the limit past it within the window. Each
    // run is longer than the window, so a rate over the limit meets it; each rate's warm-up run (the
    // default) takes what the rate before it left in the window.
    const target = await startEmulatedTarget({ opsPerSecond: LIMIT, opsWindowMs: 2_000, objects });
    const dir = await mkdtemp(join(tmpdir(), 'blob-cacher-tune-rate-'));
    try {
      const run = startCli(
        [
          'tune',
          'download',
          '--url',
          `${target.url}/k.bin`,
          '--source-method',
          'single',
          '--rate',
          '100/s',
          '--slo',
          'p99<500ms',
          '--duration',
          '3s',
          '--max-retries',
          '0',
          '--max-in-flight',
          '200',
          '--budget',
          '1m',
          '--format',
          'json',
          '--results',
          join(dir, 'r.json'),
        ],
        { cwd: dir, limitMs: 150_000 },
      );
      const out = await run.exited;
      // The rates past the limit met 503s: where a run counts as failed for them, it exits 1 after its
      // report, as a sweep does.
      expect([0, 1], out.stderr).toContain(out.code);
      const report = JSON.parse(out.stdout) as Report;
      const [curve] = report.rateCurves!;
      const rates = curve!.points.map((p) => p.ratePerSecond);
      // Doubled from 100 until 400 failed, then bisected: every rate tried is on the curve.
      expect(rates.slice(0, 2)).toEqual([100, 200]);
      expect(rates).toContain(400);
      expect(rates.length).toBeLessThanOrEqual(8);
      const knee = curve!.kneePerSecond!;
      const kept = curve!.points.map((p) => `${p.ratePerSecond}/s ${p.keeps} ${p.achievedPerSecond}`);
      expect(knee, kept.join(', ')).toBeLessThanOrEqual(LIMIT);
      expect(knee * RATE_TOLERANCE, kept.join(', ')).toBeGreaterThanOrEqual(LIMIT);
      expect(out.stderr).toContain(`the highest rate that keeps p99<500ms is ${knee}/s`);
    } finally {
      await target.close();
      await rm(dir, { recursive: true, force: true });
    }
  }, 150_000);
});
