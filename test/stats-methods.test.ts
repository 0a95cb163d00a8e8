// Each median interval of the statistics library, pinned on fixed samples: the three methods answer
// different questions (a bootstrap of the median, and two order-statistic intervals from the sign
// test, exact and by the normal approximation), so each keeps its own answers, n < 6 included, and a
// move or a rename never changes a number the verdicts, the stopping rule or the bench print.
import { describe, expect, it } from 'vitest';
import { ratioInterval } from '../src/analysis/significance.js';
import {
  median,
  medianIntervalBootstrap,
  medianIntervalSignTestExact,
  medianIntervalSignTestNormal,
} from '../src/analysis/stats.js';

const sorted = (v: readonly number[]) => [...v].sort((a, b) => a - b);
const SIX = [12, 10, 11, 15, 9, 14];
const NINE = [1.02, 0.97, 1.1, 0.99, 1.05, 1.01, 0.95, 1.2, 1.03];
const SIXTEEN = [100, 104, 98, 131, 102, 99, 101, 97, 103, 105, 96, 250, 100, 102, 99, 101];

describe('median', () => {
  it('is the middle value, the mean of the two middle ones for an even count, NaN for none', () => {
    expect(median([5, 1, 4])).toBe(4);
    expect(median([3, 1])).toBe(2);
    expect(median(SIX)).toBe(11.5);
    expect(median(SIXTEEN)).toBe(101);
    expect(median([])).toBeNaN();
  });
});

describe('median interval by percentile bootstrap (seeded, so the same runs give the same interval)', () => {
  it('is a point for one value and spans the resampled medians from two on', () => {
    expect(medianIntervalBootstrap([7])).toEqual({ low: 7, high: 7 });
    expect(medianIntervalBootstrap([3, 1])).toEqual({ low: 1, high: 3 });
    expect(medianIntervalBootstrap([5, 1, 4])).toEqual({ low: 1, high: 5 });
    expect(medianIntervalBootstrap([2, 9, 4, 7, 1])).toEqual({ low: 1, high: 9 });
  });

  it('gives the answers it gave before the library was gathered, from six values on', () => {
    expect(medianIntervalBootstrap(SIX)).toEqual({ low: 9.5, high: 14.5 });
    expect(medianIntervalBootstrap(NINE)).toEqual({ low: 0.97, high: 1.1 });
    expect(medianIntervalBootstrap(SIXTEEN)).toEqual({ low: 99, high: 103 });
  });

  it('keeps the ratio-of-medians bootstrap, which shares its generator, where it was', () => {
    const slower = (v: readonly number[]) => v.map((x) => x * 1.3);
    expect(ratioInterval([7], slower([7]))).toEqual({ low: 1.3, high: 1.3 });
    expect(ratioInterval(SIX, slower(SIX))).toEqual({ low: 0.9413793103448276, high: 1.7333333333333332 });
    expect(ratioInterval(NINE, slower(NINE))).toEqual({ low: 1.2172727272727273, high: 1.4019607843137256 });
    expect(ratioInterval(SIXTEEN, slower(SIXTEEN))).toEqual({
      low: 1.268137254901961,
      high: 1.3386186641052165,
    });
  });
});

describe('median interval from order statistics, sign test by the normal approximation', () => {
  it('has no answer below six values, where its ranks fall outside the sample', () => {
    for (const v of [[], [7], [3, 1], [5, 1, 4], [2, 9, 4, 7, 1]]) {
      expect(medianIntervalSignTestNormal(sorted(v))).toBeUndefined();
    }
  });

  it('takes the order statistics at ranks n/2 -+ 1.96 sqrt(n)/2', () => {
    expect(medianIntervalSignTestNormal(sorted(SIX))).toEqual({ low: 9, high: 15 });
    expect(medianIntervalSignTestNormal(sorted(NINE))).toEqual({ low: 0.97, high: 1.1 });
    expect(medianIntervalSignTestNormal(sorted(SIXTEEN))).toEqual({ low: 99, high: 104 });
  });
});

describe("median interval from order statistics, exact sign test (the bench's paired rounds)", () => {
  it('below six values is the whole range, with the confidence it really has', () => {
    const interval = (v: number[], median: number, confidence: number) => ({
      n: v.length,
      median,
      low: Math.min(...v),
      high: Math.max(...v),
      confidence,
    });
    expect(medianIntervalSignTestExact([7])).toEqual(interval([7], 7, 0));
    expect(medianIntervalSignTestExact(sorted([3, 1]))).toEqual(interval([3, 1], 2, 0.5));
    expect(medianIntervalSignTestExact(sorted([5, 1, 4]))).toEqual(interval([5, 1, 4], 4, 0.75));
    const five = [2, 9, 4, 7, 1];
    expect(medianIntervalSignTestExact(sorted(five))).toEqual(interval(five, 4, 0.9375));
    expect(medianIntervalSignTestExact([]).median).toBeNaN();
  });

  it('from six values on takes the innermost order statistics that still cover 95%', () => {
    // Confidence 1 - 2 P(Bin(n, 1/2) < k): tails C(6,0)/2^6, (C(9,0)+C(9,1))/2^9, C(16,0..3)/2^16.
    expect(medianIntervalSignTestExact(sorted(SIX))).toEqual({
      n: 6,
      median: 11.5,
      low: 9,
      high: 15,
      confidence: 1 - 2 / 64,
    });
    expect(medianIntervalSignTestExact(sorted(NINE))).toEqual({
      n: 9,
      median: 1.02,
      low: 0.97,
      high: 1.1,
      confidence: 1 - (2 * 10) / 512,
    });
    expect(medianIntervalSignTestExact(sorted(SIXTEEN))).toEqual({
      n: 16,
      median: 101,
      low: 99,
      high: 104,
      confidence: 1 - (2 * 697) / 65536,
    });
  });
});
