// Faults met in warm-up runs, counted apart from the measured ones: warm-up runs are left out of
// every figure, but a retry, a throttled answer or a failed request there says something about the
// target (a cold cache, a rate limit) that the reader should see.
import { cellLabel } from '../results/label.js';
import { RECORD_COLUMNS, type RunRecord } from '../results/schema.js';
import type { FaultCounts } from '../transport/answer.js';
import { faultParts, faultTally, metFaults, plural } from './faults.js';

export interface WarmupFaults {
  contender: string;
  /** Its warm-up runs, and how many of them failed as a whole. */
  runs: number;
  failedRuns: number;
  retries: number;
  /** Answers that throttled (503/429), retried or not. */
  throttled: number;
  /** Failed tries by kind (resets, timeouts, ...), throttled answers apart. */
  faults: FaultCounts;
  failedRequests: number;
  /** The failed requests' final statuses, most frequent first; 0: no answer (a reset, a timeout). */
  statuses: { status: number; count: number }[];
  /** `warm-up: 3 retries, 1 throttled answer (503/429), 1 failed request (503)` */
  text: string;
}

const STATUS = RECORD_COLUMNS.indexOf('status');
const ERROR = RECORD_COLUMNS.indexOf('error');

function textOf(f: Omit<WarmupFaults, 'text' | 'contender'>): string {
  const statuses = f.statuses
    .map((s) => `${s.count} x ${s.status === 0 ? 'no answer' : s.status}`)
    .join(', ');
  const parts = [
    ...faultParts(f),
    ...(f.failedRequests
      ? [`${plural(f.failedRequests, 'failed request')}${statuses ? ` (${statuses})` : ''}`]
      : []),
    ...(f.failedRuns ? [`${plural(f.failedRuns, 'failed run')}`] : []),
  ];
  return `warm-up: ${parts.join(', ')}, not counted in the figures`;
}

/** Per contender with any fault in its warm-up runs, in the order they first ran. */
export function warmupFaults(runs: readonly RunRecord[]): WarmupFaults[] {
  const byLabel = new Map<string, RunRecord[]>();
  for (const r of runs) {
    if (!r.warmup) continue;
    const label = cellLabel(r.strategy, r.cell);
    byLabel.set(label, [...(byLabel.get(label) ?? []), r]);
  }
  const out: WarmupFaults[] = [];
  for (const [contender, g] of byLabel) {
    const statusCounts = new Map<number, number>();
    for (const r of g) {
      for (const row of r.records) {
        if (row[ERROR] === null) continue;
        const status = typeof row[STATUS] === 'number' ? row[STATUS] : 0;
        statusCounts.set(status, (statusCounts.get(status) ?? 0) + 1);
      }
    }
    const f = {
      runs: g.length,
      failedRuns: g.filter((r) => r.error !== undefined).length,
      ...faultTally(g),
      failedRequests: g.reduce((s, r) => s + r.failedRequests, 0),
      statuses: [...statusCounts]
        .map(([status, count]) => ({ status, count }))
        .sort((a, b) => b.count - a.count || a.status - b.status),
    };
    if (f.failedRuns || metFaults(f) || f.failedRequests) out.push({ contender, ...f, text: textOf(f) });
  }
  return out;
}
