// A replay's summary lines and per-operation cells as plain text, shared by every format (each
// escapes them for its medium through safe-text.ts).
import type { ReplayLatencyMs, ReplayOpRow, ReplayReport } from '../analysis/replay.js';
import { bytes, DASH, fixed, num, seconds } from './format.js';

const FORMAT_NAMES: Record<ReplayReport['format'], string> = {
  csv: 'CSV',
  'storage-logs-csv': 'StorageBlobLogs CSV',
  'storage-logs-json': 'StorageBlobLogs JSON lines',
};

const percent = (share: number) => `${(share * 100).toFixed(share && share < 0.01 ? 2 : 1)}%`;
const lat = (l: ReplayLatencyMs | undefined) => (l ? `${num(l.p50)} / ${num(l.p90)} / ${num(l.p99)}` : DASH);

/** The source, the schedule and what was made before it, as lines of plain text (escaped by each medium). */
export function replaySummary(r: ReplayReport): string[] {
  const ratio = r.paceRatio === undefined ? '' : ` (${fixed(r.paceRatio, 3)}x the schedule)`;
  const late = r.latenessMs
    ? `; send lateness p50 ${num(r.latenessMs.p50)} ms, p99 ${num(r.latenessMs.p99)} ms`
    : '';
  const lines = [
    `log: ${r.file} (${FORMAT_NAMES[r.format]}, ${r.lines} lines, ${r.steps} steps) against ${r.target}`,
    `pace: recorded span ${seconds(r.recordedSpanMs)}, ` +
      `at ${r.speed}x scheduled over ${seconds(r.scheduledMs)}; ` +
      `the replay took ${seconds(r.wallMs)}${ratio}`,
    `rate: offered ${num(r.offeredPerSecond)}/s, achieved ${num(r.achievedPerSecond)}/s; ` +
      `${r.skipped} skipped at --max-in-flight ${r.maxInFlight} (${percent(r.skippedShare)})${late}`,
    `created before the start: objects read first ${r.created.objects} ` +
      `(${bytes(r.created.bytes)} written, ${r.created.existing} found at their size)`,
  ];
  if (r.unsupported.length)
    lines.push(`not replayed: ${r.unsupported.map((u) => `${u.count} ${u.operation}`).join(', ')}`);
  if (!r.complete)
    lines.push('INCOMPLETE: stopped before every step was sent; the figures are what was measured');
  return lines;
}

export const HEADER = ['operation', 'planned', 'sent', 'skipped', 'ok', 'failed', 'ops/s', 'MiB/s'];
export const LATENCY_HEADER = ['replayed p50/p90/p99 ms', 'recorded p50/p90/p99 ms'];

export function cells(row: ReplayOpRow): string[] {
  const counts = [row.planned, row.sent, row.skipped, row.succeeded, row.failed].map(String);
  return [
    row.op,
    ...counts,
    num(row.perSecond),
    num(row.mibPerSecond),
    lat(row.replayedMs),
    lat(row.recordedMs),
  ];
}

/** Each operation's first failure, as a line. */
export function errorLines(r: ReplayReport): string[] {
  return r.rows.flatMap((row) => (row.firstError ? [`${row.op}: first failure ${row.firstError}`] : []));
}
