// How an upload is checked: failed requests fail it; then the MD5 the service answered Put Blob with,
// or of what a plain server gave back when read; where some item has neither (staged blocks), the
// store reads back what it holds.
import { tallyRecords, uploadVerdict } from '../metrics/record-checks.js';
import type { RecordTable } from '../metrics/record-table.js';
import type { Items } from '../plan/items.js';
import type { Verification } from '../results/record.js';
import { failedRequests } from './failed.js';
import type { VerifyInput } from './input.js';
import { bearerOf, traitsOf } from '../storage/target-info.js';

/** An upload kind's verification. */
export async function verifyUploads(v: VerifyInput): Promise<Verification> {
  const readBack = !traitsOf(v.target).storesMd5;
  return (
    failedRequests(v.records, bearerOf(v.target) !== undefined) ??
    (v.tally ? uploadVerdict(v.tally, readBack) : verifyFromRecords(v.items, v.records, readBack)) ??
    v.store!.verify(v.items)
  );
}

/**
 * Verification from what the workers recorded, when every item has it: the MD5 the service answered
 * Put Blob with (Azure and Azurite compute it of what they stored), or of what a plain server gave
 * back when read. Undefined when some item has neither (staged blocks): the store checks then.
 */
export function verifyFromRecords(
  items: Items,
  records: RecordTable,
  readBack: boolean,
): Verification | undefined {
  return uploadVerdict(tallyRecords('upload', items, records), readBack);
}
