// A replay's report in every format, from the one model (analysis/replay.ts). Text from the log or
// the target (operation names, an error, the file's name) enters through safe-text.ts.
import type { ReplayLatencyMs, ReplayOpRow, ReplayReport } from '../analysis/replay.js';
import { cells, errorLines, HEADER, LATENCY_HEADER, replaySummary } from './replay-lines.js';
import type { ReportFormat } from '../vocabulary/choices.js';
import { raw } from './format.js';
import { csvCell, fitColumn, forMarkdown, forTerminal, toJson } from './safe-text.js';

function renderConsole(r: ReplayReport): string {
  const rows = [[...HEADER, ...LATENCY_HEADER], ...[...r.rows, r.total].map(cells)];
  const widths = rows[0]!.map((_, c) => Math.max(...rows.map((row) => row[c]!.length)));
  const table = rows.map((row) =>
    row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join('  '),
  );
  const errors = errorLines(r).map((l) => fitColumn(l, 200));
  return [forTerminal(r.title), ...replaySummary(r).map(forTerminal), '', ...table, ...errors].join('\n');
}

function renderMarkdown(r: ReplayReport): string {
  const row = (c: string[]) => `| ${c.join(' | ')} |`;
  const header = [...HEADER, ...LATENCY_HEADER];
  return [
    `# ${forMarkdown(r.title)}`,
    '',
    ...replaySummary(r).map((l) => `- ${forMarkdown(l)}`),
    '',
    '## By operation',
    '',
    row(header),
    row(header.map((_, i) => (i === 0 ? '---' : '---:'))),
    ...[...r.rows, r.total].map((x) => row(cells(x).map(forMarkdown))),
    ...errorLines(r).flatMap((l) => ['', forMarkdown(l)]),
  ].join('\n');
}

const CSV_COLUMNS = [
  'operation',
  'planned',
  'sent',
  'skipped',
  'succeeded',
  'failed',
  'ops_per_s',
  'mib_per_s',
  ...['replayed', 'from_send', 'recorded'].flatMap((w) => ['p50', 'p90', 'p99'].map((p) => `${w}_${p}_ms`)),
  'first_error',
];

function csvRow(row: ReplayOpRow): string {
  const l = (x: ReplayLatencyMs | undefined) => [x?.p50, x?.p90, x?.p99].map(raw);
  const counts = [
    row.planned,
    row.sent,
    row.skipped,
    row.succeeded,
    row.failed,
    row.perSecond,
    row.mibPerSecond,
  ];
  return [
    csvCell(row.op),
    ...counts.map(raw),
    ...l(row.replayedMs),
    ...l(row.fromSendMs),
    ...l(row.recordedMs),
    csvCell(row.firstError ?? ''),
  ].join(',');
}

export async function renderReplay(r: ReplayReport, format: Exclude<ReportFormat, 'junit'>): Promise<string> {
  switch (format) {
    case 'console':
      return renderConsole(r);
    case 'md':
      return renderMarkdown(r);
    case 'csv':
      return [CSV_COLUMNS.join(','), ...[...r.rows, r.total].map(csvRow)].join('\n');
    case 'json':
      return toJson(r);
    case 'html':
      return (await import('./replay-html.js')).replayHtml(r);
  }
}
