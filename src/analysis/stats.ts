// The statistics library of analysis/ and bench/ alike: the one median, the spread of repeated runs
// (as benchstat and hyperfine report it), and each interval of a median named by its method. The
// methods answer different questions, so each is kept: a percentile bootstrap (any n from 2, slow),
// and two order-statistic intervals from the sign test, by the normal approximation (cheap enough to
// ask after every run, none below 6 values) and exact (with the confidence it really reaches).
// It imports nothing: bench/ runs this file from source, with Node stripping the types.

/** Student's t at 97.5%, by degrees of freedom (1 to 30); 1.96 beyond. */
const T95: readonly number[] = [
  NaN,
  12.706,
  4.303,
  3.182,
  2.776,
  2.571,
  2.447,
  2.365,
  2.306,
  2.262,
  2.228,
  2.201,
  2.179,
  2.16,
  2.145,
  2.131,
  2.12,
  2.11,
  2.101,
  2.093,
  2.086,
  2.08,
  2.074,
  2.069,
  2.064,
  2.06,
  2.056,
  2.052,
  2.048,
  2.045,
  2.042,
];

/** Significance level of every test and interval here (each interval is at 1 - ALPHA). */
export const ALPHA = 0.05;

export interface Spread {
  n: number;
  median: number;
  mean: number;
  min: number;
  max: number;
  /** 95% confidence interval of the mean; equal to the mean when n < 2. */
  ci95Low: number;
  ci95High: number;
}

export interface Interval {
  low: number;
  high: number;
}

/** The middle value; the mean of the two middle ones for an even count; NaN for none. */
export function median(values: readonly number[]): number {
  if (!values.length) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Median, mean, range and the 95% confidence interval of the mean (Student's t). */
export function spread(values: readonly number[]): Spread {
  const n = values.length;
  const mean = n ? values.reduce((a, b) => a + b, 0) / n : NaN;
  let half = 0;
  if (n >= 2) {
    const variance = values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1);
    const t = n - 1 < T95.length ? T95[n - 1]! : 1.96;
    half = (t * Math.sqrt(variance)) / Math.sqrt(n);
  }
  return {
    n,
    median: median(values),
    mean,
    min: Math.min(...values),
    max: Math.max(...values),
    ci95Low: mean - half,
    ci95High: mean + half,
  };
}

/** A small deterministic generator, so that the same results file always gives the same intervals. */
function rng(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

/** As many values as there are, drawn with replacement. */
export const resample = (values: readonly number[], next: () => number): number[] =>
  values.map(() => values[Math.floor(next() * values.length)]!);

function percentile(sorted: readonly number[], p: number): number {
  const i = (sorted.length - 1) * p;
  const lo = Math.floor(i);
  const hi = Math.ceil(i);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (i - lo);
}

const BOOTSTRAP_ITERATIONS = 2000;

/**
 * 95% percentile-bootstrap interval of a statistic: `draw` computes it once on resamples it makes
 * with `next`, the generator seeded with `seed`.
 */
export function bootstrapInterval(seed: number, draw: (next: () => number) => number): Interval {
  const next = rng(seed);
  const draws = Array.from({ length: BOOTSTRAP_ITERATIONS }, () => draw(next)).sort((x, y) => x - y);
  return { low: percentile(draws, ALPHA / 2), high: percentile(draws, 1 - ALPHA / 2) };
}

/** 95% percentile-bootstrap interval of the median; a point when there is one value. */
export function medianIntervalBootstrap(values: readonly number[], seed = 1): Interval {
  if (values.length < 2) return { low: median(values), high: median(values) };
  return bootstrapInterval(seed, (next) => median(resample(values, next)));
}

/**
 * 95% distribution-free interval of the median of sorted values from order statistics, at the sign
 * test's binomial ranks by the normal approximation (n/2 -+ 1.96 sqrt(n)/2): no resampling, so cheap
 * enough to ask after every run; undefined below 6 values, where the ranks fall outside the sample.
 */
export function medianIntervalSignTestNormal(sorted: readonly number[]): Interval | undefined {
  const n = sorted.length;
  const half = (1.96 * Math.sqrt(n)) / 2;
  const lo = Math.round(n / 2 - half);
  const hi = Math.round(1 + n / 2 + half);
  if (lo < 1 || hi > n) return undefined;
  return { low: sorted[lo - 1]!, high: sorted[hi - 1]! };
}

/** A median with its exact sign-test interval, and the confidence that interval reaches. */
export interface MedianInterval {
  n: number;
  median: number;
  /** The order statistics around the median that cover it with at least `confidence` (sign test). */
  low: number;
  high: number;
  confidence: number;
}

/** P(X <= k) for X ~ Binomial(n, 1/2). */
function binomialCdf(n: number, k: number): number {
  let term = 0.5 ** n;
  let sum = term;
  for (let i = 1; i <= k; i++) {
    term = (term * (n - i + 1)) / i;
    sum += term;
  }
  return sum;
}

/**
 * Median of sorted values with its ~95% interval by the exact sign test: [x_(k), x_(n+1-k)] for the
 * largest k where P(Bin(n, 1/2) < k) <= 2.5%. Below n = 6 no such k exists: the interval is the
 * whole range, and `confidence` says how little that is.
 */
export function medianIntervalSignTestExact(sorted: readonly number[]): MedianInterval {
  const n = sorted.length;
  if (!n) return { n, median: NaN, low: NaN, high: NaN, confidence: NaN };
  const mid = Math.floor(n / 2);
  let k = 1;
  while (k + 1 <= mid && binomialCdf(n, k) <= ALPHA / 2) k++;
  const confidence = 1 - 2 * binomialCdf(n, k - 1);
  return { n, median: median(sorted), low: sorted[k - 1]!, high: sorted[n - k]!, confidence };
}
