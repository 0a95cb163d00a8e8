// What one request measured: the raw record every report is derived from.
import type { FaultCounts, ThrottleClass } from '../transport/answer.js';
import type { PhaseDurationsMs } from '../transport/phases.js';

/**
 * The worker and item of a request the coordinator makes itself (Put Block List): it belongs to no
 * worker and to no item. A results file writes it as null in both columns.
 */
export const COORDINATOR = -1;

/** One request, as measured. Durations in ms; the start in epoch ms (timeOrigin + now). */
export interface OpRecord {
  /** The worker process that made it, or COORDINATOR. */
  worker: number;
  /** The item it moved, or COORDINATOR. */
  item: number;
  offsetBytes: number;
  bytes: number;
  status: number;
  startEpochMs: number;
  totalMs: number;
  phases: PhaseDurationsMs;
  reused: boolean;
  /** Tries after the first; answers that throttled (503/429); time slept before retrying. */
  retries: number;
  throttled: number;
  /** Which limit its last throttled answer named (Azure's words), where one came. */
  throttledBy?: ThrottleClass;
  /** Resets, timeouts and other faults its tries met, by kind, where one met any. */
  faults?: FaultCounts;
  backoffMs: number;
  md5?: string;
  /** An upload read back after the timed section that could not be: why (the request itself succeeded). */
  readBackError?: string;
  /** List Blobs: the names this page held. */
  objects?: number;
  error?: string;
  /**
   * --hedge: this item's request was duplicated; `won` says which finished first (its timing is the
   * record's).
   */
  hedge?: HedgeOutcome;
}

/**
 * A hedged item: `won` 'first' (the original) or 'hedge' (the duplicate); `afterMs`, how long after
 * the original was sent (left its queue) the duplicate went;
 * `loserBytes`, what the aborted one had received (extra bytes).
 */
export interface HedgeOutcome {
  won: 'first' | 'hedge';
  afterMs: number;
  loserBytes: number;
}
