// The first check of every run: a request that failed fails the run, named by how many and the
// first error; where the run carried an Entra ID token and the service refused it, the fix too.
import type { RecordTable } from '../metrics/record-table.js';
import type { Verification } from '../results/record.js';
import { withTokenFix } from '../storage/entra.js';

export function failedRequests(records: RecordTable, usedToken = false): Verification | undefined {
  const failed = records.failed();
  if (!failed.length) return undefined;
  return {
    verified: false,
    verification: withTokenFix(`${failed.length} request(s) failed: ${failed[0]!.error}`, usedToken, failed),
  };
}
