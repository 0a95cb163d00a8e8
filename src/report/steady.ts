// Steady runs (--duration) in text: per contender, the rate over the active window, the series as a
// sparkline with its range, throttling onset and --autoterm. The figures come from the model
// (analysis/steady.ts); the HTML report draws the series as lines.
import type { ContenderStats } from '../analysis/analyze.js';
import type { CellValue } from '../analysis/columns.js';
import type { ReportTables } from '../analysis/report-model.js';
import { seconds } from './format.js';

const BARS = '▁▂▃▄▅▆▇█';

export { seconds };

/** One character per value, scaled from 0 to the largest (`highest`, from the model). */
export function sparkline(values: readonly CellValue[], max: number): string {
  return values
    .map((v) => (typeof v === 'number' ? v : 0))
    .map((v) =>
      max > 0 ? BARS[Math.min(BARS.length - 1, Math.floor((v / max) * (BARS.length - 1) + 0.5))]! : BARS[0]!,
    )
    .join('');
}

// A rate that does not exist (no interval) prints as "—", never NaN or Infinity.
const rate = (v: number, perByte: boolean) =>
  !Number.isFinite(v) ? '—' : perByte ? `${v.toFixed(1)} MiB/s` : `${v.toFixed(0)} req/s`;

/** The steady-state block as lines; empty when no contender ran steady. */
export function steadyLines(stats: readonly ContenderStats[], series: ReportTables['steady']): string[] {
  const steady = stats.filter((s) => s.steady);
  if (!steady.length) return [];
  const first = steady[0]!.steady!;
  const lines = [
    '',
    `steady state (--duration ${seconds(first.durationMs)}, one point every ` +
      `${seconds(first.intervalMs)}; rates over the active window, when every worker was issuing; time = ` +
      `one pass at that rate):`,
  ];
  for (const s of steady) {
    const st = s.steady!;
    const r = st.rates;
    const f = st.window;
    const active = st.perByte ? s.throughputMiBps.median : s.opsPerSecond.median;
    const window = f.windowed
      ? `active ${seconds(f.activeStartMs)}–${seconds(f.activeEndMs)}`
      : 'no whole interval had every worker issuing: over the whole run';
    lines.push(
      `  ${s.label}: ${rate(active, st.perByte)}, ${s.opsPerSecond.median.toFixed(0)} req/s (${window})`,
    );
    // Long series are shown in buckets so the line fits; the range is of the intervals themselves.
    const step = r.bucketIntervals;
    const per = step > 1 ? `${step} intervals` : 'interval';
    const at = (v: number) => rate(v, st.perByte);
    const range = `min ${at(r.min)}, median ${at(r.median)}, max ${at(r.max)}`;
    const rates = series.find((x) => x.contender === s.label)?.table.columns[0];
    lines.push(`    ${sparkline(rates?.values ?? [], rates?.highest ?? 0)}  per ${per}: ${range}`);
    const p99 = r.p99RangeMs;
    if (p99) lines.push(`    p99 latency per interval: ${p99.low.toFixed(1)}–${p99.high.toFixed(1)} ms`);
    if (r.errors) {
      lines.push(`    errors in ${r.errorIntervals} of ${st.series.length} intervals (${r.errors} requests)`);
    }
    const throttled = st.figures.filter((x) => x.firstThrottledMs !== undefined);
    if (throttled.length) {
      const onset = st.figures.find((x) => x.throttleOnsetMs !== undefined);
      lines.push(
        `    throttled (429/503) from ${seconds(throttled[0]!.firstThrottledMs!)}` +
          (onset
            ? `; throughput dropped at ${seconds(onset.throttleOnsetMs!)}: throttling onset`
            : ', with no drop in throughput'),
      );
    }
    for (const a of st.autoterm) {
      lines.push(
        `    --autoterm ended a run at ${seconds(Math.round(a.atMs))} of ${seconds(st.durationMs)}: its ` +
          `rate had stayed within ±${+(a.tolerance * 100).toFixed(2)}% for ${seconds(a.windowMs)}`,
      );
    }
  }
  return lines;
}
