// The raw records a session keeps, all its runs together: at most MAX_RECORDS_PER_SESSION, shared
// evenly among the runs so far (every failed request kept besides), so that a session's memory and
// its results file stay flat in runs. Analysis needs no more: a run's counts, phase sums and
// histograms cover every request (engine/measure.ts); the records are a sample to look at.
import type { MeasuredRun } from './record.js';
import { MAX_RECORDS_PER_RUN, RECORD_COLUMNS, type RecordRow, type RunRecord } from './schema.js';

/** One run's worth: a session of many runs keeps what a one-run results file would. */
export const MAX_RECORDS_PER_SESSION = MAX_RECORDS_PER_RUN;

const ERROR_COLUMN = RECORD_COLUMNS.indexOf('error');

/** Evenly spaced indices of `length`, `max` of them, with `keep`'s besides. */
function evenlyWith(length: number, max: number, keep: (i: number) => boolean): number[] {
  const step = length / max;
  const picked = new Set(Array.from({ length: max }, (_, i) => Math.floor(i * step)));
  for (let i = 0; i < length; i++) if (keep(i)) picked.add(i);
  return [...picked].sort((a, b) => a - b);
}

/** A stored run with at most `max` of its rows (and every failed one), marked sampled when cut. */
export function runRecordAtMost(r: RunRecord, max: number): RunRecord {
  if (r.records.length <= max) return r;
  const rows: RecordRow[] = r.records;
  const kept = evenlyWith(rows.length, max, (i) => rows[i]![ERROR_COLUMN] !== null);
  return { ...r, records: kept.map((i) => rows[i]!), recordsSampled: true };
}

/** A run in memory with at most `max` of its records (and every failed one), marked sampled when cut. */
export function measuredRunAtMost(m: MeasuredRun, max: number): MeasuredRun {
  if (m.records.length <= max) return m;
  return { ...m, records: m.records.pick(m.records.sampledRows(max, true)), recordsSampled: true };
}

/**
 * Keeps a growing list of runs within the budget: after each push, when the runs together hold
 * more records than it, each is cut to its even share. Cutting again keeps an even spread.
 */
export class RecordBudget<R extends { records: { length: number } }> {
  private held = 0;
  private readonly runs: R[];
  private readonly cut: (run: R, max: number) => R;
  private readonly budget: number;

  constructor(runs: R[], cut: (run: R, max: number) => R, budget = MAX_RECORDS_PER_SESSION) {
    this.runs = runs;
    this.cut = cut;
    this.budget = budget;
    for (const r of runs) this.held += r.records.length;
  }

  /**
   * How many of its records a run about to be pushed may keep: all while the session is within
   * budget, else its share. Cutting a run to this before converting it saves making rows only to drop them.
   */
  room(incoming: number): number {
    if (this.held + incoming <= this.budget) return incoming;
    return Math.max(1, Math.floor(this.budget / (this.runs.length + 1)));
  }

  push(run: R): void {
    this.runs.push(run);
    this.held += run.records.length;
    if (this.held <= this.budget) return;
    const share = Math.max(1, Math.floor(this.budget / this.runs.length));
    this.held = 0;
    for (let i = 0; i < this.runs.length; i++) {
      const r = this.runs[i]!;
      if (r.records.length > share) this.runs[i] = this.cut(r, share);
      this.held += this.runs[i]!.records.length;
    }
  }
}
