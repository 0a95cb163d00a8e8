// Faults a contender's runs met, in words: connection resets, timeouts and other failed tries by
// kind, throttled answers and retries, as the report's warning and the warm-up line say them.
import { FAULT_KINDS, type FaultCounts, type FaultKind } from '../transport/answer.js';
import type { RunRecord } from '../results/schema.js';

export interface FaultTally {
  retries: number;
  /** Answers that throttled (503/429), retried or not. */
  throttled: number;
  /** Failed tries by kind, throttled answers apart. */
  faults: FaultCounts;
}

const WORDS: Readonly<Record<FaultKind, [string, string]>> = {
  reset: ['connection reset', 'connection resets'],
  timeout: ['timeout', 'timeouts'],
  refused: ['refused connection', 'refused connections'],
  dns: ['failed name lookup', 'failed name lookups'],
  'server-error': ['server error (5xx)', 'server errors (5xx)'],
};

export const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** The runs' faults added up. */
export function faultTally(runs: readonly Pick<RunRecord, 'retries' | 'throttled' | 'faults'>[]): FaultTally {
  const faults: FaultCounts = {};
  for (const r of runs) {
    for (const kind of FAULT_KINDS) faults[kind] = (faults[kind] ?? 0) + (r.faults?.[kind] ?? 0);
  }
  for (const kind of FAULT_KINDS) if (!faults[kind]) delete faults[kind];
  const retries = runs.reduce((s, r) => s + r.retries, 0);
  return { retries, throttled: runs.reduce((s, r) => s + r.throttled, 0), faults };
}

export const metFaults = (t: FaultTally) =>
  t.retries > 0 || t.throttled > 0 || FAULT_KINDS.some((k) => (t.faults[k] ?? 0) > 0);

/** `2 connection resets, 1 throttled answer (503/429), 3 retries`: each kind met, then the retries. */
export function faultParts(t: FaultTally): string[] {
  return [
    ...FAULT_KINDS.flatMap((k) => (t.faults[k] ? [plural(t.faults[k]!, ...WORDS[k])] : [])),
    ...(t.throttled ? [`${plural(t.throttled, 'throttled answer')} (503/429)`] : []),
    ...(t.retries ? [plural(t.retries, 'retry', 'retries')] : []),
  ];
}
