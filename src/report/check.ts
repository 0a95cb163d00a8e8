// `check`'s answer in each of its formats: it only formats the CheckReport analysis/baseline.ts built.
import type { CheckReport, CheckRow } from '../analysis/baseline.js';
import type { CheckFormat } from '../config/options.js';
import { num } from './format.js';
import { csvCell, forMarkdown as mdCell, forTerminal, toJson } from './safe-text.js';
import { renderJunit } from './junit.js';

const pct = (v: number) => (Number.isFinite(v) ? `${v >= 0 ? '+' : ''}${(v * 100).toFixed(1)}%` : '—');
const result = (r: CheckRow) => (r.failed ? 'FAIL' : 'ok');
const percent = (share: number) => `${(share * 100).toFixed(0)}%`;
const regressed = (x: CheckRow) => `${x.contender} ${x.figure} regressed ${pct(x.change)}`;

function headline(r: CheckReport): string {
  const failed = r.rows.filter((x) => x.failed);
  const tol = `tolerance ${percent(r.tolerance)} throughput, ${percent(r.p99Tolerance)} p99`;
  return failed.length
    ? `check FAILED: ${failed.map(regressed).join(', ')} (${tol})`
    : `check passed: no regression beyond the tolerance (${tol})`;
}

function onlyLines(r: CheckReport): string[] {
  return [
    ...(r.onlyInResults.length ? [`not in the baseline (not compared): ${r.onlyInResults.join(', ')}`] : []),
    ...(r.onlyInBaseline.length ? [`in the baseline only: ${r.onlyInBaseline.join(', ')}`] : []),
  ];
}

const environment = (r: CheckReport) =>
  Object.entries(r.fingerprint)
    .map(([k, v]) => `${k} ${v}`)
    .join('; ');
/** The columns every table format shows, as text. */
const cellsOf = (x: CheckRow) => [
  result(x),
  x.contender,
  x.figure,
  `${num(x.baseline)} ${x.unit}`,
  `${num(x.current)} ${x.unit}`,
  pct(x.change),
  `${x.verdict} (${x.note})`,
];
const HEAD = ['', 'contender', 'figure', 'baseline', 'new', 'change', 'verdict'];

function consoleText(r: CheckReport): string {
  // Escaped before the widths are taken: a column is as wide as what the terminal shows.
  const rows = r.rows.map((x) => cellsOf(x).map(forTerminal));
  const w = HEAD.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  // The figures right-aligned, the verdict last and unpadded.
  const pad = (c: string, i: number, n: number) => {
    if (i === n - 1) return c;
    return i >= 3 && i <= 5 ? c.padStart(w[i]!) : c.padEnd(w[i]!);
  };
  const line = (cells: string[]) =>
    cells
      .map((c, i) => pad(c, i, cells.length))
      .join('  ')
      .trimEnd();
  return [
    `blob-cacher check: ${forTerminal(r.results.path)} against the median of ` +
      `${r.baselines.length} baseline file(s) in the same environment`,
    `environment: ${forTerminal(environment(r))}`,
    '',
    line(HEAD),
    ...rows.map(line),
    ...onlyLines(r).map(forTerminal),
    '',
    forTerminal(headline(r)),
  ].join('\n');
}

const mdRow = (cells: string[]) => `| ${cells.map(mdCell).join(' | ')} |`;

function markdown(r: CheckReport): string {
  return [
    `## blob-cacher check: ${mdCell(r.results.path)}`,
    '',
    `- Baseline: the median of ${r.baselines.length} file(s): ` +
      r.baselines.map((b) => mdCell(b.path)).join(', '),
    `- Environment: ${mdCell(environment(r))}`,
    '',
    `**${mdCell(headline(r))}**`,
    '',
    mdRow(['result', ...HEAD.slice(1)]),
    `|${' --- |'.repeat(HEAD.length)}`,
    ...r.rows.map((x) => mdRow(cellsOf(x))),
    ...onlyLines(r).map((l) => `\n- ${mdCell(l)}`),
  ].join('\n');
}

function csv(r: CheckReport): string {
  const head = [
    'contender',
    'figure',
    'unit',
    'baseline',
    'new',
    'change',
    'verdict',
    'p',
    'n_baseline',
    'n_new',
    'tolerance',
    'failed',
    'note',
  ];
  const rows = r.rows.map((x) => [
    x.contender,
    x.figure,
    x.unit,
    x.baseline,
    x.current,
    x.change,
    x.verdict,
    x.p,
    x.nBaseline,
    x.nCurrent,
    x.tolerance,
    x.failed,
    x.note,
  ]);
  return [head, ...rows].map((row) => row.map(csvCell).join(',')).join('\n');
}

/** Each contender's figure a test, failing where it regressed beyond the tolerance. */
function junit(r: CheckReport): string {
  const baselines = r.baselines.map((b, i) => ({ name: `baseline.${i + 1}`, value: b.path }));
  const properties = [{ name: 'results', value: r.results.path }, ...baselines];
  return renderJunit(
    [
      {
        name: 'check',
        properties,
        cases: r.rows.map((x) => ({
          name: `${x.contender} ${x.figure}`,
          classname: 'blob-cacher.check',
          timeS: 0,
          ...(x.failed ? { failure: { message: regressed(x), type: 'regression', detail: x.note } } : {}),
        })),
      },
    ],
    r.results.createdAt,
  );
}

export function renderCheck(r: CheckReport, format: CheckFormat): string {
  switch (format) {
    case 'console':
      return consoleText(r);
    case 'md':
      return markdown(r);
    case 'csv':
      return csv(r);
    case 'json':
      return toJson(r);
    case 'junit':
      return junit(r);
  }
}
