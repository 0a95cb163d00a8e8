// Paired comparisons of two contenders that ran in the same rounds (alternate() runs every
// contender once per round): round i's a_i / b_i cancels the drift a shared machine has from minute
// to minute. The median of those ratios gets a distribution-free interval from order statistics
// (medianIntervalSignTestExact of the statistics library).
import { median, type MedianInterval } from '../../src/analysis/stats.ts';
import type { Row, Sample } from './sample.ts';

/** a_i / b_i over the rounds both measured, sorted. */
export function pairedRatios(
  a: Row | undefined,
  b: Row | undefined,
  measure: (s: Sample) => number | undefined,
): number[] {
  const r: number[] = [];
  if (!a || !b) return r;
  for (let i = 0; i < Math.min(a.samples.length, b.samples.length); i++) {
    const x = measure(a.samples[i]!);
    const y = measure(b.samples[i]!);
    if (x !== undefined && y !== undefined && Number.isFinite(x) && Number.isFinite(y) && y > 0)
      r.push(x / y);
  }
  return r.sort((p, q) => p - q);
}

export function quartiles(sorted: readonly number[]): [number, number] {
  return sorted.length
    ? [sorted[Math.floor((sorted.length - 1) / 4)]!, sorted[Math.ceil((3 * (sorted.length - 1)) / 4)]!]
    : [NaN, NaN];
}

/** "1.23x (95% CI 1.10–1.31, n 9)"; ~ when the interval holds 1 (no difference told). */
export function ratioText(m: MedianInterval): string {
  if (!m.n) return '—';
  const same = m.low <= 1 && m.high >= 1 ? ' ~' : '';
  return (
    `${m.median.toFixed(2)}x${same} (${(m.confidence * 100).toFixed(0)}% CI ` +
    `${m.low.toFixed(2)}–${m.high.toFixed(2)}, n ${m.n})`
  );
}

/** The fewest rounds whose sign-test interval of the median reaches 95% (medianIntervalSignTestExact). */
export const MIN_ROUNDS = 6;

/**
 * Rounds that would tell a paired ratio this far from 1 at 5% with 80% power, if it is real: the
 * one-sample normal formula on the rounds' log ratios, with a robust spread (1.4826 MAD), divided by
 * the sign test's efficiency (2/pi); never fewer than MIN_ROUNDS, nor than the rounds already made
 * (the estimate is normal theory, the interval a sign test's). Undefined where the median ratio is 1.
 */
export function roundsToTell(sorted: readonly number[]): number | undefined {
  if (!sorted.length) return undefined;
  const logs = sorted.map(Math.log);
  const center = median(logs);
  if (center === 0) return undefined;
  const spread = Math.max(1.4826 * median(logs.map((l) => Math.abs(l - center))), 1e-9);
  const n = Math.ceil((((1.96 + 0.8416) * spread) / Math.abs(center)) ** 2 / (2 / Math.PI));
  return Math.max(n, MIN_ROUNDS, sorted.length + 1);
}
