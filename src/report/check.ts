// `check`'s answer in each of its formats: it only formats the CheckReport analysis/baseline.ts built.
import type { CheckReport, CheckRow } from '../analysis/baseline.js';
import type { CheckFormat } from '../config/options.js';
import { num, raw } from './format.js';
import { renderJunit } from './junit.js';

const pct = (v: number) => (Number.isFinite(v) ? `${v >= 0 ? '+' : ''}${(v * 100).toFixed(1)}%` : '—');
const result = (r: CheckRow) => (r.failed ? 'FAIL' : 'ok');

function headline(r: CheckReport): string {
  const failed = r.rows.filter((x) => x.failed);
  const tol = `tolerance ${(r.tolerance * 100).toFixed(0)}% throughput, ${(r.p99Tolerance * 100).toFixed(0)}% p99`;
  return failed.length
    ? `check FAILED: ${failed.map((x) => `${x.contender} ${x.figure} regressed ${pct(x.change)}`).join(', ')} (${tol})`
    : `check passed: no regression beyond the tolerance (${tol})`;
}

function onlyLines(r: CheckReport): string[] {
  return [
    ...(r.onlyInResults.length ? [`not in the baseline (not compared): ${r.onlyInResults.join(', ')}`] : []),
    ...(r.onlyInBaseline.length ? [`in the baseline only: ${r.onlyInBaseline.join(', ')}`] : []),
  ];
}

function consoleText(r: CheckReport): string {
  const head = ['', 'contender', 'figure', 'baseline', 'new', 'change', 'verdict'];
  const rows = r.rows.map((x) => [result(x), x.contender, x.figure, `${num(x.baseline)} ${x.unit}`, `${num(x.current)} ${x.unit}`, pct(x.change), `${x.verdict} (${x.note})`]);
  const w = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === cells.length - 1 ? c : i >= 3 && i <= 5 ? c.padStart(w[i]!) : c.padEnd(w[i]!))).join('  ').trimEnd();
  return [
    `blob-cacher check: ${r.results.path} against the median of ${r.baselines.length} baseline file(s) in the same environment`,
    `environment: ${Object.entries(r.fingerprint).map(([k, v]) => `${k} ${v}`).join('; ')}`,
    '', line(head), ...rows.map(line), ...onlyLines(r), '', headline(r),
  ].join('\n');
}

const mdCell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ').replace(/</g, '&lt;');

function markdown(r: CheckReport): string {
  return [
    `## blob-cacher check: ${mdCell(r.results.path)}`, '',
    `- Baseline: the median of ${r.baselines.length} file(s): ${r.baselines.map((b) => mdCell(b.path)).join(', ')}`,
    `- Environment: ${mdCell(Object.entries(r.fingerprint).map(([k, v]) => `${k} ${v}`).join('; '))}`, '',
    `**${mdCell(headline(r))}**`, '',
    '| result | contender | figure | baseline | new | change | verdict |', '| --- | --- | --- | --- | --- | --- | --- |',
    ...r.rows.map((x) => `| ${result(x)} | ${mdCell(x.contender)} | ${x.figure} | ${num(x.baseline)} ${x.unit} | ${num(x.current)} ${x.unit} | ${pct(x.change)} | ${x.verdict} (${mdCell(x.note)}) |`),
    ...onlyLines(r).map((l) => `\n- ${mdCell(l)}`),
  ].join('\n');
}

function csv(r: CheckReport): string {
  const cell = (v: unknown) => {
    const s = typeof v === 'number' ? raw(v) : v === undefined ? '' : String(v);
    return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  const head = ['contender', 'figure', 'unit', 'baseline', 'new', 'change', 'verdict', 'p', 'n_baseline', 'n_new', 'tolerance', 'failed', 'note'];
  const rows = r.rows.map((x) => [x.contender, x.figure, x.unit, x.baseline, x.current, x.change, x.verdict, x.p, x.nBaseline, x.nCurrent, x.tolerance, x.failed, x.note]);
  return [head, ...rows].map((row) => row.map(cell).join(',')).join('\n');
}

export function renderCheck(r: CheckReport, format: CheckFormat): string {
  switch (format) {
    case 'console': return consoleText(r);
    case 'md': return markdown(r);
    case 'csv': return csv(r);
    case 'json': return JSON.stringify(r, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 2);
    // Each contender's figure a test, failing where it regressed beyond the tolerance.
    case 'junit': return renderJunit([{
      name: 'check', properties: [{ name: 'results', value: r.results.path }, ...r.baselines.map((b, i) => ({ name: `baseline.${i + 1}`, value: b.path }))],
      cases: r.rows.map((x) => ({
        name: `${x.contender} ${x.figure}`, classname: 'blob-cacher.check', timeS: 0,
        ...(x.failed ? { failure: { message: `${x.contender} ${x.figure} regressed ${pct(x.change)}`, type: 'regression', detail: x.note } } : {}),
      })),
    }], r.results.createdAt);
  }
}
