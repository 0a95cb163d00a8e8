// The HTML report's page: one self-contained file (inline CSS, inline SVG, no scripts, no network),
// a formatting of the Report model alone: the answer (recommendation, verdicts, warnings) first, then
// the environment, the summary table and the sections; the charts and the stylesheet are their own files.
import { tuneSection } from './html-tune.js';
import { redact } from '../log/redact.js';
import type { Report, ReportContender, TimeWent } from '../analysis/report-model.js';
import { PHASES, PHASE_MEANINGS } from '../transport/phases.js';
import type { CellValue, CheckCell, Column, RankCell, TimeCell } from '../analysis/columns.js';
import { columnsFor, headerFor, rankText } from './cells.js';
import { seconds } from './steady.js';
import { containerLimits, endpointText, manyBlobLine, tcpText } from './console.js';
import { completionLines } from './completion.js';
import { openLoopLines, rateCurveLines } from './open-loop.js';
import { bytes as formatBytes, count, money, timeWentLine } from './format.js';
import { thresholdHtml } from './thresholds.js';
import { escapeHtml } from './format.js';
import { fmt, heatmap, latencyChart, phaseChart, seriesChart, throughputChart } from './html-charts.js';
import { CSS, PHASE_COLOURS, STRATEGY_COLOURS } from './html-style.js';
import { sizeBucketSection } from './size-buckets.js';
import { mixSection } from './mix.js';
import { checkpointSection } from './checkpoint.js';
import { trainSection } from './train.js';

export type { SweepGrid } from '../analysis/sweep.js';

/** The report, and the redacted configuration of the run it came from (shown folded). */
export interface HtmlReportInput {
  report: Report;
  config?: Record<string, unknown>;
}

export { escapeHtml };
const e = escapeHtml;

/** Configuration fields safe to show: never credentials beyond their kind and account, never URLs. */
export function safeConfigEntries(config: Record<string, unknown>): [string, string][] {
  const unsafeName = /key|sas|connection|secret|password|token|signature|url|endpoint|credential/i;
  const out: [string, string][] = [];
  const walk = (value: unknown, path: string, depth: number) => {
    if (value === null || value === undefined) return;
    if (Array.isArray(value)) {
      if (value.every((v) => ['string', 'number', 'boolean'].includes(typeof v))) add(path, value.join(', '));
    } else if (typeof value === 'object') {
      if (depth < 3)
        for (const [k, v] of Object.entries(value as Record<string, unknown>))
          if (!unsafeName.test(k)) walk(v, path ? `${path}.${k}` : k, depth + 1);
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

const entry = (k: string, v: string) => `<dt>${e(k)}</dt><dd>${e(v)}</dd>`;
const envItem = (k: string, v: string) => `<div${k === 'target' ? ' class="wide"' : ''}>${entry(k, v)}</div>`;

function environmentBlock(report: Report, rawConfig: Record<string, unknown>): string {
  const env = report.environment;
  const h = report.header;
  const items: [string, string][] = [
    ['target', env.target],
    ['date', h.createdAt.replace('T', ' ').replace(/\.\d+Z$/, ' UTC')],
    ['command', h.command],
    ['node', env.node],
    ['cpus', `${env.cpus} × ${env.cpuModel}`],
    ['os', `${env.os} ${env.arch}`],
    ['memory', formatBytes(env.totalMemoryBytes)],
    ...(env.container ? [['container', containerLimits(env.container)] as [string, string]] : []),
    ...(env.sdkVersion ? [['Azure SDK', env.sdkVersion] as [string, string]] : []),
    ...(env.tcp ? [['TCP', tcpText(env.tcp)] as [string, string]] : []),
    ...(env.endpoint ? [['endpoint', endpointText(env.endpoint, ', ')] as [string, string]] : []),
    ...(env.cloud
      ? [['Azure VM', [env.cloud.vmSize, env.cloud.location].filter(Boolean).join(', ')] as [string, string]]
      : []),
    ['runs', h.runsPerContender.map((c) => `${c.label} ${c.runs}`).join(', ')],
  ];
  const config = safeConfigEntries(rawConfig);
  return (
    (h.complete
      ? ''
      : '<p class="warn">This run stopped early: the file holds only what was measured before it ' +
        'stopped.</p>') +
    `<dl class="env">${items.map(([k, v]) => envItem(k, v)).join('')}` +
    '</dl>' +
    (config.length
      ? `<details><summary>configuration</summary><dl class="config">` +
        `${config.map(([k, v]) => `<div>${entry(k, v)}</div>`).join('')}</dl></details>`
      : '')
  );
}

/** A cell of the summary table: figures right-aligned, the contender with its swatch and description. */
function summaryCell(c: Column, v: CellValue, s: ReportContender, colour: (s: string) => string): string {
  switch (c.format) {
    case 'rank':
      return `<td class="num">${rankText(v as RankCell)}</td>`;
    case 'text':
      // The contender's name carries its colour and its description; other words are as they are.
      return c.id === 'contender'
        ? `<td><span class="swatch" style="background:${colour(s.label)}"></span>` +
            `<strong>${e(String(v))}</strong><div class="desc">${e(s.description)}</div></td>`
        : `<td>${e(v === undefined ? '—' : String(v))}</td>`;
    case 'time':
      return `<td class="num">${timeHtml(v as TimeCell)}</td>`;
    case 'check':
      return `<td>${checkHtml(v as CheckCell)}</td>`;
    case 'count': {
      const failed = s.failedRequests ? ` <span class="bad">(${s.failedRequests} failed)</span>` : '';
      return `<td class="num">${count(v as number)}${failed}</td>`;
    }
    case 'money':
      return `<td class="num">${money(v as number | undefined)}</td>`;
    case 'int':
      return `<td class="num">${String(v)}</td>`;
    default:
      return `<td class="num">${fmt(v as number | undefined)}</td>`;
  }
}

function timeHtml(v: TimeCell): string {
  const b = v.bounds;
  if (!b || !Number.isFinite(b.highMs - b.lowMs)) return fmt(v.medianMs);
  return b.of === 'range'
    ? `${fmt(v.medianMs)} <span class="pm">(${fmt(b.lowMs)}–${fmt(b.highMs)})</span>`
    : `${fmt(v.medianMs)} <span class="pm">± ${fmt(b.fromMedianMs)}</span>`;
}

const checkHtml = (v: CheckCell) =>
  !v.verified
    ? '<span class="bad">✗ failed</span>'
    : v.notVerified
      ? `<span class="bad">not verified (${e(v.notVerified)})</span>`
      : '<span class="ok">✓ ok</span>';

function summaryRows(report: Report, colour: (s: string) => string): { head: string; rows: string[] } {
  const columns = columnsFor(report.tables.ranked, 'html');
  const head = columns
    .map((c) => {
      const cls = c.format === 'text' || c.format === 'check' ? '' : ' class="num"';
      return `<th${cls}>${e(headerFor(c, 'html'))}</th>`;
    })
    .join('');
  const rows = report.contenders.map((s, i) => {
    const recommended = report.recommendation?.contender === s.label ? ' class="recommended"' : '';
    const cells = columns.map((c) => summaryCell(c, c.values[i], s, colour)).join('');
    return `<tr data-strategy="${e(s.label)}"${recommended}>${cells}</tr>`;
  });
  return { head, rows };
}

function summaryTable(report: Report, colour: (s: string) => string): string {
  const { head, rows } = summaryRows(report, colour);
  const notes = [
    ...report.contenders.flatMap((s: ReportContender) => {
      const many = manyBlobLine(s);
      return many ? [`<li>${e(many)}</li>`] : [];
    }),
    ...completionLines(report.contenders).map((l) => `<li>${e(l)}</li>`),
    ...[...openLoopLines(report.contenders), ...rateCurveLines(report)].map((l) => `<li>${e(l.trim())}</li>`),
    ...report.contenders.flatMap((s) =>
      s.problems.map((p) => `<li class="bad"><strong>${e(s.label)}</strong> failed ${e(p)}</li>`),
    ),
    ...report.serverClock.map(
      (g) =>
        `<li>${e(g.contender)}: client ${fmt(g.clientMs)} ms, server ${fmt(g.serverMs)} ms ` +
        `(${g.ms >= 0 ? '+' : ''}${fmt(g.ms)} ms; bound ${fmt(g.boundMs)} ms: 3% + the socket buffers' ` +
        `drain)</li>`,
    ),
  ];
  return (
    `<div class="scroll"><table><thead><tr>${head}</tr></thead>` +
    `<tbody>${rows.join('')}</tbody></table></div>` +
    (notes.length ? `<ul class="notes">${notes.join('')}</ul>` : '') +
    `<p class="lede">Prices: ${e(report.prices.name)}, as of ${e(report.prices.asOf)}.</p>`
  );
}

const timeWentItem = (t: TimeWent) => `<li data-strategy="${e(t.contender)}">${e(timeWentLine(t))}</li>`;

/** A list of items, each escaped, with the list's class; nothing where there is none. */
const list = (cls: string, items: readonly string[]) =>
  items.length ? `<ul class="${cls}">${items.join('')}</ul>` : '';

/** The answer, above the fold: the recommendation, then the verdicts and one warning per kind. */
function answer(report: Report): string {
  const rec = report.recommendation;
  const recommendation = rec
    ? `<p class="recommendation" data-contender="${e(rec.contender)}">${e(rec.text)}</p>`
    : '<p class="recommendation">No recommendation: no contender verified.</p>';
  const verdicts = report.tune
    ? []
    : report.verdicts.map((v) => `<li class="verdict" data-kind="${v.kind}">${e(v.text)}</li>`);
  return (
    `<section id="answer">${recommendation}` +
    list('verdicts', verdicts) +
    list('time-went', report.timeWent.map(timeWentItem)) +
    list(
      'warnings',
      report.warnings.map((w) => `<li class="warn" data-kind="${w.kind}">${e(w.text)}</li>`),
    ) +
    list(
      'warnings warmup',
      report.warmupFaults.map((f) => `<li>${e(`${f.contender} ${f.text}`)}</li>`),
    ) +
    '</section>'
  );
}

const swatch = (colour: string, cls = 'swatch') =>
  `<span class="${cls}" style="background:${colour}"></span>`;

function summarySection(report: Report, colour: (s: string) => string): string {
  const stats = report.contenders;
  const size = report.header.objectSizeBytes;
  const steady = stats.some((s) => s.steady)
    ? " (steady runs: the time of one pass at each active interval's rate, see below)"
    : '';
  const spread =
    report.header.mostRuns > 1
      ? " over the measured runs (± reaches the ends of the median's 95% interval)"
      : '';
  return (
    `<section id="summary"><h2>Summary</h2><p class="lede">Ranked fastest to slowest by median wall ` +
    `time${steady}${spread}; contenders a rank test (Mann-Whitney U, 5%) cannot tell apart share a ` +
    'rank, shown as 1=. Warm-up runs are left out.' +
    `${size !== undefined ? ` Object size ${e(formatBytes(size))}.` : ''}</p>` +
    `${summaryTable(report, colour)}</section>`
  );
}

function sweepSection(report: Report): string[] {
  const sweep = report.sweep?.grid;
  if (!sweep?.rows.length || !sweep.cols.length) return [];
  const marks =
    (sweep.best ? ' ★ marks the best cell' : '') +
    (sweep.tied && sweep.tied.length > 1
      ? ', = the cells a rank test cannot tell from it (any of them will do)'
      : '') +
    (sweep.best ? '.' : '');
  const advice = report.sweep!.sdkAdvice.map((l) => `<li>${e(l.trim())}</li>`);
  return [
    `<section id="sweep"><h2>${e(sweep.title)}</h2><p class="lede">${e(sweep.rowLabel)} × ` +
      `${e(sweep.colLabel)}, values in ${e(sweep.unit)}; darker is higher.${marks}</p>${heatmap(sweep)}` +
      list('notes', advice) +
      '</section>',
  ];
}

function throughputSections(report: Report, colour: (s: string) => string): string[] {
  const stats = report.contenders;
  if (!stats.length) return [];
  const phasesShown = PHASES.filter((p) => stats.some((s) => (s.phaseShare[p] ?? 0) > 0));
  const legend = phasesShown.map(
    (p) =>
      `<li title="${e(PHASE_MEANINGS[p])}">${swatch(PHASE_COLOURS[p])}<strong>${p}</strong> ` +
      `${e(PHASE_MEANINGS[p])}</li>`,
  );
  return [
    `<section id="throughput"><h2>Throughput</h2><p class="lede">Bytes moved per second of wall time, ` +
      `per measured run. The bar is the median, the whisker spans the slowest and fastest run, the dark ` +
      `band is the 95% confidence interval of the mean (wide when there are few runs).</p>` +
      `${throughputChart(stats, report.ranges, colour)}</section>`,
    `<section id="phases"><h2>Where the time goes</h2><p class="lede">Share of summed request time ` +
      `spent in each phase, over successful requests. Reused keep-alive sockets have no dns/tcp/tls ` +
      `phase.</p>` +
      `${phaseChart(stats, colour)}<ul class="legend">${legend.join('')}</ul></section>`,
  ];
}

function latencySection(report: Report, colour: (s: string) => string): string[] {
  const withLatency = report.contenders.filter((s) => s.totalPercentilesMs.length > 0);
  if (!withLatency.length) return [];
  const legend = withLatency.map(
    (s) =>
      `<li>${swatch(colour(s.label), 'line')}<strong>${e(s.label)}</strong> ` +
      `${s.latencyMs.total?.count ?? 0} requests</li>`,
  );
  return [
    `<section id="latency"><h2>Request latency by percentile</h2><p class="lede">Total time per ` +
      `request at each percentile, from the merged HDR histograms of every measured run and worker ` +
      `(never averaged percentiles).</p>` +
      `<ul class="legend">${legend.join('')}</ul>` +
      `${latencyChart(withLatency, report.ranges, colour, report.latencyPercentiles)}</section>`,
  ];
}

function steadySection(report: Report, colour: (s: string) => string): string[] {
  const steady = report.contenders.filter((s) => s.steady);
  if (!steady.length) return [];
  return [
    `<section id="steady"><h2>Steady state over time</h2><p class="lede">Each run repeated its ` +
      `requests for ${e(seconds(steady[0]!.steady!.durationMs))}; one point per interval of the median ` +
      `run (by rate). The shaded band is the active window, when every worker was issuing: rates and ` +
      `ranks come from it, ramp-up and drain are left out. Red points had throttled answers ` +
      `(429/503).</p>` +
      steady
        .map((s) => `<h3>${swatch(colour(s.label))}${e(s.label)}</h3>${seriesChart(s, colour(s.label))}`)
        .join('') +
      '</section>',
  ];
}

export function renderHtml(input: HtmlReportInput): string {
  const { report } = input;
  const stats = report.contenders;
  const title = report.header.title;
  const colourOf = new Map(stats.map((s, i) => [s.label, STRATEGY_COLOURS[i % STRATEGY_COLOURS.length]!]));
  const colour = (name: string) => colourOf.get(name) ?? '#8c959f';
  const sections = [
    answer(report),
    ...(report.tune ? [tuneSection(report.tune, report.unit)] : []),
    summarySection(report, colour),
    ...(report.thresholds ? [thresholdHtml(report)] : []),
    ...sweepSection(report),
    ...throughputSections(report, colour),
    ...latencySection(report, colour),
    ...(report.train ? [trainSection(report, colour)] : []),
    ...(report.sizeBuckets ? [sizeBucketSection(report, colour)] : []),
    ...(report.mix ? [mixSection(report, colour)] : []),
    ...(report.checkpoint ? [checkpointSection(report)] : []),
    ...steadySection(report, colour),
  ];
  const contenders = `${stats.length} contender${stats.length === 1 ? '' : 's'}`;
  const footer =
    `blob-cacher ${e(report.environment.packageVersion)} · report schema ${report.schemaVersion} · ` +
    contenders;
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
<footer>${footer}</footer>
</main>
</body>
</html>
`;
}
