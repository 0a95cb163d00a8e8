// Statistics for verdicts, over the library in stats.ts: a rank test per pair (benchstat's
// Mann-Whitney U), a bootstrap interval for a ratio of medians, outliers by the modified Z-score on
// the MAD (hyperfine), and how many runs would tell a difference apart.
import {
  ALPHA,
  bootstrapInterval,
  median,
  medianIntervalSignTestNormal,
  resample,
  type Interval,
} from './stats.js';

/** The median is known to within `share` of itself (0.02: +-2%) at 95%. */
export function medianWithin(values: readonly number[], share: number): boolean {
  const sorted = [...values].sort((x, y) => x - y);
  const interval = medianIntervalSignTestNormal(sorted);
  if (!interval) return false;
  const m = median(sorted);
  return m > 0 && m - interval.low <= share * m && interval.high - m <= share * m;
}

/** 95% bootstrap interval of median(slow) / median(fast): how many times faster `fast` is. */
export function ratioInterval(fast: readonly number[], slow: readonly number[], seed = 2): Interval {
  if (fast.length < 2 || slow.length < 2) {
    const r = median(slow) / median(fast);
    return { low: r, high: r };
  }
  return bootstrapInterval(seed, (next) => median(resample(slow, next)) / median(resample(fast, next)));
}

const uCounts = new Map<string, number[]>();

/** Exact null distribution of U for sample sizes n and m without ties: counts of each U value. */
function exactUCounts(n: number, m: number): number[] {
  const key = `${n}x${m}`;
  const known = uCounts.get(key);
  if (known) return known;
  const counts = countU(n, m);
  uCounts.set(key, counts);
  return counts;
}

function countU(n: number, m: number): number[] {
  // f[i][j][u]: arrangements of i values of one sample and j of the other with statistic u.
  let prev: number[][] = Array.from({ length: m + 1 }, () => [1]);
  for (let i = 1; i <= n; i++) {
    const cur: number[][] = [];
    for (let j = 0; j <= m; j++) {
      const size = i * j + 1;
      const row = new Array<number>(size).fill(0);
      // The largest value belongs to the first sample (adds j to U) or to the second.
      const a = prev[j]!;
      for (let u = 0; u < a.length; u++) row[u + j] = row[u + j]! + a[u]!;
      if (j > 0) {
        const b = cur[j - 1]!;
        for (let u = 0; u < b.length; u++) row[u] = row[u]! + b[u]!;
      }
      cur.push(row);
    }
    prev = cur;
  }
  return prev[m]!;
}

export interface RankTest {
  /** Two-sided p-value that the two samples come from one distribution. */
  p: number;
  u: number;
}

/** Mann-Whitney U test, two-sided: exact for small samples without ties, normal approximation otherwise. */
export function mannWhitney(a: readonly number[], b: readonly number[]): RankTest {
  const n = a.length;
  const m = b.length;
  if (n === 0 || m === 0) return { p: 1, u: 0 };
  const all = [...a.map((v) => ({ v, g: 0 })), ...b.map((v) => ({ v, g: 1 }))].sort((x, y) => x.v - y.v);
  const ranks = new Array<number>(all.length);
  let tieTerm = 0;
  for (let i = 0; i < all.length; ) {
    let j = i;
    while (j + 1 < all.length && all[j + 1]!.v === all[i]!.v) j++;
    const t = j - i + 1;
    if (t > 1) tieTerm += t ** 3 - t;
    for (let k = i; k <= j; k++) ranks[k] = (i + j) / 2 + 1;
    i = j + 1;
  }
  const rankSumA = all.reduce((s, x, i) => s + (x.g === 0 ? ranks[i]! : 0), 0);
  const u = rankSumA - (n * (n + 1)) / 2;
  const uMin = Math.min(u, n * m - u);
  if (tieTerm === 0 && n <= 30 && m <= 30) {
    const counts = exactUCounts(n, m);
    const total = counts.reduce((s, c) => s + c, 0);
    let tail = 0;
    for (let k = 0; k <= Math.floor(uMin + 1e-9); k++) tail += counts[k]!;
    return { u, p: Math.min(1, (2 * tail) / total) };
  }
  const mean = (n * m) / 2;
  const sd = Math.sqrt(((n * m) / 12) * (n + m + 1 - tieTerm / ((n + m) * (n + m - 1))));
  if (sd === 0) return { u, p: 1 };
  const z = (Math.abs(u - mean) - 0.5) / sd;
  return { u, p: Math.min(1, 2 * (1 - normalCdf(z))) };
}

/** Standard normal CDF (Abramowitz and Stegun 7.1.26, error < 1.5e-7). */
export function normalCdf(z: number): number {
  const x = Math.abs(z) / Math.SQRT2;
  const t = 1 / (1 + 0.3275911 * x);
  const erf =
    1 -
    t *
      (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 + t * 1.061405429)))) *
      Math.exp(-x * x);
  return z >= 0 ? (1 + erf) / 2 : (1 - erf) / 2;
}

/** Median absolute deviation, scaled to estimate a normal standard deviation. */
export function mad(values: readonly number[]): number {
  const med = median(values);
  return median(values.map((v) => Math.abs(v - med)));
}

/** Indices whose modified Z-score (0.6745 (x - median) / MAD) exceeds 3.5 (Iglewicz and Hoaglin). */
export function outliers(values: readonly number[]): number[] {
  const d = mad(values);
  if (values.length < 3 || d === 0) return [];
  const med = median(values);
  return values.flatMap((v, i) => (Math.abs((0.6745 * (v - med)) / d) > 3.5 ? [i] : []));
}

/** Coefficient of variation (sample standard deviation / mean). */
export function coefficientOfVariation(values: readonly number[]): number {
  if (values.length < 2) return 0;
  const mean = values.reduce((s, v) => s + v, 0) / values.length;
  const sd = Math.sqrt(values.reduce((s, v) => s + (v - mean) ** 2, 0) / (values.length - 1));
  return mean > 0 ? sd / mean : 0;
}

/** The smallest n where a rank test can reach ALPHA at all (both samples of n, two-sided). */
export const MIN_RUNS_FOR_SIGNIFICANCE = 4;

/**
 * Runs per contender that would tell a difference the size of the one observed apart at ALPHA with
 * 80% power, if it is real: the two-sample normal formula with a robust spread (MAD), divided by
 * the rank test's efficiency (3/pi). Undefined when the data hold no difference to size.
 */
export function runsToTell(a: readonly number[], b: readonly number[]): number | undefined {
  const delta = Math.abs(median(a) - median(b));
  const sd = Math.max(1.4826 * mad(a), 1.4826 * mad(b), 1e-9);
  if (delta === 0) return undefined;
  const n = (2 * ((1.96 + 0.8416) * sd) ** 2) / delta ** 2 / (3 / Math.PI);
  return Math.max(MIN_RUNS_FOR_SIGNIFICANCE + 1, Math.ceil(n));
}

/**
 * Whether runs `fast` are significantly faster than runs `slow`: a lower median, the rank test at
 * ALPHA, and the 95% interval of the ratio of medians wholly above 1x. Both tests, so that a verdict
 * never ranks apart what its own interval says may be the other way round.
 */
export function significantlyFaster(fast: readonly number[], slow: readonly number[]): boolean {
  return (
    median(fast) < median(slow) && mannWhitney(fast, slow).p < ALPHA && ratioInterval(fast, slow).low > 1
  );
}

/**
 * Whether `fast` beats `slow` by enough to be worth asking more for (more requests, sockets,
 * processes or a more complex strategy): significantly faster, and its median at least `share`
 * below. A gain smaller than that is real but does not pay for what it asks; `tune` and the
 * recommendation weigh every such choice by this one rule.
 */
export function materiallyFaster(fast: readonly number[], slow: readonly number[], share: number): boolean {
  return median(slow) >= (1 + share) * median(fast) && significantlyFaster(fast, slow);
}
