// The pass/fail table of --threshold's rows, as each format shows it: console lines, Markdown, CSV
// columns and an HTML section. It only formats what analysis/thresholds.ts decided.
import type { Report } from '../analysis/report-model.js';
import type { ThresholdRow } from '../analysis/thresholds.js';
import { forHtml as e, forMarkdown, forTerminal } from './safe-text.js';

const word = (r: ThresholdRow) => (r.passed ? 'PASS' : 'FAIL');

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
  const shown = rows.map((x) => ({ x, rule: forTerminal(x.threshold), who: forTerminal(x.contender) }));
  const ruleW = Math.max(...shown.map((y) => y.rule.length));
  const whoW = Math.max(...shown.map((y) => y.who.length));
  return [
    '',
    summary(rows),
    ...shown.map(({ x, rule, who }) => {
      const line = `  ${word(x)}  ${rule.padEnd(ruleW)}  ${who.padEnd(whoW)}  ${forTerminal(x.note)}`;
      return x.passed ? line : paint('31', line);
    }),
  ];
}

export function thresholdMarkdown(r: Report): string[] {
  const rows = r.thresholds?.rows;
  if (!rows?.length) return [];
  return [
    '',
    '### Thresholds',
    '',
    `${summary(rows)}.`,
    '',
    '| result | threshold | contender | measured |',
    '| --- | --- | --- | --- |',
    ...rows.map((x) => `| ${[word(x), x.threshold, x.contender, x.note].map(forMarkdown).join(' | ')} |`),
  ];
}

export function thresholdHtml(r: Report): string {
  const rows = r.thresholds?.rows;
  if (!rows?.length) return '';
  const tr = (x: ThresholdRow) => {
    const style = x.passed ? '' : ' style="color:#b42318;font-weight:600"';
    const cells = [word(x), `<code>${e(x.threshold)}</code>`, e(x.contender), e(x.note)];
    const tds = cells.map((c) => `<td>${c}</td>`).join('');
    return `<tr class="${x.passed ? 'pass' : 'fail'}"${style}>${tds}</tr>`;
  };
  const head = ['result', 'threshold', 'contender', 'measured'].map((h) => `<th>${h}</th>`).join('');
  return (
    `<section id="thresholds"><h2>Thresholds</h2><p class="lede">${e(summary(rows))}.</p>` +
    `<table><thead><tr>${head}</tr></thead><tbody>${rows.map(tr).join('')}</tbody></table></section>`
  );
}
