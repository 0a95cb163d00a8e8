// A training run's figures (analysis/train.ts), formatted for each renderer: console lines, a Markdown
// section, CSV columns on each contender's row, an HTML section with a utilisation chart by prefetch
// depth. Formatting only: every figure and the verdict come from the report.
import type { Report } from '../analysis/report-model.js';
import type { ReportTrain, TrainFigures } from '../analysis/train.js';
import { escapeHtml as e, num } from './format.js';
import { forMarkdown as md, forTerminal } from './safe-text.js';

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

const HEAD = [
  'contender',
  'utilisation',
  'runs (low–high)',
  'per epoch',
  'samples/s',
  'MiB/s',
  'wait p50 ms',
  'wait p99 ms',
  'pass',
];

function row(c: TrainFigures): string[] {
  return [
    c.contender,
    pct(c.utilisation),
    `${pct(c.lowest)}–${pct(c.highest)}`,
    c.perEpoch.map((u) => (u * 100).toFixed(0)).join(' '),
    num(c.samplesPerSecond),
    num(c.mibPerSecond),
    num(c.waitP50Ms),
    num(c.waitP99Ms),
    c.passes ? 'yes' : 'no',
  ];
}

const lede = (t: ReportTrain) =>
  "accelerator utilisation (compute / wall time, MLPerf Storage's AU)" +
  `${t.preset ? `, preset ${t.preset}` : ''}: ${t.epochs} epoch(s), batch ${t.batchSize}, ` +
  `compute ${num(t.computeMs)} ms a batch, pass mark ${pct(t.passMark)}`;

function aligned(table: string[][]): string[] {
  const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  const cell = (c: string, i: number) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!));
  return table.map((r) => r.map(cell).join('  ').trimEnd());
}

/** Console: the table and the verdict, without --details too (utilisation is a training run's answer). */
export function trainLines(r: Report): string[] {
  const t = r.train;
  if (!t) return [];
  const table = aligned([HEAD, ...t.contenders.map(row)].map((cells) => cells.map(forTerminal)));
  return ['', forTerminal(lede(t)), ...table, '', ...t.verdict.map((v) => `train: ${forTerminal(v)}`)];
}

export function trainMarkdown(r: Report): string[] {
  const t = r.train;
  if (!t) return [];
  return [
    '',
    '### Accelerator utilisation',
    '',
    md(`${lede(t)}.`),
    '',
    `| ${HEAD.join(' | ')} |`,
    `|${' --- |'.repeat(HEAD.length)}`,
    ...t.contenders.map((c) => `| ${row(c).map(md).join(' | ')} |`),
    '',
    ...t.verdict.map((v) => `- ${md(v)}`),
  ];
}

const W = 960;
const LEFT = 70;
const TOP = 14;
const PLOT_H = 200;
const BOTTOM = 40;

/** Utilisation against prefetch depth, a line per group of contenders that differ only in depth. */
function chart(t: ReportTrain, colour: (contender: string) => string): string {
  if (!t.plateaus.length) return '';
  const { depths } = t;
  const x = (d: number) =>
    LEFT + (depths.length < 2 ? 0.5 : depths.indexOf(d) / (depths.length - 1)) * (W - LEFT - 20);
  const y = (u: number) => TOP + PLOT_H - Math.min(1, u) * PLOT_H;
  const markY = y(t.passMark).toFixed(1);
  const lines = t.plateaus.map((p) => {
    const points = p.depths
      .map((d) => `${x(d.prefetch).toFixed(1)},${y(d.utilisation).toFixed(1)}`)
      .join(' ');
    const stroke = colour(p.contenders[0]!);
    return (
      `<polyline fill="none" stroke="${stroke}" stroke-width="2" points="${points}">` +
      `<title>${e(p.group)}</title></polyline>`
    );
  });
  const ticks = depths.map(
    (d) =>
      `<text x="${x(d).toFixed(1)}" y="${TOP + PLOT_H + 18}" class="tick" text-anchor="middle">${d}</text>`,
  );
  return (
    `<svg data-chart="train-utilisation" viewBox="0 0 ${W} ${TOP + PLOT_H + BOTTOM}" role="img" ` +
    `aria-label="Accelerator utilisation by prefetch depth">` +
    `<line x1="${LEFT}" x2="${W - 20}" y1="${markY}" y2="${markY}" stroke="#c00" stroke-dasharray="4 4"/>` +
    `<text x="${LEFT - 6}" y="${markY}" class="tick" text-anchor="end">${e(pct(t.passMark))}</text>` +
    `${lines.join('')}${ticks.join('')}` +
    `<text x="${(W / 2).toFixed(0)}" y="${TOP + PLOT_H + 36}" class="tick" text-anchor="middle">` +
    'prefetch depth</text></svg>'
  );
}

export function trainSection(r: Report, colour: (contender: string) => string): string {
  const t = r.train;
  if (!t) return '';
  const head = HEAD.map((h) => `<th>${e(h)}</th>`).join('');
  const rows = t.contenders
    .map(
      (c) =>
        `<tr>${row(c)
          .map((v) => `<td>${e(v)}</td>`)
          .join('')}</tr>`,
    )
    .join('');
  return (
    `<section id="train"><h2>Accelerator utilisation</h2><p class="lede">${e(lede(t))}.</p>` +
    `<ul>${t.verdict.map((v) => `<li>${e(v)}</li>`).join('')}</ul>${chart(t, colour)}` +
    `<table><thead><tr>${head}</tr></thead><tbody>${rows}</tbody></table></section>`
  );
}
