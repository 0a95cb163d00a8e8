// Statistics over repeated runs, as benchstat and hyperfine report them: median, spread and a 95%
// confidence interval of the mean (Student's t).
const T95: readonly number[] = [
  NaN, 12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131,
  2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

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

export function median(values: readonly number[]): number {
  if (!values.length) return NaN;
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

export function spread(values: readonly number[]): Spread {
  const n = values.length;
  const mean = n ? values.reduce((a, b) => a + b, 0) / n : NaN;
  let half = 0;
  if (n >= 2) {
    const variance = values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1);
    const t = n - 1 < T95.length ? T95[n - 1]! : 1.96;
    half = (t * Math.sqrt(variance)) / Math.sqrt(n);
  }
  return { n, median: median(values), mean, min: Math.min(...values), max: Math.max(...values), ci95Low: mean - half, ci95High: mean + half };
}
