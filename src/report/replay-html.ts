// A replay's report as one HTML page: the summary, the per-operation table, and p50 and p99 of each
// operation replayed beside recorded as bars.
import type { ReplayOpRow, ReplayReport } from '../analysis/replay.js';
import { num } from './format.js';
import { CSS } from './html-style.js';
import { cells, HEADER, LATENCY_HEADER, replaySummary } from './replay-lines.js';
import { forHtml } from './safe-text.js';

const BAR_PX = 360;

/** One bar per figure, scaled to the largest of the page. */
function latencyBars(rows: readonly ReplayOpRow[], top: number): string {
  const bars = rows.flatMap((row) =>
    [
      ['replayed p50', row.replayedMs?.p50],
      ['recorded p50', row.recordedMs?.p50],
      ['replayed p99', row.replayedMs?.p99],
      ['recorded p99', row.recordedMs?.p99],
    ].flatMap(([label, v]) => (typeof v === 'number' ? [{ label: `${row.op} ${label}`, v }] : [])),
  );
  if (!bars.length || top <= 0) return '';
  const line = (b: { label: string; v: number }) => {
    const w = Math.max(1, Math.round((b.v / top) * BAR_PX));
    const colour = b.label.includes('recorded') ? '#8250df' : '#0969da';
    return (
      `<div><span style="display:inline-block;width:220px">${forHtml(b.label)}</span>` +
      `<span style="display:inline-block;height:12px;width:${w}px;background:${colour}"></span> ` +
      `${num(b.v)} ms</div>`
    );
  };
  return `<section><h2>Latency, replayed and recorded</h2>${bars.map(line).join('')}</section>`;
}

export function replayHtml(r: ReplayReport): string {
  const head = `<tr>${[...HEADER, ...LATENCY_HEADER].map((h) => `<th>${forHtml(h)}</th>`).join('')}</tr>`;
  const body = [...r.rows, r.total]
    .map(
      (row) =>
        `<tr>${cells(row)
          .map((c) => `<td>${forHtml(c)}</td>`)
          .join('')}</tr>`,
    )
    .join('\n');
  const errors = r.rows.flatMap((row) =>
    row.firstError ? [`${row.op}: first failure ${row.firstError}`] : [],
  );
  return [
    '<!doctype html>',
    `<html lang="en"><head><meta charset="utf-8"><title>${forHtml(r.title)}</title>`,
    `<style>${CSS}</style></head>`,
    `<body><main><header><h1>${forHtml(r.title)}</h1></header>`,
    `<ul>${replaySummary(r)
      .map((l) => `<li>${forHtml(l)}</li>`)
      .join('')}</ul>`,
    `<section><h2>By operation</h2><table>${head}\n${body}</table></section>`,
    ...errors.map((e) => `<p>${forHtml(e)}</p>`),
    latencyBars(r.rows, r.latencyTopMs),
    '</main></body></html>',
  ].join('\n');
}
