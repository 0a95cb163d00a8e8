// A tune in the HTML report: the answer, then the rate against each searched axis with every cell
// the search measured (faint), the slice through the best (joined, so the knee shows) and the chosen
// one (a ring), and the deploy lines. Pure formatting of the report model's `tune`.
import type { ReportTune, TuneNeighbour } from '../analysis/tune.js';
import type { TuneAxisPoints } from '../analysis/tune-axes.js';
import { escapeHtml as e, seconds } from './format.js';

const W = 960;
const H = 260;
const n = (v: number) => String(Number(v.toPrecision(4)));

/** One cell the search measured, placed at (x, y): its step, rate and cell in its title. */
function datum(
  p: ReportTune['path'][number],
  chosen: boolean,
  cls: string,
  unit: string,
  x: number,
  y: number,
) {
  const cell = Object.entries(p.cell)
    .map(([k, v]) => `${k} ${v}`)
    .join(' ');
  const label = `${cell}: ${n(p.rate!)} ${unit} (step ${p.step + 1})${p.throttled ? `, ${p.throttled} throttled` : ''}`;
  return (
    `<circle class="datum ${cls}" data-step="${p.step + 1}" data-value="${n(p.rate!)}" cx="` +
    `${x.toFixed(1)}" cy="${y.toFixed(1)}" r="${chosen ? 7 : 4}" fill="` +
    `${p.throttled ? '#e15759' : cls === 'explored' ? '#bab0ac' : '#4e79a7'}"` +
    `${chosen ? ' stroke="#1f2328" stroke-width="2"' : ''}><title>${e(label)}</title></circle>`
  );
}

/** One axis: x is the value (log scale: the ladder doubles), y the rate; points in the order measured. */
function axisChart(t: ReportTune, a: TuneAxisPoints, unit: string): string {
  const best = t.best?.cell;
  const { flag, ordered, values: xs } = a;
  // Only cells that have a value on this axis can be placed on it.
  const points = a.points.map((i) => t.path[i]!);
  if (!xs.length || !points.length) return '';
  const left = 64,
    right = 24,
    top = 16,
    bottom = 44;
  const maxRate = a.maxRate * 1.1 || 1;
  const position = (v: string) => {
    if (!ordered || xs.length === 1) return left + ((xs.indexOf(v) + 0.5) / xs.length) * (W - left - right);
    const lo = Math.log2(a.numbers[0]!),
      hi = Math.log2(a.numbers.at(-1)!);
    return left + ((Math.log2(a.numbers[xs.indexOf(v)]!) - lo) / (hi - lo || 1)) * (W - left - right);
  };
  const y = (rate: number) => top + (1 - rate / maxRate) * (H - top - bottom);
  // The slice through the best: cells equal to it on every other axis.
  const inSlice = new Set(a.slice);
  const slice = a.slice.map((i) => t.path[i]!);
  const parts = [
    `<svg data-chart="tune-${e(flag)}" viewBox="0 0 ${W} ${H}" role="img" ` +
      `aria-label="${e(`${unit} against ${flag}`)}">`,
  ];
  for (const v of xs)
    parts.push(
      `<text class="tick" x="${position(v).toFixed(1)}" y="${H - bottom + 18}" ` +
        `text-anchor="middle">${e(v)}</text>`,
    );
  for (const f of [0, 0.5, 1])
    parts.push(
      `<line class="grid" x1="${left}" x2="${W - right}" y1="${y((maxRate * f) / 1.1).toFixed(1)}" ` +
        `y2="${y((maxRate * f) / 1.1).toFixed(1)}"/><text class="tick" x="${left - 8}" ` +
        `y="${(y((maxRate * f) / 1.1) + 4).toFixed(1)}" text-anchor="end">${n((maxRate * f) / 1.1)}</text>`,
    );
  parts.push(
    `<text class="axis" x="${(left + W - right) / 2}" y="${H - 6}" ` +
      `text-anchor="middle">${e(flag.replace(/^--/, ''))} (${unit} on the left; faint: every cell ` +
      `measured, joined: the others as in the best, ring: the best)</text>`,
  );
  if (slice.length > 1)
    parts.push(
      `<polyline class="slice" fill="none" stroke="#4e79a7" stroke-width="2" points="` +
        `${slice.map((p) => `${position(p.cell[flag]!).toFixed(1)},${y(p.rate!).toFixed(1)}`).join(' ')}"/>`,
    );
  points.forEach((p, j) => {
    const chosen = best !== undefined && Object.entries(best).every(([k, v]) => p.cell[k] === v);
    const cls = chosen ? 'best' : inSlice.has(a.points[j]!) ? 'slice' : 'explored';
    parts.push(datum(p, chosen, cls, unit, position(p.cell[flag]!), y(p.rate!)));
  });
  parts.push('</svg>');
  return parts.join('');
}

/** A neighbour against the best, in words (escaped by the caller). */
function neighbourVerdict(x: TuneNeighbour, t: ReportTune): string {
  if (x.ratio === undefined) return 'failed';
  if (!x.significant) return `no significant difference (${x.ratio.toFixed(2)}x)`;
  const why =
    x.notTaken === 'throttled'
      ? ', not taken: throttled'
      : x.notTaken === 'small'
        ? `, not taken: under the ${t.materialGainPercent}% worth asking more for`
        : '';
  const ci = `95% CI ${x.interval!.low.toFixed(2)}–${x.interval!.high.toFixed(2)}x`;
  return `${x.ratio.toFixed(2)}x (${ci})${why}`;
}

export function tuneSection(t: ReportTune, unit: string): string {
  const charts = t.axisPoints
    .map((a) => `<h3>${e(a.flag.replace(/^--/, ''))}</h3>${axisChart(t, a, unit)}`)
    .join('');
  const d = t.deploy;
  const deploy = d
    ? [d.environment, d.k8sManifest ?? d.run ?? '', ...(d.sdk ?? []).map((l) => `SDK: ${l.trim()}`)]
    : [];
  const neighbours = t.neighbours
    .map((x) => `<li>${e(`${x.axis.replace(/^--/, '')} ${x.value}: ${neighbourVerdict(x, t)}`)}</li>`)
    .join('');
  const throttling = t.throttling
    .map(
      (b) =>
        `<li>${e(`throttling began at ${b.axis.replace(/^--/, '')} ${b.value} (${b.throttleClass})`)}</li>`,
    )
    .join('');
  return (
    `<section id="tune"><h2>Tune: ${t.path.length} cells, ${seconds(t.spentMs)} measured of a ` +
    `${seconds(t.budgetMs)} budget (${e(t.stopped)})</h2>` +
    `<p class="lede">The search doubled one setting at a time while the step was significantly faster, ` +
    `then tried the best's neighbours. Each chart is the rate against one setting.</p>` +
    (deploy.length
      ? '<h3>Deploy</h3><pre class="deploy" style="white-space:pre-wrap;overflow-wrap:anywhere">' +
        `${deploy.map(e).join('\n')}</pre>`
      : '<p class="lede">No cell was measured without failing: there is no best and nothing to deploy.</p>') +
    (neighbours ? `<h3>Neighbours of the best</h3><ul class="notes">${neighbours}</ul>` : '') +
    (throttling ? `<ul class="notes">${throttling}</ul>` : '') +
    `${charts}</section>`
  );
}
