// The latency of what succeeded since the last look: a worker records each settled request here
// (after it ended, off its timed path) and hands the histogram over with each progress message, so
// the coordinator can add every worker's into live percentiles per interval. Integer µs, as every
// histogram here; it is reset after each hand-over.
import type * as Hdr from 'hdr-histogram-js';
import { encodeHistogram, newHistogram } from './histograms.js';

export interface IntervalLatencyRecorder {
  record(totalMs: number): void;
  take(): string | undefined;
}

/** Where the worker makes no histograms (a few records, all sent): nothing is recorded. */
export const NO_INTERVAL_LATENCY: IntervalLatencyRecorder = {
  record() {},
  take: () => undefined,
};

export class IntervalLatency implements IntervalLatencyRecorder {
  private readonly histogram: Hdr.Histogram = newHistogram();

  /** A request that succeeded, `totalMs` long (an open loop's from its intended start). */
  record(totalMs: number): void {
    this.histogram.recordValue(Math.max(0, Math.round(totalMs * 1000)));
  }

  /** What was recorded since the last call, encoded; undefined when nothing was. */
  take(): string | undefined {
    if (this.histogram.totalCount === 0) return undefined;
    const encoded = encodeHistogram(this.histogram);
    this.histogram.reset();
    return encoded;
  }
}
