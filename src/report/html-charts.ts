// The HTML report's charts as inline SVG (no scripts): throughput per run, the phases of request time,
// latency by percentile, a steady run's series and a sweep's heatmap. Each draws figures of the model
// as they are; scales and label widths are layout, computed here.
import type { ContenderStats } from '../analysis/analyze.js';
import type { ReportRanges } from '../analysis/report-model.js';
import type { SweepGrid } from '../analysis/sweep.js';
import { PHASES, PHASE_MEANINGS } from '../transport/phases.js';
import { escapeHtml as e } from './format.js';
import { PHASE_COLOURS } from './html-style.js';

const W = 960;

export function fmt(v: number | null | undefined): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '—';
  if (v === 0) return '0';
  const a = Math.abs(v);
  return a >= 100 ? v.toFixed(0) : a >= 10 ? v.toFixed(1) : a >= 1 ? v.toFixed(2) : v.toFixed(3);
}
/** A number for a data attribute: full enough to check, short enough to read. */
const dv = (v: number) => String(Number(v.toPrecision(6)));
const pct = (share: number) => `${(share * 100).toFixed(share < 0.1 ? 1 : 0)}%`;
const fmtTick = (t: number) => String(Number(t.toPrecision(6)));
const fmtP = (p: number) => (p === 0 ? 'min' : p === 100 ? 'max' : `p${p}`);

function niceTicks(max: number, count = 5): number[] {
  if (!(max > 0)) return [0, 1];
  const raw = max / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const err = raw / mag;
  const step = mag * (err >= 7.5 ? 10 : err >= 3.5 ? 5 : err >= 1.5 ? 2 : 1);
  const top = Math.ceil(max / step - 1e-9) * step;
  return Array.from({ length: Math.round(top / step) + 1 }, (_, i) => Number((i * step).toPrecision(12)));
}

function svgOpen(chart: string, height: number, label: string): string {
  return `<svg data-chart="${chart}" viewBox="0 0 ${W} ${height}" role="img" aria-label="${e(label)}">`;
}
const txt = (x: number, y: number, text: string, cls = '', anchor = 'start') =>
  `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}"${cls ? ` class="${cls}"` : ''} ` +
  `text-anchor="${anchor}">${e(text)}</text>`;

/** Label width in the charts: wide enough for the longest label, so none is ever cut. */
const CHAR_PX = 7.4;
const labelLeft = (labels: readonly string[]) =>
  Math.min(420, Math.max(170, 34 + CHAR_PX * Math.max(0, ...labels.map((l) => Math.min(l.length, 52)))));

/** A label that is still too long goes on two lines, broken at its sweep cell or a space; never cut. */
function strategyLabel(x: number, y: number, name: string, colour: string): string {
  const swatch = `<rect x="${x}" y="${(y - 9).toFixed(1)}" width="10" height="10" rx="2" fill="${colour}"/>`;
  if (name.length <= 52) return swatch + txt(x + 16, y, name, 'label');
  const at = name.lastIndexOf(' [') > 0 ? name.lastIndexOf(' [') : name.lastIndexOf(' ', 52);
  const [a, b] = at > 0 ? [name.slice(0, at), name.slice(at + 1)] : [name.slice(0, 52), name.slice(52)];
  return (
    `${swatch}<text x="${x + 16}" y="${(y - 7).toFixed(1)}" ` +
    `class="label"><tspan>${e(a)}</tspan><tspan x="${x + 16}" dy="15">${e(b)}</tspan></text>`
  );
}

/** One contender's throughput: its bar (the median), whisker (slowest to fastest run) and CI band. */
function throughputMarks(s: ContenderStats, cy: number, c: string, left: number, x: (v: number) => number) {
  const t = s.throughputMiBps;
  const name = e(s.label);
  const parts = [strategyLabel(8, cy + 4, s.label, c)];
  // A contender with no measured time (every run failed) has nothing to draw: it says so.
  if (!Number.isFinite(t.median))
    return [...parts, txt(left + 10, cy + 4, 'no figure: every run failed', 'muted')];
  parts.push(
    `<rect class="datum bar" data-strategy="${name}" data-value="${dv(t.median)}" x="${left}" ` +
      `y="${(cy - 10).toFixed(1)}" width="${(x(t.median) - left).toFixed(1)}" height="20" rx="2" ` +
      `fill="${c}">` +
      `<title>${name}: median ${fmt(t.median)} MiB/s over ${t.n} run(s)</title></rect>`,
  );
  parts.push(
    `<g class="datum whisker" data-strategy="${name}" data-min="${dv(t.min)}" data-max="${dv(t.max)}" ` +
      `data-value="${dv(t.max - t.min)}">` +
      `<title>${name}: min ${fmt(t.min)}, max ${fmt(t.max)} MiB/s</title>` +
      `<line x1="${x(t.min).toFixed(1)}" x2="${x(t.max).toFixed(1)}" y1="${cy}" y2="${cy}"/>` +
      `<line x1="${x(t.min).toFixed(1)}" x2="${x(t.min).toFixed(1)}" y1="${cy - 7}" y2="${cy + 7}"/>` +
      `<line x1="${x(t.max).toFixed(1)}" x2="${x(t.max).toFixed(1)}" y1="${cy - 7}" y2="${cy + 7}"/></g>`,
  );
  parts.push(
    `<rect class="datum ci" data-strategy="${name}" data-low="${dv(t.ci95Low)}" ` +
      `data-high="${dv(t.ci95High)}" data-value="${dv(t.mean)}" ` +
      `x="${x(t.ci95Low).toFixed(1)}" y="${(cy - 3).toFixed(1)}" ` +
      `width="${Math.max(2, x(t.ci95High) - x(t.ci95Low)).toFixed(1)}" height="6">` +
      `<title>${name}: 95% CI of the mean ${fmt(t.ci95Low)}–${fmt(t.ci95High)} ` +
      `MiB/s${t.n < 2 ? ' (one run: no interval)' : ''}</title></rect>`,
  );
  // The value's label starts past the whisker and the interval's band (the median is within the runs).
  parts.push(txt(Math.max(x(t.max), x(t.ci95High)) + 8, cy + 4, fmt(t.median), 'value'));
  return parts;
}

export function throughputChart(
  ranked: ContenderStats[],
  ranges: ReportRanges,
  colour: (s: string) => string,
): string {
  const left = labelLeft(ranked.map((s) => s.label)),
    right = 90,
    top = 12,
    row = 38,
    axis = 44;
  const plotW = W - left - right;
  const height = top + ranked.length * row + axis;
  // The axis spans what was measured; a CI from few runs can be far wider and is clipped at the edges.
  const ticks = niceTicks(Math.max(1e-9, ranges.throughputMiBpsHigh));
  const x = (v: number) => left + (Math.min(Math.max(0, v), ticks.at(-1)!) / ticks.at(-1)!) * plotW;
  const parts = [svgOpen('throughput', height, 'Throughput per strategy, MiB/s')];
  for (const t of ticks) {
    parts.push(
      `<line class="grid" x1="${x(t).toFixed(1)}" x2="${x(t).toFixed(1)}" y1="${top - 4}" ` +
        `y2="${height - axis + 4}"/>`,
    );
    parts.push(txt(x(t), height - axis + 20, fmtTick(t), 'tick', 'middle'));
  }
  const clipped = ranked.some(
    (s) => s.throughputMiBps.ci95Low < 0 || s.throughputMiBps.ci95High > ticks.at(-1)!,
  );
  // (NaN compares false: a contender with no figure never marks the axis as cut.)
  const caption =
    `MiB/s — bar: median · whisker: slowest to fastest run · dark band: 95% CI of the ` +
    `mean${clipped ? ', cut at the axis ends' : ''}`;
  parts.push(txt(left + plotW / 2, height - 6, caption, 'axis', 'middle'));
  ranked.forEach((s, i) =>
    parts.push(...throughputMarks(s, top + i * row + row / 2, colour(s.label), left, x)),
  );
  parts.push(
    `<line class="axisline" x1="${left}" x2="${left}" y1="${top - 4}" y2="${height - axis + 4}"/></svg>`,
  );
  return parts.join('');
}

export function phaseChart(ranked: ContenderStats[], colour: (s: string) => string): string {
  const left = labelLeft(ranked.map((s) => s.label)),
    right = 20,
    top = 12,
    row = 38,
    axis = 40;
  const plotW = W - left - right;
  const height = top + ranked.length * row + axis;
  const x = (share: number) => left + share * plotW;
  const parts = [svgOpen('phases', height, 'Share of request time per phase')];
  for (const t of [0, 0.25, 0.5, 0.75, 1]) {
    parts.push(
      `<line class="grid" x1="${x(t).toFixed(1)}" x2="${x(t).toFixed(1)}" y1="${top - 4}" ` +
        `y2="${height - axis + 4}"/>`,
    );
    parts.push(txt(x(t), height - axis + 20, `${t * 100}%`, 'tick', 'middle'));
  }
  ranked.forEach((s, i) => {
    const cy = top + i * row + row / 2;
    const name = e(s.label);
    parts.push(strategyLabel(8, cy + 4, s.label, colour(s.label)));
    if (!PHASES.some((p) => (s.phaseShare[p] ?? 0) > 0)) {
      parts.push(`<rect class="nodata" x="${left}" y="${cy - 12}" width="${plotW}" height="24"/>`);
      parts.push(txt(left + 10, cy + 4, 'no phase timings recorded (total time only)', 'muted'));
    }
    let at = 0;
    for (const p of PHASES) {
      const share = s.phaseShare[p] ?? 0;
      if (!(share > 0)) continue;
      const x0 = x(at),
        w = Math.max(0.5, share * plotW);
      parts.push(
        `<rect class="datum segment" data-strategy="${name}" data-phase="${p}" data-value="${dv(share)}" ` +
          `x="${x0.toFixed(1)}" y="${cy - 12}" width="${w.toFixed(1)}" height="24" ` +
          `fill="${PHASE_COLOURS[p]}">` +
          `<title>${name} · ${p}: ${pct(share)} of request time — ${e(PHASE_MEANINGS[p])}</title></rect>`,
      );
      if (w >= 38)
        parts.push(
          txt(
            x0 + w / 2,
            cy + 4,
            pct(share),
            ['retry', 'tcp', 'tls', 'download'].includes(p) ? 'seg light' : 'seg',
            'middle',
          ),
        );
      at += share;
    }
  });
  return `${parts.join('')}</svg>`;
}

/** The latency axis: log where the range is wide (fast common case, slow tail), else linear. */
function latencyAxis(ranges: ReportRanges, top: number, plotH: number) {
  const maxMs = Math.max(1e-3, ranges.latencyMsHighest);
  const minPos = Math.min(maxMs, ranges.latencyMsLowestPositive);
  const log = maxMs / minPos > 30;
  if (!log) {
    const ticks = niceTicks(maxMs);
    return { log, ticks, y: (v: number) => top + plotH - (v / ticks.at(-1)!) * plotH };
  }
  const lo = Math.floor(Math.log10(minPos)),
    hi = Math.ceil(Math.log10(maxMs));
  const ticks: number[] = [];
  for (let d = lo; d <= hi; d++)
    for (const m of [1, 2, 5])
      if (m * 10 ** d >= 10 ** lo && m * 10 ** d <= 10 ** hi)
        ticks.push(Number((m * 10 ** d).toPrecision(3)));
  const y = (v: number) =>
    top + plotH - ((Math.log10(Math.max(v, 10 ** lo)) - lo) / Math.max(1, hi - lo)) * plotH;
  return { log, ticks, y };
}

/** One contender's latency curve: a line through its percentiles, a point at each. */
function latencyLine(
  s: ContenderStats,
  c: string,
  percentiles: readonly number[],
  x: (i: number) => number,
  y: (v: number) => number,
): string {
  const ms = s.totalPercentilesMs;
  const name = e(s.label);
  const pts = ms.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
  const points = ms.map((v, i) => {
    const p = percentiles[i]!;
    return (
      `<circle class="datum point" data-strategy="${name}" data-percentile="${p}" data-value="${dv(v)}" ` +
      `cx="${x(i).toFixed(1)}" cy="${y(v).toFixed(1)}" r="4" fill="${c}">` +
      `<title>${name} ${fmtP(p)}: ${fmt(v)} ms</title></circle>`
    );
  });
  return (
    `<g class="series" data-series="${name}"><polyline points="${pts}" fill="none" stroke="${c}" ` +
    `stroke-width="2.5" stroke-linejoin="round"/>${points.join('')}</g>`
  );
}

export function latencyChart(
  series: ContenderStats[],
  ranges: ReportRanges,
  colour: (s: string) => string,
  percentiles: readonly number[],
): string {
  const left = 70,
    right = 30,
    top = 16,
    bottom = 52,
    plotH = 300;
  const plotW = W - left - right;
  const height = top + plotH + bottom;
  const { log, ticks, y } = latencyAxis(ranges, top, plotH);
  const step = plotW / (percentiles.length - 1);
  const x = (i: number) => left + i * step;
  const parts = [svgOpen('latency', height, 'Request latency by percentile, ms')];
  for (const t of ticks) {
    parts.push(
      `<line class="grid" x1="${left}" x2="${W - right}" y1="${y(t).toFixed(1)}" y2="${y(t).toFixed(1)}"/>`,
    );
    parts.push(txt(left - 8, y(t) + 4, fmtTick(t), 'tick', 'end'));
  }
  percentiles.forEach((p, i) => {
    parts.push(
      `<line class="grid faint" x1="${x(i).toFixed(1)}" x2="${x(i).toFixed(1)}" y1="${top}" ` +
        `y2="${top + plotH}"/>`,
    );
    parts.push(txt(x(i), top + plotH + 20, fmtP(p), 'tick', 'middle'));
  });
  const caption =
    `percentile of requests (evenly spaced, tail stretched) · latency ms, ` +
    `${log ? 'log' : 'linear'} scale`;
  parts.push(txt(left + plotW / 2, height - 8, caption, 'axis', 'middle'));
  parts.push(`<line class="axisline" x1="${left}" x2="${left}" y1="${top}" y2="${top + plotH}"/>`);
  parts.push(
    `<line class="axisline" x1="${left}" x2="${W - right}" y1="${top + plotH}" y2="${top + plotH}"/>`,
  );
  for (const s of series) parts.push(latencyLine(s, colour(s.label), percentiles, x, y));
  return `${parts.join('')}</svg>`;
}

type Steady = NonNullable<ContenderStats['steady']>;

/** A steady series' marks: its line, a point per interval (throttled ones red), and --autoterm's end. */
function seriesMarks(
  st: Steady,
  colour: string,
  unit: string,
  x: (ms: number) => number,
  y: (v: number) => number,
  plot: { top: number; bottom: number },
): string[] {
  const rates = st.rates.perInterval;
  // Each point at the middle of its interval.
  const mid = (i: number) => (i + 0.5) * st.intervalMs;
  const line = rates.map((v, i) => `${x(mid(i)).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
  const parts = [
    `<polyline points="${line}" fill="none" stroke="${colour}" stroke-width="2.5" stroke-linejoin="round"/>`,
  ];
  rates.forEach((v, i) => {
    const p = st.series[i]!;
    const throttled = p.throttled > 0 ? ' throttled' : '';
    const latency = p.p99Ms === undefined ? '' : `, p50 ${fmt(p.p50Ms)} ms, p99 ${fmt(p.p99Ms)} ms`;
    const title =
      `${fmtTick(mid(i) / 1000)} s: ${fmt(v)} ${unit}, ${p.ops} requests, ${p.errors} errors, ` +
      `${p.retries} retries, ${p.throttled} throttled${latency}`;
    parts.push(
      `<circle class="datum point${throttled}" data-interval="${i}" data-value="${dv(v)}" ` +
        `cx="${x(mid(i)).toFixed(1)}" cy="${y(v).toFixed(1)}" r="${throttled ? 5 : 3}" ` +
        `fill="${throttled ? '#d64541' : colour}"><title>${title}</title></circle>`,
    );
  });
  for (const a of st.autoterm.slice(0, 1)) {
    const why =
      `--autoterm ended the run: stable within ±${fmtTick(a.tolerance * 100)}% ` +
      `for ${fmtTick(a.windowMs / 1000)} s`;
    parts.push(
      `<line class="autoterm" x1="${x(a.atMs).toFixed(1)}" x2="${x(a.atMs).toFixed(1)}" y1="${plot.top}" ` +
        `y2="${plot.bottom}"><title>${why}</title></line>`,
    );
  }
  return parts;
}

/**
 * A steady run's series (--duration): the rate per interval over time, the active window shaded,
 * throttled intervals marked.
 */
export function seriesChart(s: ContenderStats, colour: string): string {
  const st = s.steady!;
  const left = 70,
    right = 30,
    top = 16,
    bottom = 52,
    plotH = 220;
  const plotW = W - left - right;
  const height = top + plotH + bottom;
  const unit = st.perByte ? 'MiB/s' : 'requests/s';
  const ticks = niceTicks(Math.max(st.rates.max, 0));
  const spanMs = Math.max(st.durationMs, st.series.length * st.intervalMs);
  const xTicks = niceTicks(spanMs / 1000, 8);
  const x = (ms: number) => left + (ms / (xTicks.at(-1)! * 1000)) * plotW;
  const y = (v: number) => top + plotH - (v / ticks.at(-1)!) * plotH;
  const name = e(s.label);
  const parts = [
    `<svg data-chart="series" data-strategy="${name}" viewBox="0 0 ${W} ${height}" role="img" ` +
      `aria-label="${name}: ${unit} per interval over time">`,
  ];
  const f = st.window;
  if (f.windowed) {
    parts.push(
      `<rect class="active" x="${x(f.activeStartMs).toFixed(1)}" y="${top}" ` +
        `width="${(x(f.activeEndMs) - x(f.activeStartMs)).toFixed(1)}" height="${plotH}">` +
        '<title>active window: every worker issuing</title></rect>',
    );
  }
  for (const t of ticks) {
    parts.push(
      `<line class="grid" x1="${left}" x2="${W - right}" y1="${y(t).toFixed(1)}" y2="${y(t).toFixed(1)}"/>`,
    );
    parts.push(txt(left - 8, y(t) + 4, fmtTick(t), 'tick', 'end'));
  }
  for (const t of xTicks) parts.push(txt(x(t * 1000), top + plotH + 20, `${fmtTick(t)}`, 'tick', 'middle'));
  const caption = `seconds since the start · ${unit} per ${st.intervalMs} ms interval`;
  parts.push(txt(left + plotW / 2, height - 8, caption, 'axis', 'middle'));
  parts.push(`<line class="axisline" x1="${left}" x2="${left}" y1="${top}" y2="${top + plotH}"/>`);
  parts.push(
    `<line class="axisline" x1="${left}" x2="${W - right}" y1="${top + plotH}" y2="${top + plotH}"/>`,
  );
  parts.push(...seriesMarks(st, colour, unit, x, y, { top, bottom: top + plotH }));
  return `${parts.join('')}</svg>`;
}

export function heatmap(g: SweepGrid): string {
  const left = 150,
    top = 58,
    cellH = 40,
    right = 10;
  const cellW = Math.min(130, (W - left - right) / Math.max(1, g.cols.length));
  const height = top + g.rows.length * cellH + 12;
  const { low: lo, high: hi } = g.range;
  const parts = [svgOpen('sweep', height, g.title)];
  parts.push(txt(left + (cellW * g.cols.length) / 2, 18, g.colLabel, 'axis', 'middle'));
  parts.push(txt(8, top - 10, g.rowLabel, 'axis'));
  g.cols.forEach((c, j) => parts.push(txt(left + j * cellW + cellW / 2, top - 10, c, 'label', 'middle')));
  g.rows.forEach((r, i) => {
    const y0 = top + i * cellH;
    parts.push(txt(8, y0 + cellH / 2 + 4, r, 'label'));
    g.cols.forEach((c, j) => {
      const v = g.values[i]?.[j] ?? null;
      const x0 = left + j * cellW;
      const best = g.best?.row === i && g.best.col === j;
      // Not significantly different from the best: any of these will do.
      const tied = !best && (g.tied ?? []).some((c) => c.row === i && c.col === j);
      const where = `data-row="${e(r)}" data-col="${e(c)}"`;
      if (v === null || !Number.isFinite(v)) {
        parts.push(
          `<rect class="cell empty" ${where} x="${x0 + 1}" y="${y0 + 1}" width="${cellW - 2}" ` +
            `height="${cellH - 2}" rx="3"><title>${e(r)} × ${e(c)}: not measured</title></rect>`,
        );
        parts.push(txt(x0 + cellW / 2, y0 + cellH / 2 + 4, '–', 'cellv', 'middle'));
        return;
      }
      const t = hi > lo ? (v - lo) / (hi - lo) : 1;
      // Light to deep blue; the value's position in the grid's own range, not good or bad.
      const mix = (a: number, b: number) => Math.round(a + (b - a) * t);
      const fill = `rgb(${mix(235, 33)},${mix(243, 84)},${mix(251, 150)})`;
      parts.push(
        `<rect class="datum cell${best ? ' best' : tied ? ' tied' : ''}" ${where} ` +
          `data-value="${dv(v)}"${best ? ' data-best="true"' : tied ? ' data-tied="true"' : ''} ` +
          `x="${x0 + 1}" y="${y0 + 1}" width="${cellW - 2}" height="${cellH - 2}" rx="3" fill="${fill}">` +
          `<title>${e(r)} × ${e(c)}: ${fmt(v)} ${e(g.unit)}` +
          `${best ? ' (best)' : tied ? ' (no significant difference from the best)' : ''}</title></rect>`,
      );
      parts.push(
        txt(
          x0 + cellW / 2,
          y0 + cellH / 2 + 5,
          `${best ? '★ ' : tied ? '= ' : ''}${fmt(v)}`,
          t > 0.55 ? 'cellv light' : 'cellv',
          'middle',
        ),
      );
    });
  });
  return `${parts.join('')}</svg>`;
}
