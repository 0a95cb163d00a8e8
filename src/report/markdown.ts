// The report in Markdown: the recommendation first, then the ranked table, verdicts, warnings and
// the sweep grid as lists and tables, so nothing collapses into one paragraph.
import type { Report } from '../analysis/report-model.js';
import { columnsFor, headerFor, textCell } from './cells.js';
import { bytes, num, timeWentLine } from './format.js';
import { completionLines } from './completion.js';
import { openLoopLines, rateCurveLines } from './open-loop.js';
import { environmentLine, manyBlobLine } from './console.js';
import { tuneLines } from './tune.js';
import { forMarkdown as md, markdownCode } from './safe-text.js';
import { thresholdMarkdown } from './thresholds.js';
import { sizeBucketMarkdown } from './size-buckets.js';
import { mixMarkdown } from './mix.js';
import { checkpointMarkdown } from './checkpoint.js';
import { trainMarkdown } from './train.js';

const row = (cells: string[]) => `| ${cells.map(md).join(' | ')} |`;
/** A header of our own words, with the data in it (swept options' names) escaped by the caller. */
const headRow = (cells: string[]) => `| ${cells.join(' | ')} |`;

/** The ranked table; a swept option's name in a header is data, escaped like any cell. */
function rankedMarkdown(r: Report): string[] {
  const columns = columnsFor(r.tables.ranked, 'md');
  const head = columns.map((c) => (c.headerFromData ? md(headerFor(c, 'md')) : headerFor(c, 'md')));
  return [
    headRow(head),
    `|${' --- |'.repeat(columns.length)}`,
    ...r.contenders.map((_, i) => row(columns.map((c) => textCell(c, c.values[i], 'md')))),
  ];
}

/** The title, what was measured where, and the answer in bold. */
function headerMarkdown(r: Report): string[] {
  const h = r.header;
  const lines = [`## ${md(h.title)}`, ''];
  lines.push(`- Target: ${md(h.target)}${h.targetOnThisMachine ? ' (on this machine)' : ''}`);
  if (h.objectSizeBytes !== undefined)
    lines.push(`- Object: ${bytes(h.objectSizeBytes)} (${h.objectSizeBytes} bytes)`);
  lines.push(`- Measured runs: ${h.runsPerContender.map((c) => `${md(c.label)} ${c.runs}`).join(', ')}`);
  lines.push(`- Environment: ${md(environmentLine(r))}`);
  if (r.recommendation) lines.push('', `**${md(r.recommendation.text)}**`);
  // A tune's lines as the console has them, as a list: Markdown would fold them into one paragraph.
  if (r.tune)
    lines.push(
      '',
      '### Tune',
      '',
      ...tuneLines(r.tune, r.unit).map((l) =>
        l.startsWith('  ') ? `  - ${markdownCode(l.trim())}` : `- ${md(l)}`,
      ),
    );
  return lines;
}

/** A section of list items, where it has any. */
const section = (title: string | undefined, items: readonly string[]): string[] =>
  items.length ? ['', ...(title ? [title, ''] : []), ...items.map((l) => `- ${md(l)}`)] : [];

/** Where the time went, the verdicts, thresholds, warnings, and the other figures as lists. */
function listsMarkdown(r: Report): string[] {
  return [
    ...section('### Where the time went', r.timeWent.map(timeWentLine)),
    ...section(
      '### Verdict',
      r.verdicts.map((v) => v.text),
    ),
    ...thresholdMarkdown(r),
    ...section(
      '### Warnings',
      r.warnings.map((w) => w.text),
    ),
    ...section(
      '### Warm-up',
      r.warmupFaults.map((f) => `${f.contender} ${f.text}`),
    ),
    ...section(
      undefined,
      r.contenders.flatMap((s) => manyBlobLine(s) ?? []),
    ),
    ...section('### Object completion', completionLines(r.contenders)),
    ...section('### Open loop', [...openLoopLines(r.contenders), ...rateCurveLines(r).map((l) => l.trim())]),
  ];
}

/** A sweep's grid: ★ the best cell, = those a rank test cannot tell from it. */
function sweepMarkdown(r: Report): string[] {
  if (!r.sweep?.grid.cols.length) return [];
  const g = r.sweep.grid;
  const mark = (i: number, j: number) =>
    g.best?.row === i && g.best.col === j
      ? ' ★'
      : g.tied?.some((t) => t.row === i && t.col === j)
        ? ' ='
        : '';
  return [
    '',
    `### Sweep: ${md(g.title)}`,
    '',
    row([g.rowLabel, ...g.cols.map((c) => `${g.colLabel} ${c}`)]),
    `|${' --- |'.repeat(g.cols.length + 1)}`,
    ...g.values.map((vals, i) =>
      row([g.rows[i]!, ...vals.map((v, j) => `${v === null ? 'failed' : num(v)}${mark(i, j)}`)]),
    ),
    '',
    '★ best cell; = no significant difference from it.',
    ...(r.sweep.sdkAdvice.length ? ['', ...r.sweep.sdkAdvice.map((l) => `- ${md(l.trim())}`)] : []),
  ];
}

function serverClockMarkdown(r: Report): string[] {
  if (!r.serverClock.length) return [];
  return [
    '',
    "### Server clock (the target's own span of each contender's data requests, median)",
    '',
    ...r.serverClock.map(
      (g) =>
        `- ${md(g.contender)}: client ${num(g.clientMs)} ms, server ${num(g.serverMs)} ms ` +
        `(${g.ms >= 0 ? '+' : ''}${num(g.ms)} ms; bound ${num(g.boundMs)} ms)`,
    ),
  ];
}

export function renderMarkdown(r: Report): string {
  return [
    ...headerMarkdown(r),
    '',
    ...rankedMarkdown(r),
    ...listsMarkdown(r),
    ...trainMarkdown(r),
    ...sizeBucketMarkdown(r),
    ...mixMarkdown(r),
    ...checkpointMarkdown(r),
    ...sweepMarkdown(r),
    ...serverClockMarkdown(r),
    '',
    `Prices: ${md(r.prices.name)}, as of ${md(r.prices.asOf)}.`,
  ].join('\n');
}
