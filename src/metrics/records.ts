// What one request measured: the raw record every report is derived from.
import type { PhaseDurationsMs } from '../transport/phases.js';

/** One request, as measured. Durations in ms; the start in epoch ms (timeOrigin + now). */
export interface OpRecord {
  worker: number;
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
  backoffMs: number;
  md5?: string;
  /** An upload read back after the timed section that could not be: why (the request itself succeeded). */
  readBackError?: string;
  /** List Blobs: the names this page held. */
  objects?: number;
  error?: string;
}
