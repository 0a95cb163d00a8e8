// A checkpoint run's own facts, beside its RunRecord (whose span is the write, barrier to the last
// shard's commit): when each rank wrote and read its shard, when the last commit ended, and whether
// the read-back matched what was written. Raw times only; the figures are analysis/checkpoint.ts's.

/** One rank's requests in one phase, ms since that phase's first request started. */
export interface RankSpan {
  startMs: number;
  endMs: number;
  bytes: number;
}

export interface CheckpointRead {
  /** The first range's start to the last range's end, over every rank. */
  wallMs: number;
  ranks: RankSpan[];
  requests: number;
  failedRequests: number;
  /** Every byte read was compared with the seed's content at its offset (MD5 of each range). */
  verified: boolean;
  verification: string;
}

export interface CheckpointRecord {
  shardSizeBytes: number;
  /** Staged blocks' size; absent where each shard went as one Put Blob. */
  blockSizeBytes?: number;
  /** Rank r's write (its blocks, or its Put Blob), indexed by rank. */
  write: RankSpan[];
  /** The last shard's commit (or, with no commit, the last rank's last write) since the write began. */
  consistentMs: number;
  /** Absent where the write failed and nothing was read. */
  read?: CheckpointRead;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isTime = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const isCount = (v: unknown): v is number => isTime(v) && Number.isSafeInteger(v);

const spanOk = (s: unknown) => isObject(s) && isTime(s.startMs) && isTime(s.endMs) && isCount(s.bytes);
const spansOk = (v: unknown) => Array.isArray(v) && v.length > 0 && v.every(spanOk);

function readOk(r: unknown): boolean {
  return (
    isObject(r) &&
    isTime(r.wallMs) &&
    spansOk(r.ranks) &&
    isCount(r.requests) &&
    isCount(r.failedRequests) &&
    typeof r.verified === 'boolean' &&
    typeof r.verification === 'string'
  );
}

/** What is wrong with a run's `checkpoint` as read from a file; undefined when it is sound. */
export function checkpointProblem(c: unknown): string | undefined {
  if (!isObject(c)) return 'has a bad checkpoint';
  const sizesOk = isCount(c.shardSizeBytes) && (c.blockSizeBytes === undefined || isCount(c.blockSizeBytes));
  if (!sizesOk || !spansOk(c.write) || !isTime(c.consistentMs)) return 'has a bad checkpoint';
  if (c.read !== undefined && !readOk(c.read)) return 'has a bad checkpoint read';
  return undefined;
}
