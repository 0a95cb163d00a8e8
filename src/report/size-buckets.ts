// The per-size-bucket figures of a run of drawn file sizes (analysis/size-buckets.ts), formatted for
// each renderer: console lines (compact by default, one table per contender with --details),
// Markdown tables, CSV columns and an HTML chart with its table. Formatting only.
import type { Report } from '../analysis/report-model.js';
import type { ContenderSizeBuckets, SizeBucket } from '../analysis/size-buckets.js';
import { escapeHtml as e, fixed, num } from './format.js';
import { forMarkdown as md, forTerminal } from './safe-text.js';

/** A bucket's upper edge as a user types sizes: 4KiB, 1MiB, 1.5MiB. */
export function sizeLabel(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes;
  let i = 0;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return `${Number.isInteger(v) ? v : +v.toFixed(1)}${units[i]}`;
}

const range = (b: SizeBucket) => `${b.fromBytes ? `>${sizeLabel(b.fromBytes)}` : ''}≤${sizeLabel(b.upToBytes)}`;

const lede = (r: Report) => `by object size (seed ${r.sizeBuckets?.seed ?? '—'})${r.sizeBuckets?.sampled ? ', from a sample of the requests' : ''}`
  + ': MiB/s and req/s are one request stream\'s (bytes over summed request time, less socket queueing)';

/** Rows: one per bucket, for one contender. */
function rows(c: ContenderSizeBuckets): string[][] {
  return c.buckets.map((b) => [range(b), String(b.requests), num(b.perRequestMiBps), fixed(b.perRequestOpsPerSecond, 0), num(b.p50Ms), num(b.p90Ms), num(b.p99Ms)]);
}
const HEAD = ['size', 'requests', 'MiB/s', 'req/s', 'p50 ms', 'p90 ms', 'p99 ms'];

function aligned(table: string[][]): string[] {
  const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  return table.map((r) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ').trimEnd());
}

/**
 * Console: by default the recommended (else first) contender's buckets as columns, five lines; with
 * details, a table of rows per contender.
 */
export function sizeBucketLines(r: Report, details: boolean): string[] {
  const s = r.sizeBuckets;
  if (!s) return [];
  if (details) {
    return ['', `per size bucket, ${lede(r)}:`, ...s.contenders.flatMap((c) => [
      `${forTerminal(c.contender)}:`, ...aligned([HEAD, ...rows(c)].map((row) => row.map(forTerminal))).map((l) => `  ${l}`),
    ])];
  }
  const c = s.contenders.find((x) => x.contender === r.recommendation?.contender) ?? s.contenders[0]!;
  const cols = c.buckets.map((b) => [`≤${sizeLabel(b.upToBytes)}`, String(b.requests), num(b.perRequestMiBps), num(b.p50Ms), num(b.p99Ms)]);
  const names = ['size', 'requests', 'MiB/s', 'p50 ms', 'p99 ms'];
  const widths = cols.map((col) => Math.max(...col.map((v) => v.length)));
  const nameW = Math.max(...names.map((n) => n.length));
  return ['', forTerminal(`${c.contender} ${lede(r)}`),
    ...names.map((n, i) => `${n.padEnd(nameW)}  ${cols.map((col, j) => col[i]!.padStart(widths[j]!)).join(' ')}`)];
}

/** Markdown: a section with one table per contender. */
export function sizeBucketMarkdown(r: Report): string[] {
  const s = r.sizeBuckets;
  if (!s) return [];
  return ['', '### By object size', '', md(`Requests ${lede(r)}.`), ...s.contenders.flatMap((c) => [
    '', `**${md(c.contender)}**`, '', `| ${HEAD.join(' | ')} |`, `|${' --- |'.repeat(HEAD.length)}`,
    ...rows(c).map((row) => `| ${row.map(md).join(' | ')} |`),
  ])];
}

/** CSV: per bucket, columns added to each contender's row (empty where it had no request there). */
export function sizeBucketCsv(r: Report): { columns: string[]; cells: (contender: string) => (number | undefined)[] } {
  const s = r.sizeBuckets;
  if (!s) return { columns: [], cells: () => [] };
  const edges = [...new Set(s.contenders.flatMap((c) => c.buckets.map((b) => b.upToBytes)))].sort((a, b) => a - b);
  const fields = ['requests', 'mibps', 'ops_per_s', 'p50_ms', 'p90_ms', 'p99_ms'] as const;
  return {
    columns: edges.flatMap((edge) => fields.map((f) => `size_le_${edge}_${f}`)),
    cells: (contender) => {
      const c = s.contenders.find((x) => x.contender === contender);
      return edges.flatMap((edge) => {
        const b = c?.buckets.find((x) => x.upToBytes === edge);
        return b ? [b.requests, b.perRequestMiBps, b.perRequestOpsPerSecond, b.p50Ms, b.p90Ms, b.p99Ms] : fields.map(() => undefined);
      });
    },
  };
}

const W = 960;

/** HTML: one line per contender of MiB/s over the size buckets (a log axis of sizes), then the tables. */
export function sizeBucketSection(r: Report, colour: (contender: string) => string): string {
  const s = r.sizeBuckets;
  if (!s) return '';
  const edges = [...new Set(s.contenders.flatMap((c) => c.buckets.map((b) => b.upToBytes)))].sort((a, b) => a - b);
  const left = 70, right = 20, top = 14, plotH = 240, bottom = 48;
  const height = top + plotH + bottom;
  const most = Math.max(1e-9, ...s.contenders.flatMap((c) => c.buckets.map((b) => b.perRequestMiBps)));
  const x = (edge: number) => left + (edges.length < 2 ? 0.5 : edges.indexOf(edge) / (edges.length - 1)) * (W - left - right);
  const y = (v: number) => top + plotH - (v / most) * plotH;
  const parts = [`<svg data-chart="size-buckets" viewBox="0 0 ${W} ${height}" role="img" aria-label="Throughput of one request stream by object size, MiB/s">`];
  for (const f of [0, 0.25, 0.5, 0.75, 1]) {
    const v = most * f;
    parts.push(`<line class="grid" x1="${left}" x2="${W - right}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}"/>`,
      `<text x="${left - 6}" y="${(y(v) + 4).toFixed(1)}" class="tick" text-anchor="end">${e(num(v))}</text>`);
  }
  for (const edge of edges) parts.push(`<text x="${x(edge).toFixed(1)}" y="${top + plotH + 18}" class="tick" text-anchor="middle">≤${e(sizeLabel(edge))}</text>`);
  parts.push(`<text x="${(left + (W - left - right) / 2).toFixed(1)}" y="${height - 6}" class="axis" text-anchor="middle">object size bucket · MiB/s of one request stream</text>`);
  for (const c of s.contenders) {
    const name = e(c.contender);
    const points = c.buckets.map((b) => `${x(b.upToBytes).toFixed(1)},${y(b.perRequestMiBps).toFixed(1)}`).join(' ');
    parts.push(`<polyline fill="none" stroke="${colour(c.contender)}" stroke-width="2" points="${points}"/>`);
    for (const b of c.buckets) {
      parts.push(`<circle class="datum" data-strategy="${name}" data-bucket="${b.upToBytes}" data-value="${b.perRequestMiBps}" cx="${x(b.upToBytes).toFixed(1)}" cy="${y(b.perRequestMiBps).toFixed(1)}" r="4" fill="${colour(c.contender)}">`
        + `<title>${name} ${e(range(b))}: ${e(num(b.perRequestMiBps))} MiB/s, ${b.requests} requests, p50 ${e(num(b.p50Ms))} ms, p99 ${e(num(b.p99Ms))} ms</title></circle>`);
    }
  }
  parts.push('</svg>');
  const tables = s.contenders.map((c) => `<h3><span class="swatch" style="background:${colour(c.contender)}"></span>${e(c.contender)}</h3>`
    + `<table class="size-buckets"><thead><tr>${HEAD.map((h) => `<th>${e(h)}</th>`).join('')}</tr></thead><tbody>`
    + rows(c).map((row) => `<tr>${row.map((v) => `<td>${e(v)}</td>`).join('')}</tr>`).join('') + '</tbody></table>').join('');
  return `<section id="size-buckets"><h2>By object size</h2><p class="lede">${e(`Requests ${lede(r)}. Where the line flattens, per-request overhead has stopped dominating.`)}</p>${parts.join('')}${tables}</section>`;
}
