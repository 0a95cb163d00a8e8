// When a contender past its first runs stops. --min-time as hyperfine's, a cap
// (--max-runs) and a precision target (the median's 95% interval within +-2%); --runs stays exact
// and the rule's options beside it are refused. The rule in-process, then through the built CLI.
import { readFile } from 'node:fs/promises';
import type http from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { medianWithin } from '../src/analysis/significance.js';
import { medianIntervalSignTestNormal } from '../src/analysis/stats.js';
import { loadDownloadConfig } from '../src/config/load.js';
import { DEFAULT_MAX_RUNS } from '../src/config/options.js';
import { RunsUntilTime } from '../src/engine/until-time.js';
import { runCli } from './helpers/cli.js';
import { close, deterministicBuffer, listen, objectServer } from './helpers/http-servers.js';
import { freshDirs } from './helpers/temp-dirs.js';

const fresh = freshDirs('stopping-rule-');
const load = (argv: Record<string, unknown>, env: Record<string, string> = {}) =>
  loadDownloadConfig(argv, { env });

describe("the median's interval from order statistics", () => {
  it('takes the binomial ranks n/2 -+ 1.96 sqrt(n)/2, and has none below 6 values', () => {
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    // n = 100: ranks 40 and 61 (1-based), as the tables give.
    expect(medianIntervalSignTestNormal(sorted)).toEqual({ low: 40, high: 61 });
    expect(medianIntervalSignTestNormal([1, 2, 3, 4, 5])).toBeUndefined();
    expect(medianIntervalSignTestNormal([1, 2, 3, 4, 5, 6])).toEqual({ low: 1, high: 6 });
  });

  it('is within +-2% for tight values and not for spread ones, in any order', () => {
    const tight = Array.from({ length: 30 }, (_, i) => 100 + ((i * 7) % 11) * 0.1);
    expect(medianWithin(tight.reverse(), 0.02)).toBe(true);
    const spread = Array.from({ length: 30 }, (_, i) => 50 + ((i * 7) % 30) * 5);
    expect(medianWithin(spread, 0.02)).toBe(false);
    expect(medianWithin(tight.slice(0, 5), 0.02)).toBe(false);
  });
});

describe('RunsUntilTime', () => {
  it('wants runs until --min-time, or until the median is precise; a failed contender wants none', () => {
    const rule = new RunsUntilTime(['a', 'b', 'c'], { minTimeMs: 1_000, maxRuns: 100, precision: 0.02 });
    for (let i = 0; i < 10; i++) {
      rule.add('a', 10);
      rule.add('b', 10 + (i % 2) * 10);
    }
    rule.add('c', 10);
    rule.done('c');
    expect([rule.wantsMore('a'), rule.reason('a')]).toEqual([false, 'precision']);
    expect([rule.wantsMore('b'), rule.reason('b')]).toEqual([true, 'max-runs']);
    expect([rule.wantsMore('c'), rule.reason('c')]).toEqual([false, 'failed']);
    rule.add('b', 1_000);
    expect([rule.wantsMore('b'), rule.reason('b')]).toEqual([false, 'min-time']);
    const off = new RunsUntilTime(['a'], { minTimeMs: 1_000, maxRuns: 100, precision: 0 });
    for (let i = 0; i < 10; i++) off.add('a', 10);
    expect(off.wantsMore('a')).toBe(true);
  });
});

describe('--max-runs and --precision', () => {
  it('default to 100 runs and +-2% beside --min-time; off turns the target off', () => {
    expect(DEFAULT_MAX_RUNS).toBe(100);
    expect(load({})).toMatchObject({ runs: 5, minTimeMs: 3_000, maxRuns: 100, precision: 0.02 });
    expect(load({ maxRuns: '40', precision: '5%' })).toMatchObject({ maxRuns: 40, precision: 0.05 });
    expect(load({}, { BLOB_CACHER_MAX_RUNS: '12', BLOB_CACHER_PRECISION: 'off' })).toMatchObject({
      maxRuns: 12,
      precision: 0,
    });
  });

  it('are refused beside an exact --runs, below the first 5 runs, and with --duration', () => {
    expect(() => load({ runs: '3', maxRuns: '10' })).toThrow(
      /--runs 3 is exactly 3 run\(s\) and --max-runs .*give one of them/,
    );
    expect(() => load({ runs: '3', precision: '1%' })).toThrow(/--precision .*give one of them/);
    expect(() => load({ maxRuns: '3' })).toThrow(/--max-runs 3 is below the 5 runs .*give --runs 3/);
    expect(() => load({ duration: '10s', maxRuns: '10' })).toThrow(/a --duration run has none/);
    expect(() => load({ precision: 'tight' })).toThrow(/percentage/);
  });
});

describe('a session under the rule, through the CLI', () => {
  let server: http.Server;
  let url: string;
  beforeAll(async () => {
    server = objectServer(deterministicBuffer(16 * 1024), true).server;
    url = `${await listen(server)}/blob.bin`;
  });
  afterAll(() => close(server));

  const measured = async (cwd: string) => {
    const doc = JSON.parse(await readFile(join(cwd, 'r.json'), 'utf8')) as {
      runs: { warmup: boolean; strategy: string }[];
    };
    return doc.runs.filter((r) => !r.warmup).length;
  };

  it('--max-runs caps what a long --min-time asks for', async () => {
    const cwd = await fresh();
    const run = await runCli(
      [
        'download',
        '--url',
        url,
        '--source-method',
        'single',
        '--min-time',
        '1h',
        '--max-runs',
        '7',
        '--precision',
        'off',
        '--warmup',
        '0',
        '--results',
        'r.json',
        '--log-level',
        'error',
      ],
      { cwd, limitMs: 60_000, env: { BLOB_CACHER_RUNS: '' } },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(await measured(cwd)).toBe(7);
  });

  it('a loose precision target ends a long --min-time before the cap', async () => {
    const cwd = await fresh();
    const run = await runCli(
      [
        'download',
        '--url',
        url,
        '--source-method',
        'single',
        '--min-time',
        '1h',
        '--max-runs',
        '80',
        '--precision',
        '50%',
        '--warmup',
        '0',
        '--results',
        'r.json',
        '--log-level',
        'error',
      ],
      { cwd, limitMs: 60_000, env: { BLOB_CACHER_RUNS: '' } },
    );
    expect(run.code, run.stderr).toBe(0);
    const n = await measured(cwd);
    expect(n).toBeGreaterThanOrEqual(6);
    expect(n).toBeLessThan(80);
  });
});
