// Whole-object completion beside request latency, and what --hedge did, as lines every format
// shares (console and Markdown as they are, HTML as list items); CSV has them as columns.
import type { ReportContender } from '../analysis/report-model.js';
import { bytes, num } from './format.js';

const percent = (share: number) => `${(share * 100).toFixed(share < 0.1 ? 1 : 0)}%`;

/** Object completion (first request sent to last part's end) next to the requests' own latency. */
export function completionLine(s: ReportContender): string | undefined {
  const c = s.completion;
  if (!c) return undefined;
  const l = c.latencyMs;
  const total = s.latencyMs.total;
  const straggler =
    c.stragglerShare === undefined
      ? ''
      : `; straggler share ${percent(c.stragglerShare)} ` +
        '(the slowest part running alone after the others ended)';
  return (
    `${s.label}: object completion over ${l.count} object(s), ms: p50 ${num(l.p50)} / p90 ${num(l.p90)} ` +
    `/ p99 ${num(l.p99)} / max ${num(l.max)}` +
    (total ? ` (per request: p50 ${num(total.p50)} / p99 ${num(total.p99)} / max ${num(total.max)})` : '') +
    straggler
  );
}

/** --hedge: duplicates issued and won, the extra requests (billed with the reads) and bytes. */
export function hedgeLine(s: ReportContender): string | undefined {
  const h = s.hedge;
  if (!h) return undefined;
  return (
    `${s.label}: hedged: ${h.issued} duplicate request(s) (${percent(h.extraRequestShare)} extra, ` +
    `billed with the reads), ${h.won} won by the duplicate, ${bytes(h.extraBytes)} extra received`
  );
}

/** Both, where they apply, in contender order. */
export function completionLines(contenders: readonly ReportContender[]): string[] {
  return contenders.flatMap((s) => [completionLine(s), hedgeLine(s)].filter((l) => l !== undefined));
}
