// Throughput and latency per object-size bucket: where a run's files have sizes of their own (a
// --file-size distribution), its requests are grouped by the bytes each moved, so that a reader
// sees the size at which per-request overhead stops dominating. Buckets are the run's own
// (params.sizeBucketsBytes: the user's weighted sizes, else powers of two); a request lands in the
// first bucket whose upper edge holds it. A request's time is its own, less the time it was queued
// for a socket (the client's backlog, which says nothing of its size). Figures come from the kept
// records of the measured runs (a sample past MAX_RECORDS_PER_RUN, said so), never from a histogram
// of another grouping.
import { RECORD_COLUMNS, type RunRecord } from '../results/schema.js';
import { cellLabel } from '../results/label.js';

const BYTES = RECORD_COLUMNS.indexOf('bytes');
const TOTAL_MS = RECORD_COLUMNS.indexOf('totalMs');
const ERROR = RECORD_COLUMNS.indexOf('error');
const WAIT = RECORD_COLUMNS.indexOf('wait');
const MIB = 1024 * 1024;

export interface SizeBucket {
  /** Sizes above `fromBytes` (exclusive; 0 for the first) up to `upToBytes`. */
  fromBytes: number;
  upToBytes: number;
  requests: number;
  bytes: number;
  /** The bucket's bytes over its requests' summed time: one request stream's rate at these sizes. */
  perRequestMiBps: number;
  /** Requests a second one stream completes at these sizes (requests over their summed time). */
  perRequestOpsPerSecond: number;
  /** Of the request time (less any time queued for a socket) of every kept record in the bucket. */
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
}

export interface ContenderSizeBuckets {
  contender: string;
  buckets: SizeBucket[];
}

export interface ReportSizeBuckets {
  /** The seed that drew the sizes. */
  seed?: number;
  /** Some runs kept a sample of their records: the figures are the sample's. */
  sampled: boolean;
  contenders: ContenderSizeBuckets[];
  /** Every contender's bucket edges (`upToBytes`), ascending, each once: the columns and the x axis. */
  edgesBytes: number[];
  /** The highest MiB/s of one request stream in any bucket: the chart's scale. */
  fastestMiBps: number;
}

/** Nearest-rank percentile of ascending values. */
function percentile(sorted: readonly number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

function bucketsOf(runs: readonly RunRecord[], edges: readonly number[]): SizeBucket[] {
  const times: number[][] = edges.map(() => []);
  const bytes = edges.map(() => 0);
  for (const run of runs) {
    for (const row of run.records) {
      const moved = row[BYTES];
      const total = row[TOTAL_MS];
      if (typeof moved !== 'number' || typeof total !== 'number') continue;
      if (moved <= 0 || row[ERROR] !== null) continue;
      // Time queued for a socket is the client's backlog, the same for every size: left out.
      const wait = row[WAIT];
      const ms = Math.max(0, total - (typeof wait === 'number' ? wait : 0));
      let b = edges.findIndex((edge) => moved <= edge);
      if (b < 0) b = edges.length - 1;
      times[b]!.push(ms);
      bytes[b]! += moved;
    }
  }
  return edges.flatMap((upToBytes, b) => {
    const t = times[b]!.sort((x, y) => x - y);
    if (!t.length) return [];
    const seconds = t.reduce((a, v) => a + v, 0) / 1000;
    return [
      {
        fromBytes: b === 0 ? 0 : edges[b - 1]!,
        upToBytes,
        requests: t.length,
        bytes: bytes[b]!,
        perRequestMiBps: seconds > 0 ? bytes[b]! / MIB / seconds : 0,
        perRequestOpsPerSecond: seconds > 0 ? t.length / seconds : 0,
        p50Ms: percentile(t, 50),
        p90Ms: percentile(t, 90),
        p99Ms: percentile(t, 99),
      },
    ];
  });
}

/** Per-bucket figures of each contender whose runs drew their file sizes; undefined when none did. */
export function sizeBuckets(runs: readonly RunRecord[]): ReportSizeBuckets | undefined {
  const measured = runs.filter((r) => !r.warmup && r.params?.sizeBucketsBytes?.length);
  if (!measured.length) return undefined;
  const byLabel = new Map<string, RunRecord[]>();
  for (const r of measured) {
    const label = cellLabel(r.strategy, r.cell);
    byLabel.set(label, [...(byLabel.get(label) ?? []), r]);
  }
  const contenders = [...byLabel].flatMap(([contender, own]) => {
    const buckets = bucketsOf(own, own[0]!.params!.sizeBucketsBytes!);
    return buckets.length ? [{ contender, buckets }] : [];
  });
  if (!contenders.length) return undefined;
  const seed = measured[0]!.params!.fileSizeSeed;
  const sampled = measured.some((r) => r.recordsSampled);
  const edgesBytes = [...new Set(contenders.flatMap((c) => c.buckets.map((b) => b.upToBytes)))].sort(
    (a, b) => a - b,
  );
  const fastestMiBps = Math.max(...contenders.flatMap((c) => c.buckets.map((b) => b.perRequestMiBps)));
  return { ...(seed !== undefined ? { seed } : {}), sampled, contenders, edgesBytes, fastestMiBps };
}
