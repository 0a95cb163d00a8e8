// The console report, answer first: a two-line header, the ranked table, the verdict, grouped
// warnings, a pointer to the details, and last the recommendation with its reason. Details
// (server clock, phases, percentiles, untimed steps, steady series) with --details.
import type { Report, ReportContender } from '../analysis/report-model.js';
import { PHASES } from '../transport/phases.js';
import { columnsFor, headerFor, textCell } from './cells.js';
import { bytes, fixed, money, num, timeWentLine } from './format.js';
import { completionLines } from './completion.js';
import { openLoopLines, rateCurveLines } from './open-loop.js';
import { seconds, steadyLines } from './steady.js';
import { tuneLines } from './tune.js';
import { forTerminal } from './safe-text.js';
import { thresholdLines } from './thresholds.js';
import { sizeBucketLines } from './size-buckets.js';
import { mixLines } from './mix.js';
import { checkpointLines } from './checkpoint.js';
import { trainLines } from './train.js';

export interface ConsoleOptions {
  details?: boolean;
  color?: boolean;
  /** The results file, for the pointer to `report --details`. */
  resultsPath?: string;
}

type Paint = (code: string, text: string) => string;
const painter =
  (on: boolean): Paint =>
  (code, text) =>
    on ? `\x1b[${code}m${text}\x1b[0m` : text;

/** Header: what was measured where, and the runs each contender has as measured. */
function header(r: Report): string[] {
  const h = r.header;
  const size =
    h.objectSizeBytes !== undefined
      ? `, object ${bytes(h.objectSizeBytes)} (${h.objectSizeBytes} bytes)`
      : '';
  // The most common count, then the contenders that differ from it: as measured, kept short.
  const usual = h.usualRuns;
  const odd = h.runsPerContender.filter((c) => c.runs !== usual);
  const others = odd.map((c) => `${forTerminal(c.label)} ${c.runs}`).join(', ');
  const runs = `${usual} measured runs each${odd.length ? ` (${others})` : ''}`;
  // Folded into the header: the warning below would repeat it on every zero-config run.
  const where = h.targetOnThisMachine ? ' (on this machine: it shares the CPUs)' : '';
  return [forTerminal(h.title), `target ${forTerminal(h.target)}${where}${size}; ${runs}`];
}

/** One row per contender; sweeps show each swept option as its own column, so labels stay short. */
export function rankedTable(r: Report, paint: Paint = painter(false)): string[] {
  const columns = columnsFor(r.tables.ranked, 'console');
  const head = columns.map((c) => forTerminal(headerFor(c, 'console')));
  // Cells are escaped before the widths are taken: a column is as wide as what the terminal shows.
  const rows = r.contenders.map((_, i) =>
    columns.map((c) => forTerminal(textCell(c, c.values[i], 'console'))),
  );
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  // Names and the rank read from the left, figures from the right; the last column is not padded.
  const left = columns.map((c) => c.format === 'rank' || c.format === 'text');
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : left[i] ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [
    line(head),
    ...rows.map((row) => {
      const text = line(row);
      return row.at(-1) === 'FAILED' ? paint('31', text) : text;
    }),
  ];
}

/** The sweep grid: rows are the first axes, columns the last; * the best cell, = those tied with it. */
export function gridLines(r: Report): string[] {
  const s = r.sweep;
  if (!s?.grid.cols.length) return [];
  const g = s.grid;
  const cols = g.cols.map((c) => forTerminal(`${g.colLabel.replace(/^--/, '')} ${c}`));
  const rowLabel = g.rowLabel === '(one row)' ? '' : forTerminal(g.rowLabel.replace(/--/g, ''));
  const rows = g.rows.map((x) => (x === '-' ? '' : forTerminal(x)));
  const rowW = Math.max(rowLabel.length, ...rows.map((x) => x.length));
  const cells = g.values.map((row, i) =>
    row.map((v, j) => {
      const mark =
        g.best?.row === i && g.best.col === j
          ? '*'
          : g.tied?.some((t) => t.row === i && t.col === j)
            ? '='
            : ' ';
      return `${v === null ? 'failed' : num(v)}${mark}`;
    }),
  );
  const w = Math.max(...cols.map((c) => c.length), ...cells.flat().map((c) => c.length));
  return [
    `${forTerminal(g.title)}; * best, = no significant difference from it`,
    `${rowLabel.padEnd(rowW)}  ${cols.map((c) => c.padStart(w)).join('  ')}`.trimEnd(),
    ...cells.map((row, i) => `${rows[i]!.padEnd(rowW)}  ${row.map((c) => c.padStart(w)).join('  ')}`),
  ];
}

/** Warm connections, and the server clock's span against the client's. */
function connectionLines(r: Report): string[] {
  const out: string[] = [];
  const warm = r.contenders.filter((s) => s.warmSockets !== undefined);
  if (warm.length)
    out.push(
      '',
      `connections warm: ${warm.map((s) => `${s.label} ${s.warmSockets}`).join(', ')} socket(s) opened ` +
        'before the barrier per run (no connect phases inside the timed span)',
    );
  if (r.serverClock.length) {
    out.push(
      '',
      "server clock (the target's own span of each contender's data requests, median; " +
        "bound = 3% + the socket buffers' drain):",
    );
    for (const g of r.serverClock)
      out.push(
        `  ${g.contender}: client ${num(g.clientMs)} ms, server ${num(g.serverMs)} ms ` +
          `(${g.ms >= 0 ? '+' : ''}${num(g.ms)} ms, bound ${num(g.boundMs)} ms)`,
      );
  }
  return out;
}

/** Per contender, each phase's latency percentiles. */
function phaseLatencyLines(r: Report): string[] {
  const out = [
    '',
    'per-phase latency, ms: p50 / p90 / p99 / max  (phases absent on reused sockets are not counted)',
  ];
  for (const s of r.contenders) {
    out.push(`${s.label}:`);
    for (const m of [...PHASES, 'total'] as const) {
      const l = s.latencyMs[m];
      if (l)
        out.push(
          `  ${m.padEnd(10)} n=${String(l.count).padStart(5)}  ` +
            `${num(l.p50)} / ${num(l.p90)} / ${num(l.p99)} / ${num(l.max)}`,
        );
    }
  }
  return out;
}

/** One contender's run in figures: duration, phases, untimed steps, retries, operations and cost. */
function contenderDetail(s: ReportContender): string[] {
  const out: string[] = [];
  const shares = PHASES.filter((p) => s.phaseShare[p] !== undefined).map(
    (p) => `${p} ${(s.phaseShare[p]! * 100).toFixed(1)}%`,
  );
  const what = s.steady
    ? `steady ${seconds(s.steady.durationMs)}, one pass ${num(s.wallMs.median)} ms at the active rate`
    : `duration ${num(s.wallMs.median)} ms`;
  out.push(`${s.label}: ${what}, count ${s.requestsPerRun}${shares.length ? `, ${shares.join(', ')}` : ''}`);
  const many = manyBlobLine(s);
  if (many) out.push(many);
  const u = s.untimedMs;
  if (u)
    out.push(
      `${s.label}: outside the timed span, per run: setup ${num(u.setup)} ms, ` +
        `collect ${num(u.collect)} ms, verify ${num(u.verify)} ms, cleanup ${num(u.cleanup)} ms`,
    );
  if (s.retries || s.throttled || s.failedRequests)
    out.push(
      `${s.label}: retries ${s.retries} (throttled ${s.throttled}), backoff ${num(s.backoffMs)} ms, ` +
        `failed requests ${s.failedRequests}`,
    );
  const ops = s.cost.operations;
  const calls =
    s.cost.counted === 'calls'
      ? ' (SDK calls: the requests inside them are not traced, so at least this many)'
      : '';
  const tiers = s.cost.tiers
    .map((t) => `${t.tier} ${money(t.per1000Objects)} per 1,000 objects, ${money(t.perGiB)} per GiB`)
    .join('; ');
  out.push(
    `${s.label}: billable operations over ${s.runs} run(s)${calls}: read ${ops.read}, write ${ops.write}, ` +
      `list ${ops.list}, other ${ops.other}; ${tiers}`,
  );
  for (const p of s.problems) out.push(`${s.label}: FAILED ${p}`);
  return out;
}

/** Per-contender detail: phases, percentiles, untimed steps, retries, failures, the server's clock. */
export function detailLines(r: Report): string[] {
  const out = [...connectionLines(r), ...steadyLines(r.contenders, r.tables.steady), ...phaseLatencyLines(r)];
  const completion = completionLines(r.contenders);
  if (completion.length) out.push('', ...completion);
  out.push('', ...r.contenders.flatMap(contenderDetail));
  out.push(`prices: ${r.prices.name}, as of ${r.prices.asOf}`);
  out.push(`environment: ${environmentLine(r)}`);
  if (r.sweep?.sdkAdvice.length) out.push('', ...r.sweep.sdkAdvice);
  // Every line holds labels, problems, prices or environment text from the file: each one escaped.
  return out.map(forTerminal);
}

type Environment = Report['environment'];

/** The kernel's TCP settings: congestion control and the socket buffers' maxima. */
export const tcpText = (tcp: NonNullable<Environment['tcp']>) =>
  [
    tcp.congestionControl,
    tcp.rmemMaxBytes !== undefined ? `rmem max ${bytes(tcp.rmemMaxBytes)}` : '',
    tcp.wmemMaxBytes !== undefined ? `wmem max ${bytes(tcp.wmemMaxBytes)}` : '',
  ]
    .filter(Boolean)
    .join(', ');

/** The endpoint's addresses, and the time a connection to it took. */
export const endpointText = (endpoint: NonNullable<Environment['endpoint']>, between: string) =>
  `${endpoint.addresses.join(between)}` +
  (endpoint.connectMs !== undefined ? `, connect ${num(endpoint.connectMs)} ms` : '');

/** What decides transfer speed, in one line: CPUs, memory, Node and SDK, TCP, the endpoint, the VM. */
export function environmentLine(r: Report): string {
  const e = r.environment;
  return [
    `${e.cpus} x ${e.cpuModel}`,
    `${bytes(e.totalMemoryBytes)} memory`,
    `node ${e.node}`,
    ...(e.sdkVersion ? [`@azure/storage-blob ${e.sdkVersion}`] : []),
    ...(e.tcp ? [`tcp ${tcpText(e.tcp)}`] : []),
    ...(e.endpoint ? [`endpoint ${e.endpoint.host} = ${endpointText(e.endpoint, ' ')}`] : []),
    ...(e.cloud ? [`Azure VM ${[e.cloud.vmSize, e.cloud.location].filter(Boolean).join(' in ')}`] : []),
    ...(e.container ? [`container: ${containerLimits(e.container)}`] : []),
  ]
    .map(forTerminal)
    .join('; ');
}

/** A container's limits, which the process had instead of the host's cpus and memory. */
export function containerLimits(c: NonNullable<Report['environment']['container']>): string {
  return [
    c.cpuQuota === undefined ? '' : `CPU quota ${Number(c.cpuQuota.toFixed(2))} core(s)`,
    c.memoryLimitBytes === undefined ? '' : `memory limit ${bytes(c.memoryLimitBytes)}`,
  ]
    .filter(Boolean)
    .join(', ');
}

/**
 * Many-blob workloads: requests (pages, GETs, HEADs) and the set's blobs per second, and each request's
 * latency.
 */
export function manyBlobLine(s: ReportContender): string | undefined {
  if (!s.blobsPerSecond || s.params?.fileCount === undefined) return undefined;
  const total = s.latencyMs.total;
  const unit = s.params.pageSize !== undefined ? 'page' : 'request';
  return (
    `${s.label}: ${s.params.fileCount} blobs, ${s.requestsPerRun} ${unit}(s) per run: ` +
    `${fixed(s.opsPerSecond.median, 0)} ${unit}s/s, ${fixed(s.blobsPerSecond.median, 0)} blobs/s, ` +
    `${num(s.throughputMiBps.median)} MiB/s; ` +
    `per-${unit} latency p50 ${num(total?.p50)} / p99 ${num(total?.p99)} ms`
  );
}

export function renderConsole(r: Report, opts: ConsoleOptions = {}): string {
  const paint = painter(opts.color ?? false);
  // A tune answers with its search; the table of every cell it measured is a detail.
  const lines = [
    ...header(r),
    '',
    ...(r.tune ? tuneLines(r.tune, r.unit).map(forTerminal) : rankedTable(r, paint)),
  ];
  if (r.tune && opts.details) lines.push('', ...rankedTable(r, paint));
  const grid = gridLines(r);
  if (grid.length) lines.push('', ...grid);
  if (r.timeWent.length) lines.push('', ...r.timeWent.map((t) => forTerminal(timeWentLine(t))));
  // Verdicts and warnings are one block: each line says which it is, and the default answer has 30 lines.
  const verdictLines =
    r.verdicts.length && !r.tune ? r.verdicts.map((v) => `verdict: ${forTerminal(v.text)}`) : [];
  const warned = r.warnings
    .filter((w) => w.kind !== 'target-on-this-machine')
    .map((w) => paint('33', `warning: ${forTerminal(w.text)}`));
  if (verdictLines.length || warned.length) lines.push('', ...verdictLines, ...warned);
  lines.push(...thresholdLines(r, paint));
  if (r.warmupFaults.length)
    lines.push('', ...r.warmupFaults.map((f) => forTerminal(`${f.contender} ${f.text}`)));
  lines.push(...trainLines(r));
  lines.push(...sizeBucketLines(r, opts.details === true));
  lines.push(...mixLines(r));
  lines.push(...checkpointLines(r, opts.details === true));
  if (opts.details) lines.push(...detailLines(r));
  // Hedged contenders: what the duplicates bought and cost, without --details too.
  const hedged = completionLines(r.contenders.filter((s) => s.hedge));
  if (!opts.details && hedged.length) lines.push('', ...hedged.map(forTerminal));
  if (!opts.details)
    lines.push(
      '',
      'details (phases, percentiles, server clock, untimed steps, cost by class): --details, ' +
        `or blob-cacher report ${forTerminal(opts.resultsPath ?? '<results file>')} --details`,
    );
  // An open loop's rates and latency from the intended start are its answer: shown without --details.
  const open = [...openLoopLines(r.contenders), ...rateCurveLines(r)];
  if (open.length) lines.push('', ...open.map(forTerminal));
  if (r.recommendation) lines.push('', paint('1', forTerminal(r.recommendation.text)));
  return lines.join('\n');
}
