// A checkpoint's read-back and the per-rank times of both its phases. Rank r reads shard r in ranges
// over its own sockets, released together on the barrier as the writers were; every byte is then
// compared with the seed's content at its offset (the MD5 of each range, hashed as it came), so a
// reader checks what was written without having kept it. A plain server's shards are ours too:
// they are checked the same way.
import type { CheckpointConfig } from '../config/checkpoint.js';
import { COORDINATOR, type OpRecord } from '../metrics/records.js';
import type { RecordTable } from '../metrics/record-table.js';
import { contentMd5, FIXTURE_SEED } from '../payload/content.js';
import type { WorkItem } from '../plan/items.js';
import type { CheckpointRead, RankSpan } from '../results/checkpoint.js';
import type { Verification } from '../results/record.js';
import type { Bearer } from '../storage/entra.js';
import { bearerOf } from '../storage/target-info.js';
import type { TargetInfo } from '../storage/target.js';
import { shardReads, type ShardPlanInput } from '../strategies/checkpoint.js';
import { failedRequests } from '../verify/failed.js';
import type { WorkerPool } from '../workers/pool.js';
import { buildJob } from './job.js';

/** Each rank's first start, last end and bytes, ms since `originMs`; the coordinator's requests apart. */
export function rankSpans(records: Iterable<OpRecord>, ranks: number, originMs: number): RankSpan[] {
  const spans: RankSpan[] = Array.from({ length: ranks }, () => ({ startMs: Infinity, endMs: 0, bytes: 0 }));
  for (const r of records) {
    const span = r.worker === COORDINATOR ? undefined : spans[r.worker];
    if (!span) continue;
    span.startMs = Math.min(span.startMs, r.startEpochMs - originMs);
    span.endMs = Math.max(span.endMs, r.startEpochMs + r.totalMs - originMs);
    if (!r.error) span.bytes += r.bytes;
  }
  return spans.map((s) => (s.startMs === Infinity ? { startMs: 0, endMs: 0, bytes: 0 } : s));
}

/** The first request's start over every record (epoch ms). */
export function firstStart(records: Iterable<OpRecord>): number {
  let first = Infinity;
  for (const r of records) first = Math.min(first, r.startEpochMs);
  return first === Infinity ? 0 : first;
}

export interface ReadBackInput {
  config: CheckpointConfig;
  info: TargetInfo;
  plan: ShardPlanInput;
  /** Labels the read-back's requests in logs. */
  label: string;
  pool: WorkerPool;
  signal: AbortSignal;
  token?: (signal?: AbortSignal) => Promise<Bearer>;
}

/** Every rank reads its shard back; resolves with its times and what the comparison found. */
export async function readBack(r: ReadBackInput): Promise<CheckpointRead> {
  const { config, info, plan } = r;
  const items = shardReads(plan, config.blockSizeBytes);
  const job = buildJob({
    config,
    strategy: { name: r.label, kind: 'get' },
    target: info,
    items,
    objectSizeBytes: plan.ranks * plan.shardSizeBytes,
    settings: { sizeBytes: plan.shardSizeBytes },
    own: {
      // Discarded as they come, each range's MD5 taken on the way: nothing held, every byte checked.
      sink: 'discard',
      hashRanges: true,
      bufferSizeBytes: 64 * 1024,
      inFlight: config.maxSockets,
    },
  });
  const merged = await r.pool.run(job, items, plan.ranks, {
    signal: r.signal,
    ...(r.token ? { token: r.token } : {}),
  });
  const origin = firstStart(merged.records);
  const check = verifyRead(items, merged.records, info, merged.failures);
  return {
    wallMs: merged.wallMs,
    ranks: rankSpans(merged.records, plan.ranks, origin),
    requests: merged.records.length,
    failedRequests: merged.records.failed().length,
    verified: check.verified,
    verification: check.verification,
  };
}

/** Every range's MD5 against the seed's content at its offset: the first that differs is named. */
export function verifyRead(
  items: readonly WorkItem[],
  records: RecordTable,
  info: TargetInfo,
  failures: readonly string[] = [],
): Verification {
  if (failures.length) return { verified: false, verification: failures.join('; ') };
  const failed = failedRequests(records, bearerOf(info) !== undefined);
  if (failed) return failed;
  const rowOf = records.rowsByItem();
  let bytes = 0;
  for (const item of items) {
    const row = rowOf.get(item.index);
    const got = row === undefined ? undefined : records.md5(row);
    const expected = contentMd5(FIXTURE_SEED, item.destOffsetBytes, item.lengthBytes);
    if (got !== expected) {
      const at = item.range?.offsetBytes ?? 0;
      return {
        verified: false,
        verification: `read-back MISMATCH in ${item.blob} at offset ${at}: md5 ${got}, written ${expected}`,
      };
    }
    bytes += item.lengthBytes;
  }
  return {
    verified: true,
    verification: `${bytes} bytes read back in ${items.length} range(s), every one as written`,
  };
}
