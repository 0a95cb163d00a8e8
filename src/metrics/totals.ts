// A run's counts over every request (bytes, failures, reuse, retries, phase sums): what a RunRecord's
// totals are made of, added across workers; a steady run's meter and a many-file worker count the same way.
import type { OpRecord } from './records.js';
import type { FaultCounts, FaultKind, ThrottleClass } from '../transport/answer.js';
import type { Phase } from '../transport/phases.js';

/**
 * Totals over requests: a steady run's every lap (its records keep only each item's last), or a run's
 * records.
 */
export interface SteadyTotals {
  requests: number;
  failed: number;
  bytes: number;
  reused: number;
  retries: number;
  throttled: number;
  /** Throttled answers by the limit their request's last one named (a request's all count as that one's). */
  throttledBy?: Partial<Record<ThrottleClass, number>>;
  /** Tries that met a reset, a timeout or another fault, by kind (absent where none did). */
  faults?: FaultCounts;
  backoffMs: number;
  requestSumMs: number;
  phaseSumsMs: Partial<Record<Phase, number>>;
  /** --hedge: duplicates issued (each one more billable request), those that won, the losers' bytes. */
  hedges: number;
  hedgesWon: number;
  hedgeBytes: number;
}

export const emptyTotals = (): SteadyTotals => ({
  requests: 0,
  failed: 0,
  bytes: 0,
  reused: 0,
  retries: 0,
  throttled: 0,
  backoffMs: 0,
  requestSumMs: 0,
  phaseSumsMs: {},
  hedges: 0,
  hedgesWon: 0,
  hedgeBytes: 0,
});

/** One request into a run's totals: what RunRecord's counts are made of. */
export function countInto(t: SteadyTotals, r: OpRecord): void {
  t.requests++;
  t.bytes += r.bytes;
  t.retries += r.retries;
  t.throttled += r.throttled;
  if (r.throttledBy) {
    const by = (t.throttledBy ??= {});
    by[r.throttledBy] = (by[r.throttledBy] ?? 0) + r.throttled;
  }
  t.backoffMs += r.backoffMs;
  if (r.faults) addFaults(t, r.faults);
  if (r.reused) t.reused++;
  if (r.hedge) {
    t.hedges++;
    if (r.hedge.won === 'hedge') t.hedgesWon++;
    t.hedgeBytes += r.hedge.loserBytes;
  }
  if (r.error) {
    t.failed++;
    return;
  }
  t.requestSumMs += r.totalMs;
  // Named reads and writes, not a loop over PHASES by computed keys (megamorphic, once a request).
  const p = r.phases;
  const sums = t.phaseSumsMs;
  if (p.retry !== undefined) sums.retry = (sums.retry ?? 0) + p.retry;
  if (p.wait !== undefined) sums.wait = (sums.wait ?? 0) + p.wait;
  if (p.dns !== undefined) sums.dns = (sums.dns ?? 0) + p.dns;
  if (p.tcp !== undefined) sums.tcp = (sums.tcp ?? 0) + p.tcp;
  if (p.tls !== undefined) sums.tls = (sums.tls ?? 0) + p.tls;
  if (p.send !== undefined) sums.send = (sums.send ?? 0) + p.send;
  if (p.firstByte !== undefined) sums.firstByte = (sums.firstByte ?? 0) + p.firstByte;
  if (p.download !== undefined) sums.download = (sums.download ?? 0) + p.download;
}

/** Workers' totals as one. */
export function addTotals(parts: readonly SteadyTotals[]): SteadyTotals {
  const totals = emptyTotals();
  for (const p of parts) {
    for (const k of [
      'requests',
      'failed',
      'bytes',
      'reused',
      'retries',
      'throttled',
      'backoffMs',
      'requestSumMs',
    ] as const)
      totals[k] += p[k];
    // A worker of an older build (scale-out clients) may not count hedges.
    for (const k of ['hedges', 'hedgesWon', 'hedgeBytes'] as const) totals[k] += p[k] ?? 0;
    if (p.faults) addFaults(totals, p.faults);
    for (const [c, n] of Object.entries(p.throttledBy ?? {}) as [ThrottleClass, number][]) {
      const by = (totals.throttledBy ??= {});
      by[c] = (by[c] ?? 0) + n;
    }
    for (const [phase, ms] of Object.entries(p.phaseSumsMs) as [
      keyof SteadyTotals['phaseSumsMs'],
      number,
    ][]) {
      totals.phaseSumsMs[phase] = (totals.phaseSumsMs[phase] ?? 0) + ms;
    }
  }
  return totals;
}

function addFaults(t: SteadyTotals, faults: FaultCounts): void {
  const into = (t.faults ??= {});
  for (const [kind, n] of Object.entries(faults) as [FaultKind, number][]) into[kind] = (into[kind] ?? 0) + n;
}
