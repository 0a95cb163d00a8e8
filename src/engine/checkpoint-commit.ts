// Every shard's Put Block List at once, once every rank's blocks are in, told to the run as one
// request of the coordinator: it starts with the first commit and ends with the last, so the run's
// span ends where the checkpoint became consistent. A commit that fails fails the run.
import type { OpRecord } from '../metrics/records.js';
import { commitBlockList, type BlobRequestOptions } from '../storage/blob-requests.js';
import type { TargetInfo } from '../storage/target.js';

export async function commitShards(
  info: TargetInfo,
  commits: readonly { blob: string; blockIds: readonly string[] }[],
  opts: BlobRequestOptions,
): Promise<OpRecord> {
  const records = await Promise.all(commits.map((c) => commitBlockList(info, c.blob, c.blockIds, opts)));
  return asOne(records);
}

/** One record spanning them all: the last to end carries the phases, the retries are summed. */
export function asOne(records: readonly OpRecord[]): OpRecord {
  const endOf = (r: OpRecord) => r.startEpochMs + r.totalMs;
  const last = records.reduce((a, b) => (endOf(b) > endOf(a) ? b : a));
  const start = Math.min(...records.map((r) => r.startEpochMs));
  const failed = records.find((r) => r.error !== undefined);
  const sum = (f: (r: OpRecord) => number) => records.reduce((a, r) => a + f(r), 0);
  return {
    ...last,
    startEpochMs: start,
    totalMs: endOf(last) - start,
    retries: sum((r) => r.retries),
    throttled: sum((r) => r.throttled),
    backoffMs: sum((r) => r.backoffMs),
    ...(failed
      ? { status: failed.status, error: `Put Block List of ${records.length} shard(s): ${failed.error}` }
      : {}),
  };
}
