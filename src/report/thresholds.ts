// The pass/fail table of --threshold's rows, as each format shows it: console lines, Markdown, CSV
// columns and an HTML section. It only formats what analysis/thresholds.ts decided.
import type { Report } from '../analysis/report-model.js';
import type { ThresholdRow } from '../analysis/thresholds.js';
import { textTable } from './cells.js';
import { forHtml as e, forMarkdown, forTerminal } from './safe-text.js';

function summary(rows: readonly ThresholdRow[]): string {
  const failed = rows.filter((r) => !r.passed).length;
  return failed ? `thresholds: ${failed} of ${rows.length} FAILED` : `thresholds: all ${rows.length} passed`;
}

type Paint = (code: string, text: string) => string;

/** The console table: one line per rule and contender, failed rows in red on a terminal. */
export function thresholdLines(r: Report, paint: Paint = (_c, t) => t): string[] {
  const rows = r.thresholds?.rows;
  if (!rows?.length) return [];
  // Escaped before the widths are taken: a column is as wide as what the terminal shows.
  const cells = textTable(r.tables.thresholds!, 'console', forTerminal);
  const widths = cells.head.map((_, j) => Math.max(...cells.rows.map((row) => row[j]!.length)));
  return [
    '',
    summary(rows),
    ...cells.rows.map((row, i) => {
      const padded = row.map((c, j) => (j === row.length - 1 ? c : c.padEnd(widths[j]!)));
      const line = `  ${padded.join('  ')}`;
      return rows[i]!.passed ? line : paint('31', line);
    }),
  ];
}

export function thresholdMarkdown(r: Report): string[] {
  const rows = r.thresholds?.rows;
  if (!rows?.length) return [];
  const md = textTable(r.tables.thresholds!, 'md', forMarkdown);
  return [
    '',
    '### Thresholds',
    '',
    `${summary(rows)}.`,
    '',
    `| ${md.head.join(' | ')} |`,
    `|${' --- |'.repeat(md.head.length)}`,
    ...md.rows.map((row) => `| ${row.join(' | ')} |`),
  ];
}

export function thresholdHtml(r: Report): string {
  const rows = r.thresholds?.rows;
  if (!rows?.length) return '';
  const html = textTable(r.tables.thresholds!, 'html', e);
  const ids = html.columns.map((c) => c.id);
  // The rule is code the user wrote.
  const cell = (c: string, j: number) => `<td>${ids[j] === 'threshold' ? `<code>${c}</code>` : c}</td>`;
  const tr = (x: ThresholdRow, i: number) => {
    const style = x.passed ? '' : ' style="color:#b42318;font-weight:600"';
    const tds = html.rows[i]!.map(cell).join('');
    return `<tr class="${x.passed ? 'pass' : 'fail'}"${style}>${tds}</tr>`;
  };
  const head = html.head.map((h) => `<th>${h}</th>`).join('');
  return (
    `<section id="thresholds"><h2>Thresholds</h2><p class="lede">${e(summary(rows))}.</p>` +
    `<table><thead><tr>${head}</tr></thead><tbody>${rows.map(tr).join('')}</tbody></table></section>`
  );
}
