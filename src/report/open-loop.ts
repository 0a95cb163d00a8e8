// An open loop's figures (--rate) as lines every format shares (console and Markdown as they are,
// HTML as list items); CSV columns come from the ranked table.
import type { OpenLoopLatencyMs } from '../analysis/open-loop.js';
import type { Report, ReportContender } from '../analysis/report-model.js';
import { num } from './format.js';

const spread = (l: OpenLoopLatencyMs | undefined) =>
  l
    ? `p50 ${num(l.p50)} / p90 ${num(l.p90)} / p99 ${num(l.p99)} / p99.9 ${num(l.p999)} / max ${num(l.max)}`
    : 'none succeeded';
const rate = (perSecond: number) => num(perSecond);

/** Per open-loop contender: the rates and skipped sends, then its latency both ways and the send lateness. */
export function openLoopLines(contenders: readonly ReportContender[]): string[] {
  return contenders.flatMap((s) => {
    const o = s.openLoop;
    if (!o) return [];
    const share = (o.skippedShare * 100).toFixed(o.skippedShare < 0.1 ? 2 : 1);
    const skipped = `${o.skippedSends} skipped send(s) (${share}%, --max-in-flight ${o.maxInFlight})`;
    const late = o.latenessMs;
    return [
      `${s.label}: open loop ${o.arrival} at ${rate(o.ratePerSecond)}/s: ` +
        `offered ${rate(o.offeredPerSecond)}/s, achieved ${rate(o.achievedPerSecond)}/s, ${skipped}`,
      `${s.label}: latency from the intended start, ms: ${spread(o.fromIntendedMs)}`,
      `${s.label}: latency from the actual send, ms: ${spread(o.fromSendMs)}`,
      ...(late
        ? [
            `${s.label}: send lateness (send time minus intended start), ms: ` +
              `p50 ${num(late.p50)} / p99 ${num(late.p99)} / max ${num(late.max)}`,
          ]
        : []),
    ];
  });
}

/** --slo: each curve's knee, then each rate: its latency at the SLO's percentile and whether it keeps it. */
export function rateCurveLines(r: Report): string[] {
  return (r.rateCurves ?? []).flatMap((c) => {
    const slo = `p${c.slo.percentile}<${num(c.slo.boundMs)}ms`;
    const knee =
      c.kneePerSecond === undefined
        ? `no rate measured keeps --slo ${slo}`
        : `knee ${rate(c.kneePerSecond)}/s: the highest rate keeping --slo ${slo} ` +
          '(every lower one keeps it too)';
    return [
      `${c.label}: ${knee}`,
      ...c.points.map(
        (p) =>
          `  ${rate(p.ratePerSecond)}/s: p${c.slo.percentile} ${num(p.latencyMs)} ms ` +
          `from the intended start, achieved ${rate(p.achievedPerSecond)}/s, ` +
          `skipped ${(p.skippedShare * 100).toFixed(2)}%: ${p.keeps ? 'keeps' : 'misses'} it`,
      ),
    ];
  });
}
