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

export function renderMarkdown(r: Report): string {
  const h = r.header;
  const lines = [`## ${md(h.title)}`, ''];
  lines.push(`- Target: ${md(h.target)}${h.targetOnThisMachine ? ' (on this machine)' : ''}`);
  if (h.objectSizeBytes !== undefined)
    lines.push(`- Object: ${bytes(h.objectSizeBytes)} (${h.objectSizeBytes} bytes)`);
  lines.push(`- Measured runs: ${h.runsPerContender.map((c) => `${md(c.label)} ${c.runs}`).join(', ')}`);
  lines.push(`- Environment: ${md(environmentLine(r))}`);
  if (r.recommendation) lines.push('', `**${md(r.recommendation.text)}**`);
  if (r.tune) {
    // The same lines as the console, as a list: Markdown would fold them into one paragraph.
    lines.push(
      '',
      '### Tune',
      '',
      ...tuneLines(r.tune, r.unit).map((l) =>
        l.startsWith('  ') ? `  - ${markdownCode(l.trim())}` : `- ${md(l)}`,
      ),
    );
  }
  lines.push('', ...rankedMarkdown(r));
  if (r.timeWent.length) {
    lines.push('', '### Where the time went', '', ...r.timeWent.map((t) => `- ${md(timeWentLine(t))}`));
  }
  if (r.verdicts.length) lines.push('', '### Verdict', '', ...r.verdicts.map((v) => `- ${md(v.text)}`));
  lines.push(...thresholdMarkdown(r));
  if (r.warnings.length) lines.push('', '### Warnings', '', ...r.warnings.map((w) => `- ${md(w.text)}`));
  if (r.warmupFaults.length)
    lines.push('', '### Warm-up', '', ...r.warmupFaults.map((f) => `- ${md(`${f.contender} ${f.text}`)}`));
  const many = r.contenders.map(manyBlobLine).filter((l) => l !== undefined);
  if (many.length) lines.push('', ...many.map((l) => `- ${md(l)}`));
  const completion = completionLines(r.contenders);
  if (completion.length) lines.push('', '### Object completion', '', ...completion.map((l) => `- ${md(l)}`));
  const open = [...openLoopLines(r.contenders), ...rateCurveLines(r).map((l) => l.trim())];
  if (open.length) lines.push('', '### Open loop', '', ...open.map((l) => `- ${md(l)}`));
  lines.push(...sizeBucketMarkdown(r));
  if (r.sweep?.grid.cols.length) {
    const g = r.sweep.grid;
    lines.push(
      '',
      `### Sweep: ${md(g.title)}`,
      '',
      row([g.rowLabel, ...g.cols.map((c) => `${g.colLabel} ${c}`)]),
      `|${' --- |'.repeat(g.cols.length + 1)}`,
    );
    g.values.forEach((vals, i) =>
      lines.push(
        row([
          g.rows[i]!,
          ...vals.map(
            (v, j) =>
              `${v === null ? 'failed' : num(v)}${g.best?.row === i && g.best.col === j ? ' ★' : g.tied?.some((t) => t.row === i && t.col === j) ? ' =' : ''}`,
          ),
        ]),
      ),
    );
    lines.push('', '★ best cell; = no significant difference from it.');
    if (r.sweep.sdkAdvice.length) lines.push('', ...r.sweep.sdkAdvice.map((l) => `- ${md(l.trim())}`));
  }
  if (r.serverClock.length) {
    lines.push('', "### Server clock (the target's own span of each contender's data requests, median)", '');
    for (const g of r.serverClock)
      lines.push(
        `- ${md(g.contender)}: client ${num(g.clientMs)} ms, server ${num(g.serverMs)} ms (${g.ms >= 0 ? '+' : ''}${num(g.ms)} ms; bound ${num(g.boundMs)} ms)`,
      );
  }
  lines.push('', `Prices: ${md(r.prices.name)}, as of ${md(r.prices.asOf)}.`);
  return lines.join('\n');
}
