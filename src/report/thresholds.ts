// The pass/fail table of --threshold's rows, as each format shows it: console lines, Markdown, CSV
// columns and an HTML section. It only formats what analysis/thresholds.ts decided.
import type { Report } from '../analysis/report-model.js';
import type { ThresholdRow } from '../analysis/thresholds.js';
import { escapeHtml as e } from './format.js';

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
  const ruleW = Math.max(...rows.map((x) => x.threshold.length));
  const whoW = Math.max(...rows.map((x) => x.contender.length));
  return ['', summary(rows), ...rows.map((x) => {
    const line = `  ${word(x)}  ${x.threshold.padEnd(ruleW)}  ${x.contender.padEnd(whoW)}  ${x.note}`;
    return x.passed ? line : paint('31', line);
  })];
}

const mdCell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ').replace(/</g, '&lt;');

export function thresholdMarkdown(r: Report): string[] {
  const rows = r.thresholds?.rows;
  if (!rows?.length) return [];
  return [
    '', '### Thresholds', '', `${summary(rows)}.`, '',
    '| result | threshold | contender | measured |', '| --- | --- | --- | --- |',
    ...rows.map((x) => `| ${[word(x), x.threshold, x.contender, x.note].map(mdCell).join(' | ')} |`),
  ];
}

type Cells = (label: string) => (string | undefined)[];

/** CSV: a column per rule, `threshold: RULE`; each cell pass, fail, or empty where the rule names another. */
export function thresholdColumns(r: Report): { names: string[]; cells: Cells } {
  const rows = r.thresholds?.rows ?? [];
  const rules = [...new Set(rows.map((x) => x.threshold))];
  return {
    names: rules.map((t) => `threshold: ${t}`),
    cells: (label) => rules.map((t) => {
      // A claim's row names both its contenders, `a vs b`.
      const mine = rows.filter((x) => x.threshold === t && x.contender.split(' vs ').includes(label));
      return mine.length ? (mine.every((x) => x.passed) ? 'pass' : 'fail') : undefined;
    }),
  };
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
  return `<section id="thresholds"><h2>Thresholds</h2><p class="lede">${e(summary(rows))}.</p>` +
    `<table><thead><tr>${head}</tr></thead><tbody>${rows.map(tr).join('')}</tbody></table></section>`;
}
