// Many files: a job that asks its workers to check and count their own shares, so that the
// coordinator holds a sample of the records (and every failure), not all of them.
import type { TallyKind } from '../metrics/record-checks.js';
import type { Items } from '../plan/items.js';
import { MAX_RECORDS_PER_RUN } from '../results/schema.js';

/**
 * A job's summary request: past what a results file keeps, the workers check and count their own
 * shares and send a sample of their records (with every failure), together what a file keeps.
 */
export function summaryFor(
  items: Items,
  check: TallyKind,
  processes: number,
): { summary?: { check: TallyKind; keepRecords: number } } {
  return items.length > MAX_RECORDS_PER_RUN
    ? { summary: { check, keepRecords: Math.ceil(MAX_RECORDS_PER_RUN / Math.max(1, processes)) } }
    : {};
}
