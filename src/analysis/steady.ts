// Steady runs (--duration), derived from their per-interval series: the active window (every worker
// issuing: after the last one started, before the first one stopped), the rates over it, and when
// throttling set in. Ramp-up and drain are outside the window, as warp's active time range.
import { median } from './stats.js';
import type { IntervalPoint, RunRecord, SteadyRecord } from '../results/schema.js';
import { unitOfRun } from './unit.js';

export interface SteadyFigures {
  /** The whole intervals inside the active window, in ms since the release. */
  activeStartMs: number;
  activeEndMs: number;
  activeMs: number;
  activeBytes: number;
  activeOps: number;
  /** False when no whole interval fell inside the window: the figures are over the whole run instead. */
  windowed: boolean;
  /**
   * The time one pass over the items takes at the active rate: what the rank test compares, so that
   * a steady run ranks by its rate exactly as a fixed-work run ranks by its time.
   */
  lapTimeMs: number;
  /** The same per whole interval of the active window that moved anything, in order. */
  intervalLapTimesMs: number[];
  /**
   * The first interval with throttled answers (429/503), and the first where they came with a drop in rate.
   */
  firstThrottledMs?: number;
  throttleOnsetMs?: number;
}

/** An interval counts as a drop when its rate is below this share of the median of the ones before it. */
export const THROTTLE_DROP = 0.9;

/** Bytes per interval, or requests where the workload is counted in ops/s (unit.ts). */
export const intervalRate = (perByte: boolean, p: IntervalPoint): number => (perByte ? p.bytes : p.ops);

export function steadyFigures(r: RunRecord & { steady: SteadyRecord }): SteadyFigures {
  const s = r.steady;
  const iv = s.intervalMs;
  const startMs = Math.max(0, ...s.workers.map((w) => w.firstStartMs));
  const endMs = Math.min(...s.workers.map((w) => w.stoppedMs));
  const first = Math.ceil(startMs / iv);
  const last = Math.min(s.series.length, Math.floor(endMs / iv));
  const inside = s.series.slice(first, Math.max(first, last));
  const windowed = inside.length > 0;
  const activeMs = windowed ? inside.length * iv : r.wallMs;
  const activeBytes = windowed ? inside.reduce((a, p) => a + p.bytes, 0) : r.bytes;
  const activeOps = windowed
    ? inside.reduce((a, p) => a + p.ops - p.errors, 0)
    : r.requests - r.failedRequests;
  const perByte = unitOfRun(r) === 'MiB/s' && s.lapBytes > 0;
  const lapTimeMs =
    perByte && activeBytes > 0
      ? (activeMs * s.lapBytes) / activeBytes
      : activeOps > 0
        ? (activeMs * s.lapRequests) / activeOps
        : Infinity;
  // Each whole interval of the window as the time of one lap at its own rate: what the rank test
  // compares (n = intervals), so a steady run is ranked on many samples, not one pass.
  const intervalLapTimesMs = inside
    .map((p) => intervalRate(perByte, p))
    .filter((v) => v > 0)
    .map((v) => (iv * (perByte ? s.lapBytes : s.lapRequests)) / v);
  const rates = s.series.map((p) => intervalRate(perByte, p));
  const firstThrottled = s.series.findIndex((p) => p.throttled > 0);
  const onset = s.series.findIndex(
    (p, i) => p.throttled > 0 && i > 0 && rates[i]! < THROTTLE_DROP * median(rates.slice(0, i)),
  );
  return {
    activeStartMs: windowed ? first * iv : 0,
    activeEndMs: windowed ? last * iv : r.wallMs,
    activeMs,
    activeBytes,
    activeOps,
    windowed,
    lapTimeMs,
    intervalLapTimesMs,
    ...(firstThrottled >= 0 ? { firstThrottledMs: firstThrottled * iv } : {}),
    ...(onset >= 0 ? { throttleOnsetMs: onset * iv } : {}),
  };
}

export const isSteady = (r: RunRecord): r is RunRecord & { steady: SteadyRecord } => r.steady !== undefined;

const MiB = 1024 * 1024;

/** The most characters the text report's sparkline takes: longer series are shown in buckets. */
export const SPARKLINE_WIDTH = 60;

/** The shown run's series in figures, computed once so that renderers only format them. */
export interface SteadyRates {
  /** Per interval: MiB/s, or requests/s where nothing moves (listing, HEAD). */
  perInterval: number[];
  /** Intervals per sparkline character, and the median rate of each bucket: at most SPARKLINE_WIDTH. */
  bucketIntervals: number;
  buckets: number[];
  /** Over the intervals themselves; not finite (shown as a dash) where there is none. */
  min: number;
  median: number;
  max: number;
  /** The lowest and highest p99 latency of an interval, where the series has latencies. */
  p99RangeMs?: { low: number; high: number };
  /** Failed requests in the series, and how many intervals had any. */
  errors: number;
  errorIntervals: number;
}

/** Per interval: MiB/s, or requests/s where nothing moves (listing, HEAD). */
export function intervalRates(
  series: readonly IntervalPoint[],
  intervalMs: number,
  perByte: boolean,
): number[] {
  return series.map((p) => (perByte ? p.bytes / MiB : p.ops) / (intervalMs / 1000));
}

export function steadyRates(
  series: readonly IntervalPoint[],
  intervalMs: number,
  perByte: boolean,
): SteadyRates {
  const rates = intervalRates(series, intervalMs, perByte);
  const step = Math.max(1, Math.ceil(rates.length / SPARKLINE_WIDTH));
  const buckets = Array.from({ length: Math.ceil(rates.length / step) }, (_, i) =>
    median(rates.slice(i * step, (i + 1) * step)),
  );
  const p99 = series.flatMap((p) => (p.p99Ms === undefined ? [] : [p.p99Ms]));
  return {
    perInterval: rates,
    bucketIntervals: step,
    buckets,
    min: Math.min(...rates),
    median: median(rates),
    max: Math.max(...rates),
    ...(p99.length ? { p99RangeMs: { low: Math.min(...p99), high: Math.max(...p99) } } : {}),
    errors: series.reduce((a, p) => a + p.errors, 0),
    errorIntervals: series.filter((p) => p.errors).length,
  };
}
