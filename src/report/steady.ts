// Steady runs (--duration) in text: per contender, the rate over the active window, the series as a
// sparkline with its range, throttling onset and --autoterm. The HTML report draws the series as lines.
import type { ContenderStats } from '../analysis/analyze.js';
import { median } from '../analysis/stats.js';
import type { IntervalPoint } from '../results/schema.js';

const BARS = '▁▂▃▄▅▆▇█';

const MiB = 1024 * 1024;

import { seconds } from './format.js';

export { seconds };

/** Per interval: MiB/s, or requests/s where nothing moves (listing, HEAD). */
export function intervalRates(series: readonly IntervalPoint[], intervalMs: number, perByte: boolean): number[] {
  return series.map((p) => (perByte ? p.bytes / MiB : p.ops) / (intervalMs / 1000));
}

/** One character per value, scaled from 0 to the largest. */
export function sparkline(values: readonly number[]): string {
  const max = Math.max(0, ...values);
  return values.map((v) => (max > 0 ? BARS[Math.min(BARS.length - 1, Math.floor((v / max) * (BARS.length - 1) + 0.5))]! : BARS[0]!)).join('');
}

// A rate that does not exist (no interval) prints as "—", never NaN or Infinity.
const rate = (v: number, perByte: boolean) => (!Number.isFinite(v) ? '—' : perByte ? `${v.toFixed(1)} MiB/s` : `${v.toFixed(0)} req/s`);

/** The steady-state block as lines; empty when no contender ran steady. */
export function steadyLines(stats: readonly ContenderStats[], width = 60): string[] {
  const steady = stats.filter((s) => s.steady);
  if (!steady.length) return [];
  const first = steady[0]!.steady!;
  const lines = ['', `steady state (--duration ${seconds(first.durationMs)}, one point every ${seconds(first.intervalMs)}; rates over the active window, when every worker was issuing; time = one pass at that rate):`];
  for (const s of steady) {
    const st = s.steady!;
    const rates = intervalRates(st.series, st.intervalMs, st.perByte);
    const f = st.window;
    const active = st.perByte ? s.throughputMiBps.median : s.opsPerSecond.median;
    const window = f.windowed ? `active ${seconds(f.activeStartMs)}–${seconds(f.activeEndMs)}` : 'no whole interval had every worker issuing: over the whole run';
    lines.push(`  ${s.label}: ${rate(active, st.perByte)}, ${s.opsPerSecond.median.toFixed(0)} req/s (${window})`);
    // Long series are shown in buckets so the line fits; the range is of the intervals themselves.
    const step = Math.max(1, Math.ceil(rates.length / width));
    const shown = Array.from({ length: Math.ceil(rates.length / step) }, (_, i) => median(rates.slice(i * step, (i + 1) * step)));
    lines.push(`    ${sparkline(shown)}  per ${step > 1 ? `${step} intervals` : 'interval'}: min ${rate(Math.min(...rates), st.perByte)}, median ${rate(median(rates), st.perByte)}, max ${rate(Math.max(...rates), st.perByte)}`);
    const p99 = st.series.flatMap((p) => (p.p99Ms === undefined ? [] : [p.p99Ms]));
    if (p99.length) lines.push(`    p99 latency per interval: ${Math.min(...p99).toFixed(1)}–${Math.max(...p99).toFixed(1)} ms`);
    const errors = st.series.reduce((a, p) => a + p.errors, 0);
    if (errors) lines.push(`    errors in ${st.series.filter((p) => p.errors).length} of ${st.series.length} intervals (${errors} requests)`);
    const throttled = st.figures.filter((x) => x.firstThrottledMs !== undefined);
    if (throttled.length) {
      const onset = st.figures.find((x) => x.throttleOnsetMs !== undefined);
      lines.push(`    throttled (429/503) from ${seconds(throttled[0]!.firstThrottledMs!)}${onset ? `; throughput dropped at ${seconds(onset.throttleOnsetMs!)}: throttling onset` : ', with no drop in throughput'}`);
    }
    for (const a of st.autoterm) {
      lines.push(`    --autoterm ended a run at ${seconds(Math.round(a.atMs))} of ${seconds(st.durationMs)}: its rate had stayed within ±${+(a.tolerance * 100).toFixed(2)}% for ${seconds(a.windowMs)}`);
    }
  }
  return lines;
}
