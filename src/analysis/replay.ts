// A replay's report, built once from its results file: per operation what went and how fast, its
// latency from the intended start beside the log's own, and the pace offered against the pace
// achieved. Renderers (report/replay.ts) only format it.
import { sumEncoded, valuesAtPercentiles } from '../metrics/histograms.js';
import type { ReplayOpResult, ReplayResults } from '../results/replay.js';

export interface ReplayLatencyMs {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

export interface ReplayOpRow {
  /** An operation's name, or `all`. */
  op: string;
  planned: number;
  sent: number;
  skipped: number;
  succeeded: number;
  failed: number;
  /** Successful requests, and their bytes, per second of the replay's wall time. */
  perSecond: number;
  mibPerSecond: number;
  /** From the intended start (what a client on the recorded schedule waits), and from the send. */
  replayedMs?: ReplayLatencyMs;
  fromSendMs?: ReplayLatencyMs;
  /** The log's own latency (DurationMs) of this operation's steps. */
  recordedMs?: ReplayLatencyMs;
  firstError?: string;
}

export interface ReplayReport {
  title: string;
  createdAt: string;
  complete: boolean;
  target: string;
  file: string;
  format: ReplayResults['source']['format'];
  lines: number;
  steps: number;
  speed: number;
  maxInFlight: number;
  /** The log's span, that span over --speed (the schedule), and the replay's start to last answer. */
  recordedSpanMs: number;
  scheduledMs: number;
  wallMs: number;
  /** Wall time over the schedule's span: 1 is the recorded pace kept exactly (plus the last answer). */
  paceRatio?: number;
  offeredPerSecond: number;
  achievedPerSecond: number;
  skipped: number;
  skippedShare: number;
  latenessMs?: ReplayLatencyMs;
  created: ReplayResults['created'];
  unsupported: { operation: string; count: number }[];
  rows: ReplayOpRow[];
  total: ReplayOpRow;
  /** The largest p50 or p99, replayed or recorded, of any operation: what the latency chart scales to. */
  latencyTopMs: number;
}

function latencyOf(texts: readonly string[]): ReplayLatencyMs | undefined {
  const h = sumEncoded(texts);
  if (!h || h.totalCount === 0) return undefined;
  const [p50, p90, p99] = valuesAtPercentiles(h, [50, 90, 99]).map((us) => us / 1000);
  return { count: h.totalCount, p50: p50!, p90: p90!, p99: p99!, max: h.maxValue / 1000 };
}

const perSecond = (n: number, ms: number) => (ms > 0 ? n / (ms / 1000) : 0);

function rowOf(op: string, parts: readonly ReplayOpResult[], wallMs: number): ReplayOpRow {
  const sum = (f: (p: ReplayOpResult) => number) => parts.reduce((a, p) => a + f(p), 0);
  const succeeded = sum((p) => p.succeeded);
  const recorded = parts.flatMap((p) => (p.histograms.recorded ? [p.histograms.recorded] : []));
  const replayedMs = latencyOf(parts.map((p) => p.histograms.fromIntended));
  const fromSendMs = latencyOf(parts.map((p) => p.histograms.fromSend));
  const recordedMs = latencyOf(recorded);
  const firstError = parts.find((p) => p.firstError !== undefined)?.firstError;
  return {
    op,
    planned: sum((p) => p.planned),
    sent: sum((p) => p.sent),
    skipped: sum((p) => p.skipped),
    succeeded,
    failed: sum((p) => p.failed),
    perSecond: perSecond(succeeded, wallMs),
    mibPerSecond:
      perSecond(
        sum((p) => p.bytes),
        wallMs,
      ) /
      (1024 * 1024),
    ...(replayedMs ? { replayedMs } : {}),
    ...(fromSendMs ? { fromSendMs } : {}),
    ...(recordedMs ? { recordedMs } : {}),
    ...(firstError === undefined ? {} : { firstError }),
  };
}

/** The figures the latency chart draws of one operation: its p50s and p99s, replayed and recorded. */
const chartedMs = (r: ReplayOpRow): number[] =>
  [r.replayedMs?.p50, r.recordedMs?.p50, r.replayedMs?.p99, r.recordedMs?.p99].filter(
    (v): v is number => typeof v === 'number',
  );

export function buildReplayReport(doc: ReplayResults, title: string): ReplayReport {
  const { wallMs, scheduledMs } = doc.pace;
  const rows = doc.ops.map((o) => rowOf(o.op, [o], wallMs));
  const total = rowOf('all', doc.ops, wallMs);
  const offered = total.sent + total.skipped;
  const latenessMs = latencyOf([doc.pace.lateness]);
  return {
    title,
    createdAt: doc.createdAt,
    complete: doc.complete,
    target: doc.environment.target,
    file: typeof doc.config.file === 'string' ? doc.config.file : '',
    format: doc.source.format,
    lines: doc.source.lines,
    steps: doc.source.steps,
    speed: doc.speed,
    maxInFlight: doc.maxInFlight,
    recordedSpanMs: doc.source.spanMs,
    scheduledMs,
    wallMs,
    ...(scheduledMs > 0 ? { paceRatio: wallMs / scheduledMs } : {}),
    offeredPerSecond: perSecond(offered, scheduledMs > 0 ? scheduledMs : wallMs),
    achievedPerSecond: perSecond(total.succeeded, wallMs),
    skipped: total.skipped,
    skippedShare: offered ? total.skipped / offered : 0,
    ...(latenessMs ? { latenessMs } : {}),
    created: doc.created,
    unsupported: Object.entries(doc.source.unsupported).map(([operation, count]) => ({ operation, count })),
    rows,
    total,
    latencyTopMs: Math.max(0, ...rows.flatMap(chartedMs)),
  };
}
