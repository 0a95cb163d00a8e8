// The HTML report: one self-contained file (inline CSS, SVG drawn here, no scripts, no network),
// a formatting of the Report model alone: the answer (recommendation, verdicts, warnings) first.
import { tuneSection } from './html-tune.js';
import { redact } from '../log/redact.js';
import type { ContenderStats } from '../analysis/analyze.js';
import type { Report, ReportContender, TimeWent } from '../analysis/report-model.js';
import type { SweepGrid } from '../analysis/sweep.js';
import { PHASES, PHASE_MEANINGS, type Phase } from '../transport/phases.js';
import { seconds } from './steady.js';
import { containerLimits, manyBlobLine } from './console.js';
import { completionLines } from './completion.js';
import { openLoopLines, rateCurveLines } from './open-loop.js';
import { bytes as formatBytes, count, money, num, timeWentLine } from './format.js';
import { thresholdHtml } from './thresholds.js';

export type { SweepGrid } from '../analysis/sweep.js';

/** The report, and the redacted configuration of the run it came from (shown folded). */
export interface HtmlReportInput {
  report: Report;
  config?: Record<string, unknown>;
}

// Tableau 10: distinct on screen and in print; a strategy keeps its colour in every chart.
const STRATEGY_COLOURS = ['#4e79a7', '#f28e2b', '#59a14f', '#e15759', '#76b7b2', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];
// Retries in red, connection set-up in purples, the request itself in blues, waiting for the server in amber.
const PHASE_COLOURS: Record<Phase, string> = {
  retry: '#d64541', wait: '#b5bcc6', dns: '#c5b3e6', tcp: '#9a86d6', tls: '#7258b8', send: '#9fcbe8', firstByte: '#f0a742', download: '#2f7f93',
};
const W = 960;

import { escapeHtml } from './format.js';
import { sizeBucketSection } from './size-buckets.js';

export { escapeHtml };
const e = escapeHtml;

function fmt(v: number | null | undefined): string {
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

/** Configuration fields safe to show: never credentials beyond their kind and account, never URLs. */
export function safeConfigEntries(config: Record<string, unknown>): [string, string][] {
  const unsafeName = /key|sas|connection|secret|password|token|signature|url|endpoint|credential/i;
  const out: [string, string][] = [];
  const walk = (value: unknown, path: string, depth: number) => {
    if (value === null || value === undefined) return;
    if (Array.isArray(value)) {
      if (value.every((v) => ['string', 'number', 'boolean'].includes(typeof v))) add(path, value.join(', '));
    } else if (typeof value === 'object') {
      if (depth < 3) for (const [k, v] of Object.entries(value as Record<string, unknown>)) if (!unsafeName.test(k)) walk(v, path ? `${path}.${k}` : k, depth + 1);
    } else if (['string', 'number', 'boolean'].includes(typeof value)) add(path, String(value));
  };
  const add = (path: string, text: string) => {
    // A value the one redaction would change holds a secret: it is left out, not shown masked.
    if (redact(text) === text) out.push([path, text]);
  };
  const { credentials, ...rest } = config;
  walk(rest, '', 0);
  if (credentials && typeof credentials === 'object') {
    const c = credentials as Record<string, unknown>;
    if (typeof c.kind === 'string') add('credentials', c.kind);
    if (typeof c.account === 'string') add('account', c.account);
  }
  return out;
}

function svgOpen(chart: string, height: number, label: string): string {
  return `<svg data-chart="${chart}" viewBox="0 0 ${W} ${height}" role="img" aria-label="${e(label)}">`;
}
const txt = (x: number, y: number, text: string, cls = '', anchor = 'start') =>
  `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}"${cls ? ` class="${cls}"` : ''} text-anchor="${anchor}">${e(text)}</text>`;

/** Label width in the charts: wide enough for the longest label, so none is ever cut. */
const CHAR_PX = 7.4;
const labelLeft = (labels: readonly string[]) => Math.min(420, Math.max(170, 34 + CHAR_PX * Math.max(0, ...labels.map((l) => Math.min(l.length, 52)))));

/** A label that is still too long goes on two lines, broken at its sweep cell or a space; never cut. */
function strategyLabel(x: number, y: number, name: string, colour: string): string {
  const swatch = `<rect x="${x}" y="${(y - 9).toFixed(1)}" width="10" height="10" rx="2" fill="${colour}"/>`;
  if (name.length <= 52) return swatch + txt(x + 16, y, name, 'label');
  const at = name.lastIndexOf(' [') > 0 ? name.lastIndexOf(' [') : name.lastIndexOf(' ', 52);
  const [a, b] = at > 0 ? [name.slice(0, at), name.slice(at + 1)] : [name.slice(0, 52), name.slice(52)];
  return swatch + `<text x="${x + 16}" y="${(y - 7).toFixed(1)}" class="label"><tspan>${e(a)}</tspan><tspan x="${x + 16}" dy="15">${e(b)}</tspan></text>`;
}

function throughputChart(ranked: ContenderStats[], colour: (s: string) => string): string {
  const left = labelLeft(ranked.map((s) => s.label)), right = 90, top = 12, row = 38, axis = 44;
  const plotW = W - left - right;
  const height = top + ranked.length * row + axis;
  // The axis spans what was measured; a CI from few runs can be far wider and is clipped at the edges.
  const ticks = niceTicks(Math.max(1e-9, ...ranked.map((s) => s.throughputMiBps.max).filter(Number.isFinite)));
  const x = (v: number) => left + (Math.min(Math.max(0, v), ticks.at(-1)!) / ticks.at(-1)!) * plotW;
  const parts = [svgOpen('throughput', height, 'Throughput per strategy, MiB/s')];
  for (const t of ticks) {
    parts.push(`<line class="grid" x1="${x(t).toFixed(1)}" x2="${x(t).toFixed(1)}" y1="${top - 4}" y2="${height - axis + 4}"/>`);
    parts.push(txt(x(t), height - axis + 20, fmtTick(t), 'tick', 'middle'));
  }
  const clipped = ranked.some((s) => s.throughputMiBps.ci95Low < 0 || s.throughputMiBps.ci95High > ticks.at(-1)!);
  // (NaN compares false: a contender with no figure never marks the axis as cut.)
  const caption = `MiB/s — bar: median · whisker: slowest to fastest run · dark band: 95% CI of the mean${clipped ? ', cut at the axis ends' : ''}`;
  parts.push(txt(left + plotW / 2, height - 6, caption, 'axis', 'middle'));
  ranked.forEach((s, i) => {
    const cy = top + i * row + row / 2;
    const t = s.throughputMiBps;
    const c = colour(s.label);
    const name = e(s.label);
    parts.push(strategyLabel(8, cy + 4, s.label, c));
    // A contender with no measured time (every run failed) has nothing to draw: it says so.
    if (!Number.isFinite(t.median)) {
      parts.push(txt(left + 10, cy + 4, 'no figure: every run failed', 'muted'));
      return;
    }
    parts.push(
      `<rect class="datum bar" data-strategy="${name}" data-value="${dv(t.median)}" x="${left}" y="${(cy - 10).toFixed(1)}" width="${(x(t.median) - left).toFixed(1)}" height="20" rx="2" fill="${c}">` +
        `<title>${name}: median ${fmt(t.median)} MiB/s over ${t.n} run(s)</title></rect>`,
    );
    parts.push(
      `<g class="datum whisker" data-strategy="${name}" data-min="${dv(t.min)}" data-max="${dv(t.max)}" data-value="${dv(t.max - t.min)}">` +
        `<title>${name}: min ${fmt(t.min)}, max ${fmt(t.max)} MiB/s</title>` +
        `<line x1="${x(t.min).toFixed(1)}" x2="${x(t.max).toFixed(1)}" y1="${cy}" y2="${cy}"/>` +
        `<line x1="${x(t.min).toFixed(1)}" x2="${x(t.min).toFixed(1)}" y1="${cy - 7}" y2="${cy + 7}"/>` +
        `<line x1="${x(t.max).toFixed(1)}" x2="${x(t.max).toFixed(1)}" y1="${cy - 7}" y2="${cy + 7}"/></g>`,
    );
    parts.push(
      `<rect class="datum ci" data-strategy="${name}" data-low="${dv(t.ci95Low)}" data-high="${dv(t.ci95High)}" data-value="${dv(t.mean)}" ` +
        `x="${x(t.ci95Low).toFixed(1)}" y="${(cy - 3).toFixed(1)}" width="${Math.max(2, x(t.ci95High) - x(t.ci95Low)).toFixed(1)}" height="6">` +
        `<title>${name}: 95% CI of the mean ${fmt(t.ci95Low)}–${fmt(t.ci95High)} MiB/s${t.n < 2 ? ' (one run: no interval)' : ''}</title></rect>`,
    );
    parts.push(txt(Math.max(x(t.max), x(t.ci95High), x(t.median)) + 8, cy + 4, fmt(t.median), 'value'));
  });
  parts.push(`<line class="axisline" x1="${left}" x2="${left}" y1="${top - 4}" y2="${height - axis + 4}"/></svg>`);
  return parts.join('');
}

function phaseChart(ranked: ContenderStats[], colour: (s: string) => string): string {
  const left = labelLeft(ranked.map((s) => s.label)), right = 20, top = 12, row = 38, axis = 40;
  const plotW = W - left - right;
  const height = top + ranked.length * row + axis;
  const x = (share: number) => left + share * plotW;
  const parts = [svgOpen('phases', height, 'Share of request time per phase')];
  for (const t of [0, 0.25, 0.5, 0.75, 1]) {
    parts.push(`<line class="grid" x1="${x(t).toFixed(1)}" x2="${x(t).toFixed(1)}" y1="${top - 4}" y2="${height - axis + 4}"/>`);
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
      const x0 = x(at), w = Math.max(0.5, share * plotW);
      parts.push(
        `<rect class="datum segment" data-strategy="${name}" data-phase="${p}" data-value="${dv(share)}" x="${x0.toFixed(1)}" y="${cy - 12}" width="${w.toFixed(1)}" height="24" fill="${PHASE_COLOURS[p]}">` +
          `<title>${name} · ${p}: ${pct(share)} of request time — ${e(PHASE_MEANINGS[p])}</title></rect>`,
      );
      if (w >= 38) parts.push(txt(x0 + w / 2, cy + 4, pct(share), ['retry', 'tcp', 'tls', 'download'].includes(p) ? 'seg light' : 'seg', 'middle'));
      at += share;
    }
  });
  return parts.join('') + '</svg>';
}

function latencyChart(series: ContenderStats[], colour: (s: string) => string, percentiles: readonly number[]): string {
  const left = 70, right = 30, top = 16, bottom = 52, plotH = 300;
  const plotW = W - left - right;
  const height = top + plotH + bottom;
  const all = series.flatMap((s) => s.totalPercentilesMs);
  const maxMs = Math.max(1e-3, ...all);
  const minPos = Math.min(maxMs, ...all.filter((v) => v > 0));
  // A wide range (fast common case, slow tail) reads better on a log axis; a narrow one on a linear one.
  const log = maxMs / minPos > 30;
  let ticks: number[], y: (v: number) => number;
  if (log) {
    const lo = Math.floor(Math.log10(minPos)), hi = Math.ceil(Math.log10(maxMs));
    ticks = [];
    for (let d = lo; d <= hi; d++) for (const m of [1, 2, 5]) if (m * 10 ** d >= 10 ** lo && m * 10 ** d <= 10 ** hi) ticks.push(Number((m * 10 ** d).toPrecision(3)));
    y = (v) => top + plotH - ((Math.log10(Math.max(v, 10 ** lo)) - lo) / Math.max(1, hi - lo)) * plotH;
  } else {
    ticks = niceTicks(maxMs);
    y = (v) => top + plotH - (v / ticks.at(-1)!) * plotH;
  }
  const step = plotW / (percentiles.length - 1);
  const x = (i: number) => left + i * step;
  const parts = [svgOpen('latency', height, 'Request latency by percentile, ms')];
  for (const t of ticks) {
    parts.push(`<line class="grid" x1="${left}" x2="${W - right}" y1="${y(t).toFixed(1)}" y2="${y(t).toFixed(1)}"/>`);
    parts.push(txt(left - 8, y(t) + 4, fmtTick(t), 'tick', 'end'));
  }
  percentiles.forEach((p, i) => {
    parts.push(`<line class="grid faint" x1="${x(i).toFixed(1)}" x2="${x(i).toFixed(1)}" y1="${top}" y2="${top + plotH}"/>`);
    parts.push(txt(x(i), top + plotH + 20, fmtP(p), 'tick', 'middle'));
  });
  parts.push(txt(left + plotW / 2, height - 8, `percentile of requests (evenly spaced, tail stretched) · latency ms, ${log ? 'log' : 'linear'} scale`, 'axis', 'middle'));
  parts.push(`<line class="axisline" x1="${left}" x2="${left}" y1="${top}" y2="${top + plotH}"/>`);
  parts.push(`<line class="axisline" x1="${left}" x2="${W - right}" y1="${top + plotH}" y2="${top + plotH}"/>`);
  for (const s of series) {
    const ms = s.totalPercentilesMs;
    const c = colour(s.label);
    const name = e(s.label);
    const pts = ms.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
    parts.push(`<g class="series" data-series="${name}"><polyline points="${pts}" fill="none" stroke="${c}" stroke-width="2.5" stroke-linejoin="round"/>`);
    ms.forEach((v, i) => {
      const p = percentiles[i]!;
      parts.push(
        `<circle class="datum point" data-strategy="${name}" data-percentile="${p}" data-value="${dv(v)}" cx="${x(i).toFixed(1)}" cy="${y(v).toFixed(1)}" r="4" fill="${c}">` +
          `<title>${name} ${fmtP(p)}: ${fmt(v)} ms</title></circle>`,
      );
    });
    parts.push('</g>');
  }
  return parts.join('') + '</svg>';
}

/** A steady run's series (--duration): the rate per interval over time, the active window shaded, throttled intervals marked. */
function seriesChart(s: ContenderStats, colour: string): string {
  const st = s.steady!;
  const left = 70, right = 30, top = 16, bottom = 52, plotH = 220;
  const plotW = W - left - right;
  const height = top + plotH + bottom;
  const rates = st.rates.perInterval;
  const unit = st.perByte ? 'MiB/s' : 'requests/s';
  const ticks = niceTicks(Math.max(st.rates.max, 0));
  const spanMs = Math.max(st.durationMs, st.series.length * st.intervalMs);
  const xTicks = niceTicks(spanMs / 1000, 8);
  const x = (ms: number) => left + (ms / (xTicks.at(-1)! * 1000)) * plotW;
  const y = (v: number) => top + plotH - (v / ticks.at(-1)!) * plotH;
  const name = e(s.label);
  const parts = [`<svg data-chart="series" data-strategy="${name}" viewBox="0 0 ${W} ${height}" role="img" aria-label="${name}: ${unit} per interval over time">`];
  const f = st.window;
  if (f.windowed) {
    parts.push(`<rect class="active" x="${x(f.activeStartMs).toFixed(1)}" y="${top}" width="${(x(f.activeEndMs) - x(f.activeStartMs)).toFixed(1)}" height="${plotH}"><title>active window: every worker issuing</title></rect>`);
  }
  for (const t of ticks) {
    parts.push(`<line class="grid" x1="${left}" x2="${W - right}" y1="${y(t).toFixed(1)}" y2="${y(t).toFixed(1)}"/>`);
    parts.push(txt(left - 8, y(t) + 4, fmtTick(t), 'tick', 'end'));
  }
  for (const t of xTicks) parts.push(txt(x(t * 1000), top + plotH + 20, `${fmtTick(t)}`, 'tick', 'middle'));
  parts.push(txt(left + plotW / 2, height - 8, `seconds since the start · ${unit} per ${st.intervalMs} ms interval`, 'axis', 'middle'));
  parts.push(`<line class="axisline" x1="${left}" x2="${left}" y1="${top}" y2="${top + plotH}"/>`);
  parts.push(`<line class="axisline" x1="${left}" x2="${W - right}" y1="${top + plotH}" y2="${top + plotH}"/>`);
  // Each point at the middle of its interval.
  const mid = (i: number) => (i + 0.5) * st.intervalMs;
  parts.push(`<polyline points="${rates.map((v, i) => `${x(mid(i)).toFixed(1)},${y(v).toFixed(1)}`).join(' ')}" fill="none" stroke="${colour}" stroke-width="2.5" stroke-linejoin="round"/>`);
  rates.forEach((v, i) => {
    const p = st.series[i]!;
    const throttled = p.throttled > 0 ? ' throttled' : '';
    const latency = p.p99Ms === undefined ? '' : `, p50 ${fmt(p.p50Ms)} ms, p99 ${fmt(p.p99Ms)} ms`;
    parts.push(
      `<circle class="datum point${throttled}" data-interval="${i}" data-value="${dv(v)}" cx="${x(mid(i)).toFixed(1)}" cy="${y(v).toFixed(1)}" r="${throttled ? 5 : 3}" fill="${throttled ? '#d64541' : colour}">` +
        `<title>${fmtTick(mid(i) / 1000)} s: ${fmt(v)} ${unit}, ${p.ops} requests, ${p.errors} errors, ${p.retries} retries, ${p.throttled} throttled${latency}</title></circle>`,
    );
  });
  for (const a of st.autoterm.slice(0, 1)) {
    parts.push(`<line class="autoterm" x1="${x(a.atMs).toFixed(1)}" x2="${x(a.atMs).toFixed(1)}" y1="${top}" y2="${top + plotH}"><title>--autoterm ended the run: stable within ±${fmtTick(a.tolerance * 100)}% for ${fmtTick(a.windowMs / 1000)} s</title></line>`);
  }
  return parts.join('') + '</svg>';
}

function heatmap(g: SweepGrid): string {
  const left = 150, top = 58, cellH = 40, right = 10;
  const cellW = Math.min(130, (W - left - right) / Math.max(1, g.cols.length));
  const height = top + g.rows.length * cellH + 12;
  const nums = g.values.flat().filter((v): v is number => v !== null && Number.isFinite(v));
  const lo = Math.min(...nums), hi = Math.max(...nums);
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
        parts.push(`<rect class="cell empty" ${where} x="${x0 + 1}" y="${y0 + 1}" width="${cellW - 2}" height="${cellH - 2}" rx="3"><title>${e(r)} × ${e(c)}: not measured</title></rect>`);
        parts.push(txt(x0 + cellW / 2, y0 + cellH / 2 + 4, '–', 'cellv', 'middle'));
        return;
      }
      const t = hi > lo ? (v - lo) / (hi - lo) : 1;
      // Light to deep blue; the value's position in the grid's own range, not good or bad.
      const mix = (a: number, b: number) => Math.round(a + (b - a) * t);
      const fill = `rgb(${mix(235, 33)},${mix(243, 84)},${mix(251, 150)})`;
      parts.push(
        `<rect class="datum cell${best ? ' best' : tied ? ' tied' : ''}" ${where} data-value="${dv(v)}"${best ? ' data-best="true"' : tied ? ' data-tied="true"' : ''} x="${x0 + 1}" y="${y0 + 1}" width="${cellW - 2}" height="${cellH - 2}" rx="3" fill="${fill}">` +
          `<title>${e(r)} × ${e(c)}: ${fmt(v)} ${e(g.unit)}${best ? ' (best)' : tied ? ' (no significant difference from the best)' : ''}</title></rect>`,
      );
      parts.push(txt(x0 + cellW / 2, y0 + cellH / 2 + 5, `${best ? '★ ' : tied ? '= ' : ''}${fmt(v)}`, t > 0.55 ? 'cellv light' : 'cellv', 'middle'));
    });
  });
  return parts.join('') + '</svg>';
}

function environmentBlock(report: Report, rawConfig: Record<string, unknown>): string {
  const env = report.environment;
  const h = report.header;
  const items: [string, string][] = [
    ['target', env.target], ['date', h.createdAt.replace('T', ' ').replace(/\.\d+Z$/, ' UTC')], ['command', h.command],
    ['node', env.node], ['cpus', `${env.cpus} × ${env.cpuModel}`], ['os', `${env.os} ${env.arch}`],
    ['memory', formatBytes(env.totalMemoryBytes)],
    ...(env.container ? [['container', containerLimits(env.container)] as [string, string]] : []),
    ...(env.sdkVersion ? [['Azure SDK', env.sdkVersion] as [string, string]] : []),
    ...(env.tcp ? [['TCP', [env.tcp.congestionControl, env.tcp.rmemMaxBytes !== undefined ? `rmem max ${formatBytes(env.tcp.rmemMaxBytes)}` : '', env.tcp.wmemMaxBytes !== undefined ? `wmem max ${formatBytes(env.tcp.wmemMaxBytes)}` : ''].filter(Boolean).join(', ')] as [string, string]] : []),
    ...(env.endpoint ? [['endpoint', `${env.endpoint.addresses.join(', ')}${env.endpoint.connectMs !== undefined ? `, connect ${num(env.endpoint.connectMs)} ms` : ''}`] as [string, string]] : []),
    ...(env.cloud ? [['Azure VM', [env.cloud.vmSize, env.cloud.location].filter(Boolean).join(', ')] as [string, string]] : []),
    ['runs', h.runsPerContender.map((c) => `${c.label} ${c.runs}`).join(', ')],
  ];
  const config = safeConfigEntries(rawConfig);
  return (
    (h.complete ? '' : '<p class="warn">This run stopped early: the file holds only what was measured before it stopped.</p>') +
    `<dl class="env">${items.map(([k, v]) => `<div${k === 'target' ? ' class="wide"' : ''}><dt>${e(k)}</dt><dd>${e(v)}</dd></div>`).join('')}</dl>` +
    (config.length ? `<details><summary>configuration</summary><dl class="config">${config.map(([k, v]) => `<div><dt>${e(k)}</dt><dd>${e(v)}</dd></div>`).join('')}</dl></details>` : '')
  );
}

function summaryTable(report: Report, colour: (s: string) => string): string {
  const tier = report.contenders[0]?.cost.tiers[0]?.tier;
  const head = ['#', 'contender', 'runs', 'time ms', 'MiB/s', 'ops/s', 'requests per object', ...(tier ? [`$ per 1,000 objects (${tier})`] : []), 'p50 first byte ms', 'p99 first byte ms', 'verified'];
  const rows = report.contenders.map((s) => {
    const w = s.wallMs;
    const b = s.timeBounds;
    const time = !b || !Number.isFinite(b.highMs - b.lowMs) ? fmt(w.median)
      : b.of === 'range' ? `${fmt(w.median)} <span class="pm">(${fmt(b.lowMs)}–${fmt(b.highMs)})</span>` : `${fmt(w.median)} <span class="pm">± ${fmt((b.highMs - b.lowMs) / 2)}</span>`;
    return (
      `<tr data-strategy="${e(s.label)}"${report.recommendation?.contender === s.label ? ' class="recommended"' : ''}><td class="num">${s.rank}${s.tied ? '=' : ''}</td>` +
      `<td><span class="swatch" style="background:${colour(s.label)}"></span><strong>${e(s.label)}</strong><div class="desc">${e(s.description)}</div></td>` +
      `<td class="num">${s.runs}</td><td class="num">${time}</td><td class="num">${fmt(s.throughputMiBps.median)}</td><td class="num">${fmt(s.opsPerSecond.median)}</td>` +
      `<td class="num">${count(s.cost.requestsPerObject)}${s.failedRequests ? ` <span class="bad">(${s.failedRequests} failed)</span>` : ''}</td>` +
      (tier ? `<td class="num">${money(s.cost.tiers[0]?.per1000Objects)}</td>` : '') +
      `<td class="num">${fmt(s.latencyMs.firstByte?.p50)}</td><td class="num">${fmt(s.latencyMs.firstByte?.p99)}</td>` +
      `<td>${!s.verified ? '<span class="bad">✗ failed</span>' : s.notVerified ? `<span class="bad">not verified (${e(s.notVerified)})</span>` : '<span class="ok">✓ ok</span>'}</td></tr>`
    );
  });
  const notes = [
    ...report.contenders.flatMap((s: ReportContender) => {
      const many = manyBlobLine(s);
      return many ? [`<li>${e(many)}</li>`] : [];
    }),
    ...completionLines(report.contenders).map((l) => `<li>${e(l)}</li>`),
    ...[...openLoopLines(report.contenders), ...rateCurveLines(report)].map((l) => `<li>${e(l.trim())}</li>`),
    ...report.contenders.flatMap((s) => s.problems.map((p) => `<li class="bad"><strong>${e(s.label)}</strong> failed ${e(p)}</li>`)),
    ...report.serverClock.map((g) => `<li>${e(g.contender)}: client ${fmt(g.clientMs)} ms, server ${fmt(g.serverMs)} ms (${g.ms >= 0 ? '+' : ''}${fmt(g.ms)} ms; bound ${fmt(g.boundMs)} ms: 3% + the socket buffers' drain)</li>`),
  ];
  return (
    `<div class="scroll"><table><thead><tr>${head.map((h, i) => `<th${i === 1 || i === head.length - 1 ? '' : ' class="num"'}>${h}</th>`).join('')}</tr></thead><tbody>${rows.join('')}</tbody></table></div>` +
    (notes.length ? `<ul class="notes">${notes.join('')}</ul>` : '') +
    `<p class="lede">Prices: ${e(report.prices.name)}, as of ${e(report.prices.asOf)}.</p>`
  );
}

const timeWentItem = (t: TimeWent) => `<li data-strategy="${e(t.contender)}">${e(timeWentLine(t))}</li>`;

/** The answer, above the fold: the recommendation, then the verdicts and one warning per kind. */
function answer(report: Report): string {
  const rec = report.recommendation;
  const went = report.timeWent.map(timeWentItem).join('');
  return `<section id="answer">${rec ? `<p class="recommendation" data-contender="${e(rec.contender)}">${e(rec.text)}</p>` : '<p class="recommendation">No recommendation: no contender verified.</p>'}` +
    (report.verdicts.length && !report.tune ? `<ul class="verdicts">${report.verdicts.map((v) => `<li class="verdict" data-kind="${v.kind}">${e(v.text)}</li>`).join('')}</ul>` : '') +
    (went ? `<ul class="time-went">${went}</ul>` : '') +
    (report.warnings.length ? `<ul class="warnings">${report.warnings.map((w) => `<li class="warn" data-kind="${w.kind}">${e(w.text)}</li>`).join('')}</ul>` : '') +
    (report.warmupFaults.length ? `<ul class="warnings warmup">${report.warmupFaults.map((f) => `<li>${e(`${f.contender} ${f.text}`)}</li>`).join('')}</ul>` : '') +
    '</section>';
}

const CSS = `
:root{--ink:#1f2328;--muted:#59636e;--line:#d8dee4;--bg:#f6f8fa;--card:#fff}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--ink);font:14px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
main{max-width:1040px;margin:0 auto;padding:28px 24px 40px}
header{margin-bottom:20px}
.eyebrow{margin:0;color:var(--muted);font-size:12px;letter-spacing:.06em;text-transform:uppercase}
h1{margin:4px 0 14px;font-size:22px;line-height:1.3;font-weight:650}
h2{margin:0 0 4px;font-size:17px;font-weight:650}
h3{margin:14px 0 6px;font-size:13px;color:var(--muted)}
section{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:18px 20px;margin:16px 0;box-shadow:0 1px 2px rgba(31,35,40,.04)}
.lede{margin:0 0 12px;color:var(--muted);font-size:13px}
dl{margin:0}
dl.env{display:grid;grid-template-columns:repeat(auto-fill,minmax(220px,1fr));gap:8px 18px}
dl.env div,dl.config div{min-width:0}
dl.env div.wide{grid-column:span 2}
dt{color:var(--muted);font-size:11px;text-transform:uppercase;letter-spacing:.05em}
dd{margin:0;overflow-wrap:anywhere}
details{margin-top:12px}
summary{cursor:pointer;color:var(--muted);font-size:13px}
dl.config{display:grid;grid-template-columns:repeat(auto-fill,minmax(170px,1fr));gap:6px 16px;margin-top:8px;font-size:13px}
.scroll{overflow-x:auto}
table{border-collapse:collapse;width:100%;font-size:13px}
th{text-align:left;font-weight:600;color:var(--muted);font-size:12px;border-bottom:1px solid var(--line);padding:6px 8px;vertical-align:bottom}
td{border-bottom:1px solid #eef1f4;padding:7px 8px;vertical-align:top}
tbody tr:last-child td{border-bottom:0}
th.num{text-align:right}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.desc{color:var(--muted);font-size:12px}
.pm{color:var(--muted);font-size:12px}
.swatch{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:7px}
.ok{color:#1a7f37;font-weight:600;white-space:nowrap}
.bad{color:#cf222e;font-weight:600}
.warn{background:#fff8c5;border:1px solid #eed888;border-radius:6px;padding:8px 10px}
.notes{margin:12px 0 0;padding-left:18px;font-size:13px}
svg{display:block;width:100%;height:auto;font-family:inherit}
svg text{fill:var(--ink);font-size:12px}
svg .tick{fill:var(--muted);font-size:11px;font-variant-numeric:tabular-nums}
svg .axis{fill:var(--muted);font-size:12px}
svg .label{font-size:13px}
svg .value{font-size:12px;font-weight:600;font-variant-numeric:tabular-nums}
svg .seg{font-size:11px;fill:#1f2328}
svg .seg.light,svg .cellv.light{fill:#fff}
svg .cellv{font-size:13px;font-variant-numeric:tabular-nums}
svg .grid{stroke:#e6eaef;stroke-width:1}
svg .grid.faint{stroke:#f0f2f5}
svg .axisline{stroke:#8c959f;stroke-width:1}
svg .whisker line{stroke:#24292f;stroke-width:1.5}
svg .ci{fill:#24292f;fill-opacity:.35}
svg .nodata{fill:#f3f4f6}
svg .muted{fill:var(--muted);font-size:12px;font-style:italic}
svg .point{stroke:#fff;stroke-width:1.5}
svg .cell.empty{fill:#f3f4f6}
svg .active{fill:#4e79a7;fill-opacity:.07}
svg .autoterm{stroke:#24292f;stroke-width:1.5;stroke-dasharray:5 4}
svg .cell.best{stroke:#1f2328;stroke-width:3}
svg .cell.tied{stroke:#1f2328;stroke-width:1.5;stroke-dasharray:4 3}
.legend{display:flex;flex-wrap:wrap;gap:6px 18px;margin:10px 0 0;padding:0;list-style:none;font-size:12px;color:var(--muted)}
.legend li{display:flex;align-items:center;gap:6px}
.legend .swatch{margin:0}
.legend .line{display:inline-block;width:18px;height:3px;border-radius:2px}
.legend strong{color:var(--ink);font-weight:600}
.recommendation{margin:0 0 10px;font-size:17px;font-weight:650;line-height:1.4}
.verdicts,.warnings,.time-went{margin:8px 0 0;padding-left:18px;font-size:13px}
.warnings li{margin-top:6px}
tr.recommended td{background:#eef6ee}
footer{color:var(--muted);font-size:12px;text-align:center;margin-top:20px}
`;

export function renderHtml(input: HtmlReportInput): string {
  const { report } = input;
  const stats = report.contenders;
  const sweep = report.sweep?.grid;
  const title = report.header.title;
  const colourOf = new Map(stats.map((s, i) => [s.label, STRATEGY_COLOURS[i % STRATEGY_COLOURS.length]!]));
  const colour = (name: string) => colourOf.get(name) ?? '#8c959f';
  const ranked = stats;
  const withLatency = ranked.filter((s) => s.totalPercentilesMs.length > 0);
  const runs = Math.max(0, ...stats.map((s) => s.runs));
  const size = report.header.objectSizeBytes;
  const phasesShown = PHASES.filter((p) => stats.some((s) => (s.phaseShare[p] ?? 0) > 0));
  const sections: string[] = [answer(report)];
  if (report.tune) sections.push(tuneSection(report.tune, report.unit));

  sections.push(
    `<section id="summary"><h2>Summary</h2><p class="lede">Ranked fastest to slowest by median wall time${stats.some((s) => s.steady) ? ' (steady runs: the time of one pass at each active interval\'s rate, see below)' : ''}${runs > 1 ? ` over the measured runs (± is the 95% CI half-width)` : ''}; contenders a rank test (Mann-Whitney U, 5%) cannot tell apart share a rank, shown as 1=. Warm-up runs are left out.` +
      `${size !== undefined ? ` Object size ${e(formatBytes(size))}.` : ''}</p>${summaryTable(report, colour)}</section>`,
  );
  if (report.thresholds) sections.push(thresholdHtml(report));
  if (sweep && sweep.rows.length && sweep.cols.length) {
    sections.push(
      `<section id="sweep"><h2>${e(sweep.title)}</h2><p class="lede">${e(sweep.rowLabel)} × ${e(sweep.colLabel)}, values in ${e(sweep.unit)}; darker is higher.${sweep.best ? ' ★ marks the best cell' : ''}${sweep.tied && sweep.tied.length > 1 ? ', = the cells a rank test cannot tell from it (any of them will do)' : ''}${sweep.best ? '.' : ''}</p>${heatmap(sweep)}` +
        (report.sweep!.sdkAdvice.length ? `<ul class="notes">${report.sweep!.sdkAdvice.map((l) => `<li>${e(l.trim())}</li>`).join('')}</ul>` : '') + '</section>',
    );
  }
  if (stats.length) {
    sections.push(
      `<section id="throughput"><h2>Throughput</h2><p class="lede">Bytes moved per second of wall time, per measured run. The bar is the median, the whisker spans the slowest and fastest run, the dark band is the 95% confidence interval of the mean (wide when there are few runs).</p>` +
        `${throughputChart(ranked, colour)}</section>`,
    );
    sections.push(
      `<section id="phases"><h2>Where the time goes</h2><p class="lede">Share of summed request time spent in each phase, over successful requests. Reused keep-alive sockets have no dns/tcp/tls phase.</p>` +
        `${phaseChart(ranked, colour)}<ul class="legend">${phasesShown.map((p) => `<li title="${e(PHASE_MEANINGS[p])}"><span class="swatch" style="background:${PHASE_COLOURS[p]}"></span><strong>${p}</strong> ${e(PHASE_MEANINGS[p])}</li>`).join('')}</ul></section>`,
    );
  }
  if (withLatency.length) {
    sections.push(
      `<section id="latency"><h2>Request latency by percentile</h2><p class="lede">Total time per request at each percentile, from the merged HDR histograms of every measured run and worker (never averaged percentiles).</p>` +
        `<ul class="legend">${withLatency.map((s) => `<li><span class="line" style="background:${colour(s.label)}"></span><strong>${e(s.label)}</strong> ${s.latencyMs.total?.count ?? 0} requests</li>`).join('')}</ul>` +
        `${latencyChart(withLatency, colour, report.latencyPercentiles)}</section>`,
    );
  }
  if (report.sizeBuckets) sections.push(sizeBucketSection(report, colour));
  const steady = ranked.filter((s) => s.steady);
  if (steady.length) {
    sections.push(
      `<section id="steady"><h2>Steady state over time</h2><p class="lede">Each run repeated its requests for ${e(seconds(steady[0]!.steady!.durationMs))}; one point per interval of the median run (by rate). The shaded band is the active window, when every worker was issuing: rates and ranks come from it, ramp-up and drain are left out. Red points had throttled answers (429/503).</p>` +
        steady.map((s) => `<h3><span class="swatch" style="background:${colour(s.label)}"></span>${e(s.label)}</h3>${seriesChart(s, colour(s.label))}`).join('') + '</section>',
    );
  }

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<title>${e(title)}</title>
<style>${CSS}</style>
</head>
<body>
<main>
<header><p class="eyebrow">blob-cacher · ${e(report.header.command)} report</p><h1>${e(title)}</h1></header>
${sections[0]}
<section id="environment">${environmentBlock(report, input.config ?? {})}</section>
${sections.slice(1).join('\n')}
<footer>blob-cacher ${e(report.environment.packageVersion)} · report schema ${report.schemaVersion} · ${stats.length} contender${stats.length === 1 ? '' : 's'}</footer>
</main>
</body>
</html>
`;
}
