// The per-size-bucket figures of a run of drawn file sizes (analysis/size-buckets.ts), formatted for
// each renderer: console lines (compact by default, one table per contender with --details),
// Markdown tables, CSV columns and an HTML chart with its table. Formatting only.
import type { Report } from '../analysis/report-model.js';
import type { ContenderSizeBuckets, ReportSizeBuckets, SizeBucket } from '../analysis/size-buckets.js';
import { escapeHtml as e, num } from './format.js';
import { forMarkdown as md, forTerminal } from './safe-text.js';
import type { Medium, Table } from '../analysis/columns.js';
import { bucketRange, sizeLabel, textTable } from './cells.js';

const range = bucketRange;

const lede = (r: Report) =>
  `by object size (seed ${r.sizeBuckets?.seed ?? '—'})` +
  `${r.sizeBuckets?.sampled ? ', from a sample of the requests' : ''}: MiB/s and req/s are one request ` +
  "stream's (bytes over summed request time, less socket queueing)";

/** One contender's buckets as a medium shows them: the headers, then a row of cells per bucket. */
function table(r: Report, c: ContenderSizeBuckets, medium: Medium): { head: string[]; rows: string[][] } {
  const t: Table | undefined = r.tables.sizeBuckets.find((x) => x.contender === c.contender)?.table;
  return t ? textTable(t, medium) : { head: [], rows: [] };
}

function aligned(table: string[][]): string[] {
  const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  const cell = (c: string, i: number) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!));
  return table.map((r) => r.map(cell).join('  ').trimEnd());
}

/**
 * Console: by default the recommended (else first) contender's buckets as columns, five lines; with
 * details, a table of rows per contender.
 */
export function sizeBucketLines(r: Report, details: boolean): string[] {
  const s = r.sizeBuckets;
  if (!s) return [];
  if (details) {
    return [
      '',
      `per size bucket, ${lede(r)}:`,
      ...s.contenders.flatMap((c) => {
        const t = table(r, c, 'console');
        const lines = aligned([t.head, ...t.rows].map((row) => row.map(forTerminal)));
        return [`${forTerminal(c.contender)}:`, ...lines.map((l) => `  ${l}`)];
      }),
    ];
  }
  const c = s.contenders.find((x) => x.contender === r.recommendation?.contender) ?? s.contenders[0]!;
  // Transposed: a bucket a column, a figure a line.
  const { head: names, rows: cols } = table(r, c, 'console-brief');
  const widths = cols.map((col) => Math.max(...col.map((v) => v.length)));
  const nameW = Math.max(...names.map((n) => n.length));
  const cells = (i: number) => cols.map((col, j) => col[i]!.padStart(widths[j]!)).join(' ');
  const line = (n: string, i: number) => `${n.padEnd(nameW)}  ${cells(i)}`;
  return ['', forTerminal(`${c.contender} ${lede(r)}`), ...names.map(line)];
}

/** Markdown: a section with one table per contender. */
export function sizeBucketMarkdown(r: Report): string[] {
  const s = r.sizeBuckets;
  if (!s) return [];
  return [
    '',
    '### By object size',
    '',
    md(`Requests ${lede(r)}.`),
    ...s.contenders.flatMap((c) => {
      const t = table(r, c, 'md');
      return [
        '',
        `**${md(c.contender)}**`,
        '',
        `| ${t.head.join(' | ')} |`,
        `|${' --- |'.repeat(t.head.length)}`,
        ...t.rows.map((row) => `| ${row.map(md).join(' | ')} |`),
      ];
    }),
  ];
}

const W = 960;
const LEFT = 70;
const RIGHT = 20;
const TOP = 14;
const PLOT_H = 240;
const BOTTOM = 48;

const text = (x: number, y: number, cls: string, anchor: string, body: string) =>
  `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" class="${cls}" text-anchor="${anchor}">${e(body)}</text>`;

/** The chart: MiB/s of one request stream per size bucket (a log axis of sizes), a line per contender. */
function chart(s: ReportSizeBuckets, colour: (contender: string) => string): string {
  const { contenders, edgesBytes: edges } = s;
  const height = TOP + PLOT_H + BOTTOM;
  const plotW = W - LEFT - RIGHT;
  const most = Math.max(1e-9, s.fastestMiBps);
  const at0to1 = (edge: number) => (edges.length < 2 ? 0.5 : edges.indexOf(edge) / (edges.length - 1));
  const x = (edge: number) => LEFT + at0to1(edge) * plotW;
  const y = (v: number) => TOP + PLOT_H - (v / most) * PLOT_H;
  const label = 'Throughput of one request stream by object size, MiB/s';
  const parts = [
    `<svg data-chart="size-buckets" viewBox="0 0 ${W} ${height}" role="img" ` + `aria-label="${e(label)}">`,
  ];
  for (const f of [0, 0.25, 0.5, 0.75, 1]) {
    const at = y(most * f).toFixed(1);
    parts.push(`<line class="grid" x1="${LEFT}" x2="${W - RIGHT}" y1="${at}" y2="${at}"/>`);
    parts.push(text(LEFT - 6, y(most * f) + 4, 'tick', 'end', num(most * f)));
  }
  for (const edge of edges) {
    parts.push(text(x(edge), TOP + PLOT_H + 18, 'tick', 'middle', `≤${sizeLabel(edge)}`));
  }
  const caption = 'object size bucket · MiB/s of one request stream';
  parts.push(text(LEFT + plotW / 2, height - 6, 'axis', 'middle', caption));
  for (const c of contenders) {
    const name = e(c.contender);
    const fill = colour(c.contender);
    const at = (b: SizeBucket) => `${x(b.upToBytes).toFixed(1)},${y(b.perRequestMiBps).toFixed(1)}`;
    const points = c.buckets.map(at).join(' ');
    parts.push(`<polyline fill="none" stroke="${fill}" stroke-width="2" points="${points}"/>`);
    for (const b of c.buckets) {
      const [cx, cy] = at(b).split(',');
      const title =
        `${c.contender} ${range(b)}: ${num(b.perRequestMiBps)} MiB/s, ${b.requests} requests, ` +
        `p50 ${num(b.p50Ms)} ms, p99 ${num(b.p99Ms)} ms`;
      parts.push(
        `<circle class="datum" data-strategy="${name}" data-bucket="${b.upToBytes}" ` +
          `data-value="${b.perRequestMiBps}" cx="${cx}" cy="${cy}" r="4" fill="${fill}">` +
          `<title>${e(title)}</title></circle>`,
      );
    }
  }
  parts.push('</svg>');
  return parts.join('');
}

function htmlTable(r: Report, c: ContenderSizeBuckets, colour: (contender: string) => string): string {
  const t = table(r, c, 'html');
  const head = `<tr>${t.head.map((h) => `<th>${e(h)}</th>`).join('')}</tr>`;
  const body = t.rows.map((row) => `<tr>${row.map((v) => `<td>${e(v)}</td>`).join('')}</tr>`).join('');
  return (
    `<h3><span class="swatch" style="background:${colour(c.contender)}"></span>${e(c.contender)}</h3>` +
    `<table class="size-buckets"><thead>${head}</thead><tbody>${body}</tbody></table>`
  );
}

/** HTML: the chart, then each contender's table. */
export function sizeBucketSection(r: Report, colour: (contender: string) => string): string {
  const s = r.sizeBuckets;
  if (!s) return '';
  const lead = `Requests ${lede(r)}. Where the line flattens, per-request overhead has stopped dominating.`;
  return (
    `<section id="size-buckets"><h2>By object size</h2><p class="lede">${e(lead)}</p>` +
    `${chart(s, colour)}${s.contenders.map((c) => htmlTable(r, c, colour)).join('')}</section>`
  );
}
