// The statistics behind verdicts: the rank test against values computed by hand, intervals that
// are reproducible, ranks that tie when the data cannot tell, and the verdict in words.
import { describe, expect, it } from 'vitest';
import {
  coefficientOfVariation,
  mannWhitney,
  outliers,
  ratioInterval,
  runsToTell,
} from '../src/analysis/significance.js';
import { medianIntervalBootstrap } from '../src/analysis/stats.js';
import { rankLabel, rankStats, verdictLines } from '../src/analysis/verdict.js';
import { warnings } from '../src/analysis/warnings.js';
import type { ContenderStats } from '../src/analysis/analyze.js';
import { spread } from '../src/analysis/stats.js';
import { buildGrid, sdkAdvice } from '../src/analysis/sweep.js';

describe('Mann-Whitney U', () => {
  it('exact p for two separated samples of 5: 2 / C(10,5) = 2/252', () => {
    const t = mannWhitney([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]);
    expect(t.u).toBe(0);
    expect(t.p).toBeCloseTo(2 / 252, 10);
  });

  it('exact p for 3 vs 3 cannot go below 0.1: three runs never decide', () => {
    expect(mannWhitney([1, 2, 3], [4, 5, 6]).p).toBeCloseTo(0.1, 10);
  });

  it('interleaved samples are not different (p = 1 for a perfect interleave of 4)', () => {
    const t = mannWhitney([1, 4, 5, 8], [2, 3, 6, 7]);
    expect(t.u).toBe(8);
    expect(t.p).toBe(1);
  });

  it('with ties it uses the normal approximation with the tie correction', () => {
    // U = 2 of 16 with ties in the middle; p near 0.07 (continuity corrected).
    const t = mannWhitney([1, 2, 3, 3], [3, 4, 5, 6]);
    expect(t.p).toBeGreaterThan(0.05);
    expect(t.p).toBeLessThan(0.1);
  });
});

describe('intervals, outliers, spread', () => {
  it('bootstrap intervals are reproducible and contain the median', () => {
    const v = [100, 104, 98, 102, 101, 99, 103];
    const a = medianIntervalBootstrap(v);
    expect(medianIntervalBootstrap(v)).toEqual(a);
    expect(a.low).toBeLessThanOrEqual(101);
    expect(a.high).toBeGreaterThanOrEqual(101);
    const r = ratioInterval([100, 101, 99, 100, 102], [150, 149, 152, 151, 150]);
    expect(r.low).toBeGreaterThan(1.4);
    expect(r.high).toBeLessThan(1.6);
  });

  it('modified Z-score flags the one slow run, and only it', () => {
    expect(outliers([100, 101, 99, 102, 100, 250])).toEqual([5]);
    expect(outliers([100, 101, 99, 102, 100])).toEqual([]);
  });

  it('coefficient of variation', () => {
    expect(coefficientOfVariation([10, 10, 10])).toBe(0);
    expect(coefficientOfVariation([90, 110])).toBeCloseTo(14.14 / 100, 3);
  });

  it('runs to tell grows as the difference shrinks against the noise', () => {
    const base = [100, 95, 105, 98, 102];
    const far = runsToTell(
      base,
      base.map((v) => v * 1.5),
    )!;
    const near = runsToTell(
      base,
      base.map((v) => v * 1.05),
    )!;
    expect(near).toBeGreaterThan(far);
    expect(runsToTell(base, base)).toBeUndefined();
  });
});

function contender(
  label: string,
  timesMs: number[],
  verified = true,
  cell?: Record<string, string>,
): ContenderStats {
  // 100 MiB per run: throughput follows the time.
  const rates = timesMs.map((t) => 100 / (t / 1000));
  return {
    label: cell
      ? `${label} [${Object.entries(cell)
          .map(([k, v]) => `${k} ${v}`)
          .join(' ')}]`
      : label,
    strategy: label,
    cell,
    description: '',
    unit: 'MiB/s',
    samples: { n: timesMs.length, of: 'runs' },
    runs: timesMs.length,
    objectSizeBytes: 1,
    wallMs: spread(timesMs),
    timesMs,
    throughputMiBps: spread(rates),
    opsPerSecond: spread(rates),
    ratesMiBps: rates,
    ratesOpsPerSecond: rates,
    requestsPerRun: 1,
    failedRequests: 0,
    reusedSockets: 0,
    retries: 0,
    throttled: 0,
    backoffMs: 0,
    faults: {},
    socketsOpenedPerRun: 1,
    phaseShare: {},
    latencyMs: {},
    totalPercentilesMs: [],
    verified,
    problems: [],
    cpuBoundWorkers: 0,
    eventLoopDelayP99MaxMs: 0,
    cpuMsPerRun: 0,
    recordsSampled: false,
  };
}

describe('ranks and the verdict', () => {
  it('two contenders within noise share rank 1= and the verdict says how many runs would tell', () => {
    const ranked = rankStats([
      contender('single', [100, 130, 90, 120, 110]),
      contender('chunked', [105, 95, 125, 115, 100]),
    ]);
    expect(ranked.map(rankLabel)).toEqual(['1=', '1=']);
    const [line] = verdictLines(ranked);
    expect(line).toMatch(/^no significant difference between chunked, single at n=5: /);
  });

  it(
    'a difference too small to tell apart within --runs 1000 is called equivalent, ' +
      'not "add --runs 253071"',
    () => {
      const ranked = rankStats([
        contender('a', [100, 130, 90, 120, 110]),
        contender('b', [100.1, 130, 90, 120, 110.2]),
      ]);
      expect(ranked.map(rankLabel)).toEqual(['1=', '1=']);
      expect(verdictLines(ranked)[0]).toMatch(
        new RegExp(
          'at n=5: telling a difference this small apart would take more ' +
            'than 1000 runs each: for this workload they are equivalent$',
        ),
      );
    },
  );

  it('a clear difference ranks 1 and 2 and is worded with the ratio and its interval', () => {
    const ranked = rankStats([
      contender('sdk', [150, 152, 149, 151, 150]),
      contender('chunked', [100, 101, 99, 102, 100]),
    ]);
    expect(ranked.map((s) => `${rankLabel(s)} ${s.label}`)).toEqual(['1 chunked', '2 sdk']);
    expect(verdictLines(ranked)).toEqual([
      expect.stringMatching(/^chunked is 1\.50x faster than sdk \(95% CI 1\.\d\dx–1\.\d\dx, n=5\/5\)$/),
    ]);
  });

  it(
    "the rank test alone says faster but the ratio's interval reaches below 1x: a tie, never " +
      '"faster (95% CI 0.99x-...)"',
    () => {
      const a = [129, 136, 101, 105, 103, 104, 103, 100];
      const b = [134, 148, 118, 115, 118, 137, 120, 128];
      expect(mannWhitney(a, b).p).toBeLessThan(0.05);
      expect(ratioInterval(a, b).low).toBeLessThanOrEqual(1);
      const ranked = rankStats([contender('a', a), contender('b', b)]);
      expect(ranked.map(rankLabel)).toEqual(['1=', '1=']);
      expect(verdictLines(ranked)[0]).toMatch(/^no significant difference between a, b at n=8/);
    },
  );

  it('one run each: nothing is ranked ahead, and the verdict asks for runs', () => {
    const ranked = rankStats([contender('a', [100]), contender('b', [200]), contender('c', [300])]);
    expect(ranked.map(rankLabel)).toEqual(['1=', '1=', '1=']);
    expect(verdictLines(ranked)[0]).toMatch(
      /at n=1: 4 runs each are the fewest a rank test can decide on: add --runs \d+/,
    );
  });

  it('a failed contender ranks last and never ties with the verified', () => {
    const ranked = rankStats([
      contender('bad', [10, 10, 10, 10], false),
      contender('a', [100, 101, 102, 100]),
    ]);
    expect(ranked.map((s) => `${rankLabel(s)} ${s.label}`)).toEqual(['1 a', '2 bad']);
  });

  it('warnings: outliers, variation and a target on this machine', () => {
    const w = warnings([contender('a', [100, 101, 99, 102, 100, 250])], true);
    expect(w.some((l) => /^outlier runs .*: a \(1 of 6\)/.test(l))).toBe(true);
    expect(w.some((l) => /^run times vary by more than 10% .*: a \(\d+%\)/.test(l))).toBe(true);
    expect(w.at(-1)).toMatch(/target runs on this machine/);
  });
});

describe('a rank below the leader that the leader itself does not earn', () => {
  // a: the lowest median but scattered; b: tight, just behind; c: tight, a little behind b. b is
  // significantly faster than c, a is not: c ranks below the leader through b.
  const a = contender('a', [80, 140, 95, 130, 99, 101, 150, 85]);
  const b = contender('b', [100, 100.5, 99.5, 100.2, 99.8, 100.1, 99.9, 100.3]);
  const c = contender('c', [103, 103.4, 102.6, 103.1, 102.9, 103.2, 102.8, 103.3]);

  it(
    'is said of the contender that is significantly faster, never as the leader being faster with an ' +
      'interval across 1x',
    () => {
      const lines = verdictLines(rankStats([a, b, c]));
      for (const l of lines.filter((t) => t.includes(' faster than '))) {
        const [low] = /95% CI (\d+\.\d+)x/.exec(l)!.slice(1).map(Number);
        expect(low, l).toBeGreaterThan(1);
      }
      expect(lines.some((l) => /^b is 1\.03x faster than c/.test(l))).toBe(true);
    },
  );
});

describe('sweep: the best is the set tied with the top', () => {
  const axes = [{ flag: '--concurrency', values: ['2', '4', '8'] }];
  const cell = (v: string) => ({ '--concurrency': v });
  const stats = [
    contender('chunked', [100, 104, 98, 102, 101], true, cell('2')),
    contender('chunked', [98, 101, 99, 100, 103], true, cell('4')),
    contender('chunked', [150, 152, 149, 151, 150], true, cell('8')),
  ];

  it('marks the cells a rank test cannot tell from the best, and names them', () => {
    const verdict = buildGrid(stats, axes);
    expect(verdict.best?.cell).toEqual(cell('4'));
    expect(verdict.tied.map((s) => s.cell)).toEqual([cell('2'), cell('4')]);
    expect(verdict.grid.best).toEqual({ row: 0, col: 1 });
    expect(verdict.grid.tied).toEqual([
      { row: 0, col: 0 },
      { row: 0, col: 1 },
    ]);
  });

  it('SDK advice only from measured SDK cells, never when single wins', () => {
    const verdict = buildGrid(stats, axes);
    expect(sdkAdvice('download', stats, verdict.best)).toEqual([
      expect.stringMatching(/^SDK settings: not advised, no SDK baseline was measured/),
    ]);
    const single = [contender('single', [50, 51, 49, 50, 52], true, cell('2')), ...stats];
    expect(sdkAdvice('download', single, buildGrid(single, axes).best)[0]).toMatch(
      /one GET of the whole blob\): no SDK block settings to advise$/,
    );
  });

  it("SDK advice for a name in both directions is its own direction's baseline's", () => {
    const sockets = (v: string) => ({
      ...contender(
        'sdk-small-files',
        [100, 101, 99, 100, 102].map((t) => t * Number(v)),
        true,
        {
          '--max-sockets': v,
        },
      ),
      params: { processes: 2, maxSockets: Number(v), concurrency: 1 },
    });
    const cells = [sockets('4'), sockets('8')];
    const calls = (direction: 'download' | 'upload') => sdkAdvice(direction, cells, cells[0]).at(-1);
    expect(calls('download')).toBe('  2 process(es) x 4 socket(s) = 8 downloadToBuffer calls in flight');
    expect(calls('upload')).toBe('  2 process(es) x 4 socket(s) = 8 BlockBlobClient.upload calls in flight');
  });
});
