// The per-operation figures of a mixed run (analysis/mix.ts), formatted for each renderer: console
// lines, Markdown tables, CSV columns and an HTML section. Formatting only.
import type { Report } from '../analysis/report-model.js';
import type { ContenderMix } from '../analysis/mix.js';
import { escapeHtml as e, num } from './format.js';
import { forMarkdown as md, forTerminal } from './safe-text.js';

const HEAD = ['operation', 'requests', 'failed', 'ops/s', 'p50 ms', 'p90 ms', 'p99 ms'];

const lede = (r: Report) =>
  `mix ${r.mix?.text} (seed ${r.mix?.seed})` +
  `${r.mix?.sampled ? ', percentiles from a sample of the requests' : ''}` +
  ': ops/s is each operation completed a second while the whole mix ran (median of the runs); ' +
  'request times leave out socket queueing';

/** Rows: one per operation, then every operation together. */
function rows(c: ContenderMix): string[][] {
  return [
    ...c.ops.map((o) => [
      o.op,
      String(o.requests),
      String(o.failed),
      num(o.opsPerSecond),
      num(o.p50Ms),
      num(o.p90Ms),
      num(o.p99Ms),
    ]),
    ['combined', String(c.requests), String(c.failed), num(c.combinedOpsPerSecond), '', '', ''],
  ];
}

function aligned(table: string[][]): string[] {
  const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  const cell = (c: string, i: number) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!));
  return table.map((r) => r.map(cell).join('  ').trimEnd());
}

/** Console: a table per contender. */
export function mixLines(r: Report): string[] {
  const m = r.mix;
  if (!m) return [];
  return [
    '',
    `per operation, ${forTerminal(lede(r))}:`,
    ...m.contenders.flatMap((c) => [
      `${forTerminal(c.contender)}:`,
      ...aligned([HEAD, ...rows(c)].map((row) => row.map(forTerminal))).map((l) => `  ${l}`),
    ]),
  ];
}

/** Markdown: a section with one table per contender. */
export function mixMarkdown(r: Report): string[] {
  const m = r.mix;
  if (!m) return [];
  return [
    '',
    '### By operation',
    '',
    md(`Requests of the ${lede(r)}.`),
    ...m.contenders.flatMap((c) => [
      '',
      `**${md(c.contender)}**`,
      '',
      `| ${HEAD.join(' | ')} |`,
      `|${' --- |'.repeat(HEAD.length)}`,
      ...rows(c).map((row) => `| ${row.map(md).join(' | ')} |`),
    ]),
  ];
}

/** HTML: each contender's table. */
export function mixSection(r: Report, colour: (contender: string) => string): string {
  const m = r.mix;
  if (!m) return '';
  const head = `<tr>${HEAD.map((h) => `<th>${e(h)}</th>`).join('')}</tr>`;
  const table = (c: ContenderMix) =>
    `<h3><span class="swatch" style="background:${colour(c.contender)}"></span>${e(c.contender)}</h3>` +
    `<table class="size-buckets"><thead>${head}</thead><tbody>` +
    rows(c)
      .map((row) => `<tr>${row.map((v) => `<td>${e(v)}</td>`).join('')}</tr>`)
      .join('') +
    '</tbody></table>';
  return (
    `<section id="mix"><h2>By operation</h2><p class="lede">${e(`Requests of the ${lede(r)}.`)}</p>` +
    `${m.contenders.map(table).join('')}</section>`
  );
}
