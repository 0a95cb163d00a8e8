// A steady run (--duration) in one worker: its items go again and again until the deadline, so it
// cannot keep a record per request (30 s at 30k ops/s is a million). Each request is counted as it
// ends: totals, the phase histograms, and the interval (since the release) it ended in, with that
// interval's own latency histogram, so that the coordinator can add intervals across workers; its
// bytes over the intervals its body moved in.
import type * as Hdr from 'hdr-histogram-js';
import { decodeHistogram, encodeHistogram, newHistogram, PhaseHistograms } from '../metrics/histograms.js';
import type { OpRecord } from '../metrics/records.js';
import { addTotals, countInto, emptyTotals, type SteadyTotals } from '../metrics/totals.js';
import type { IntervalPoint, SteadyWorkerTimes } from '../results/schema.js';
import type { IntervalCounts, SteadyWorkerResult } from './protocol.js';

interface Interval {
  ops: number;
  bytes: number;
  errors: number;
  retries: number;
  throttled: number;
  latency?: Hdr.Histogram;
}

/** Intervals past this many are folded into the last one: a bound on memory whatever --interval says. */
export const MAX_INTERVALS = 100_000;

export class SteadyMeter {
  readonly histograms = new PhaseHistograms();
  private readonly intervals: Interval[] = [];
  private readonly totals = emptyTotals();
  private first = Infinity;
  private last = -Infinity;
  private readonly epochMs: number;
  private readonly intervalMs: number;

  /** `epochMs`: the release, which every worker was told; intervals count from it. */
  constructor(epochMs: number, intervalMs: number) {
    this.epochMs = epochMs;
    this.intervalMs = intervalMs;
  }

  add(r: OpRecord): void {
    const end = r.startEpochMs + r.totalMs;
    this.first = Math.min(this.first, r.startEpochMs);
    this.last = Math.max(this.last, end);
    countInto(this.totals, r);
    const index = this.indexOf(end);
    for (let i = this.intervals.length; i <= index; i++)
      this.intervals.push({ ops: 0, bytes: 0, errors: 0, retries: 0, throttled: 0 });
    const slot = this.intervals[index]!;
    slot.ops++;
    this.addBytes(r, end, index);
    slot.retries += r.retries;
    slot.throttled += r.throttled;
    if (r.error) {
      slot.errors++;
      return;
    }
    this.histograms.record(r.phases, r.totalMs);
    (slot.latency ??= newHistogram()).recordValue(Math.max(0, Math.round(r.totalMs * 1000)));
  }

  private indexOf(epochMs: number): number {
    return Math.min(MAX_INTERVALS - 1, Math.max(0, Math.floor((epochMs - this.epochMs) / this.intervalMs)));
  }

  /**
   * A request's bytes over the intervals its body moved in (a download's `download` phase, an
   * upload's `send`, whichever is longer), in proportion to the time in each: a 30 s download is
   * not 0 bytes in 29 intervals and all of them in the last. A body within one interval (nearly
   * every request) costs one comparison more than counting it at the end.
   */
  private addBytes(r: OpRecord, end: number, endIndex: number): void {
    const download = r.phases.download ?? 0;
    const send = r.phases.send ?? 0;
    const spanMs = Math.max(download, send);
    const spanEnd = download >= send ? end : end - download - (r.phases.firstByte ?? 0);
    const from = this.indexOf(spanEnd - spanMs);
    if (from === endIndex || spanMs <= 0 || r.bytes === 0) {
      this.intervals[endIndex]!.bytes += r.bytes;
      return;
    }
    const to = this.indexOf(spanEnd);
    let left = r.bytes;
    for (let i = from; i <= to; i++) {
      const startMs = Math.max(spanEnd - spanMs, this.epochMs + i * this.intervalMs);
      const endMs = i === to ? spanEnd : Math.min(spanEnd, this.epochMs + (i + 1) * this.intervalMs);
      const share = i === to ? left : Math.min(left, Math.round((r.bytes * (endMs - startMs)) / spanMs));
      this.intervals[i]!.bytes += share;
      left -= share;
    }
  }

  /** What has been counted into interval `index` so far (zeros for one nothing ended in). */
  counted(index: number): { ops: number; bytes: number } {
    const slot = this.intervals[index];
    return { ops: slot?.ops ?? 0, bytes: slot?.bytes ?? 0 };
  }

  result(laps: number, stoppedEpochMs: number): SteadyWorkerResult {
    const intervals: IntervalCounts[] = this.intervals.map(({ latency, ...counts }) =>
      latency ? { ...counts, latency: encodeHistogram(latency) } : counts,
    );
    return {
      firstStartEpochMs: Number.isFinite(this.first) ? this.first : stoppedEpochMs,
      lastEndEpochMs: Number.isFinite(this.last) ? this.last : stoppedEpochMs,
      stoppedEpochMs,
      laps,
      totals: this.totals,
      intervals,
    };
  }
}

/** A steady run over every worker: intervals added, latency percentiles read from the added histograms. */
export interface MergedSteady {
  releaseEpochMs: number;
  intervalMs: number;
  totals: SteadyTotals;
  laps: number;
  workers: SteadyWorkerTimes[];
  series: IntervalPoint[];
}

export function mergeSteady(
  results: readonly { steady?: SteadyWorkerResult }[],
  epochMs: number,
  intervalMs: number,
): MergedSteady | undefined {
  const parts = results.flatMap((r) => (r.steady ? [r.steady] : []));
  if (!parts.length) return undefined;
  const totals = addTotals(parts.map((p) => p.totals));
  const length = Math.max(...parts.map((p) => p.intervals.length));
  const sums = Array.from({ length }, () => ({
    ops: 0,
    bytes: 0,
    errors: 0,
    retries: 0,
    throttled: 0,
    latency: undefined as Hdr.Histogram | undefined,
  }));
  for (const p of parts) {
    p.intervals.forEach((c, i) => {
      const s = sums[i]!;
      s.ops += c.ops;
      s.bytes += c.bytes;
      s.errors += c.errors;
      s.retries += c.retries;
      s.throttled += c.throttled;
      if (c.latency) (s.latency ??= newHistogram()).add(decodeHistogram(c.latency));
    });
  }
  const ms3 = (v: number) => Math.round(v * 1000) / 1000;
  const series = sums.map(
    ({ latency, ...counts }): IntervalPoint =>
      latency && latency.totalCount > 0
        ? {
            ...counts,
            p50Ms: latency.getValueAtPercentile(50) / 1000,
            p99Ms: latency.getValueAtPercentile(99) / 1000,
          }
        : counts,
  );
  return {
    releaseEpochMs: epochMs,
    intervalMs,
    totals,
    laps: Math.min(...parts.map((p) => p.laps)),
    series,
    workers: parts.map((p) => ({
      firstStartMs: ms3(p.firstStartEpochMs - epochMs),
      stoppedMs: ms3(p.stoppedEpochMs - epochMs),
      lastEndMs: ms3(p.lastEndEpochMs - epochMs),
    })),
  };
}
