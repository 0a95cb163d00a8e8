// A contender's times' spread as the report shows it beside their median: the median's own interval
// from enough runs on, their range below that.
import type { ContenderStats } from './analyze.js';
import { medianIntervalSignTestExact } from './stats.js';

/**
 * A contender's times' spread beside their median: from MIN_RUNS_FOR_INTERVAL runs on, the median's
 * own 95% interval (the sign test's order statistics: no assumption about the runs' distribution,
 * and never an interval that leaves the median out, as the mean's can when a few runs are slow);
 * below it, their range.
 */
export interface TimeBounds {
  of: 'ci95' | 'range';
  lowMs: number;
  highMs: number;
  /** How far the interval reaches from the median on its wider side: what `±` shows. */
  fromMedianMs: number;
}

/**
 * Below this many samples an interval of the median is the whole range or wider: the range says it
 * plainly.
 */
export const MIN_RUNS_FOR_INTERVAL = 5;

export function timeBoundsOf(s: ContenderStats): TimeBounds | undefined {
  const w = s.wallMs;
  if (w.n < 2) return undefined;
  const [of, lowMs, highMs] =
    w.n < MIN_RUNS_FOR_INTERVAL
      ? (['range', w.min, w.max] as const)
      : (() => {
          const interval = medianIntervalSignTestExact([...s.timesMs].sort((a, b) => a - b));
          return ['ci95', interval.low, interval.high] as const;
        })();
  return { of, lowMs, highMs, fromMedianMs: Math.max(highMs - w.median, w.median - lowMs) };
}
