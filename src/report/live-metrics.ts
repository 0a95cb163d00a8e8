// Live metrics as a listener of the session's events, in the coordinator only: what the workers'
// progress messages say (cumulative requests, bytes, errors, retries, and a histogram of what
// succeeded since the last message, a few times a second) becomes one `blob_cacher` point per
// interval per contender while a run goes, its p50/p90/p99 from those histograms added; each run's
// end adds one `blob_cacher_run` point (its latency percentiles, throttles) and, for a steady run,
// its exact series as `blob_cacher_interval` points (p50/p99 per interval), from the workers'
// merged histograms. Nothing here runs in a worker or on a request's path.
import type * as Hdr from 'hdr-histogram-js';
import { decodeHistogram, valuesAtPercentiles } from '../metrics/histograms.js';
import type { SessionEvent } from '../engine/session.js';
import type { MeasuredRun } from '../results/record.js';
import { runFailed, type Cell } from '../results/schema.js';
import type { Progress } from '../workers/protocol.js';
import type { MetricPoint } from './metrics-encode.js';

export const LIVE_MEASUREMENT = 'blob_cacher';
export const RUN_MEASUREMENT = 'blob_cacher_run';
export const INTERVAL_MEASUREMENT = 'blob_cacher_interval';

/** What every point of a session is tagged with besides its contender. */
export interface LiveContext {
  runId: string;
  command: string;
  targetKind: string;
  host: string;
}

export interface LiveMetricsView {
  onEvent(event: SessionEvent): void;
  close(): void;
}

type RunStart = Extract<SessionEvent, { type: 'run-start' }>;

/** The run being followed: its tags, when it began and was last reported, its progress seen and reported. */
interface Following {
  tags: Record<string, string>;
  startedMs: number;
  lastMs: number;
  seen: Progress;
  reported: Progress;
  /** The workers' latency histograms since the last point, added; none while nothing succeeded. */
  latency?: Hdr.Histogram;
}

const MiB = 1024 * 1024;
const epochNow = () => performance.timeOrigin + performance.now();
const cellText = (cell?: Cell) =>
  cell
    ? Object.entries(cell)
        .map(([k, v]) => `${k} ${v}`)
        .join(' ')
    : '';

type Identity = { strategy: string; cell?: Cell; run: number; warmup: boolean };

function tagsOf(ctx: LiveContext, run: Identity): Record<string, string> {
  return {
    run_id: ctx.runId,
    command: ctx.command,
    contender: run.strategy,
    cell: cellText(run.cell),
    target: ctx.targetKind,
    host: ctx.host,
    phase: run.warmup ? 'warm-up' : 'run',
    run: String(run.run + 1),
  };
}

/** p50, p90 and p99 in ms, where the histogram holds anything. */
function percentileFields(h: Hdr.Histogram | undefined): Record<string, number> {
  if (!h || h.totalCount === 0) return {};
  const [p50, p90, p99] = valuesAtPercentiles(h, [50, 90, 99]).map((us) => us / 1000);
  return { latency_p50_ms: p50!, latency_p90_ms: p90!, latency_p99_ms: p99! };
}

/** Counts over a span, and the rates they make. */
function rates(c: { requests: number; bytes: number }, seconds: number): Record<string, number> {
  return seconds > 0 ? { requests_per_s: c.requests / seconds, mib_per_s: c.bytes / MiB / seconds } : {};
}

/**
 * The point of the interval that ends now, and the interval it begins; none where the tail after the
 * last interval holds nothing an interval did not.
 */
function intervalPoint(current: Following, final: boolean): MetricPoint | undefined {
  const now = epochNow();
  const { seen, reported } = current;
  const counts = {
    requests: seen.ops - reported.ops,
    bytes: seen.bytes - reported.bytes,
    errors: seen.errors - reported.errors,
    retries: seen.retries - reported.retries,
  };
  if (final && counts.requests === 0 && counts.errors === 0) return undefined;
  const seconds = (now - current.lastMs) / 1000;
  const point: MetricPoint = {
    measurement: LIVE_MEASUREMENT,
    tags: current.tags,
    timeMs: now,
    startMs: current.lastMs,
    fields: {
      ...counts,
      ...rates(counts, seconds),
      ...percentileFields(current.latency),
      elapsed_s: (now - current.startedMs) / 1000,
    },
  };
  current.reported = { ...seen };
  current.latency = undefined;
  current.lastMs = now;
  return point;
}

/**
 * Follows a session: `send` gets each batch of points as it is made (one live point per interval
 * per running contender; a run's end points when it is measured). `intervalMs`: --interval.
 */
export function liveMetrics(
  ctx: LiveContext,
  intervalMs: number,
  send: (points: MetricPoint[]) => void,
): LiveMetricsView {
  let current: Following | undefined;
  let timer: NodeJS.Timeout | undefined;
  const point = (final: boolean) => {
    const p = current && intervalPoint(current, final);
    if (p) send([p]);
  };
  const end = () => {
    clearInterval(timer);
    timer = undefined;
    point(true);
    current = undefined;
  };
  const start = (e: RunStart) => {
    end();
    const now = epochNow();
    const zero: Progress = { ops: 0, bytes: 0, errors: 0, retries: 0 };
    current = { tags: tagsOf(ctx, e), startedMs: now, lastMs: now, seen: zero, reported: zero };
    timer = setInterval(() => point(false), intervalMs);
    timer.unref();
  };
  return {
    onEvent(e) {
      if (e.type === 'run-start') start(e);
      else if (e.type === 'progress' && current) {
        current.seen = { ops: e.ops, bytes: e.bytes, errors: e.errors, retries: e.retries };
        if (e.latency) addInto(current, e.latency);
      } else if (e.type === 'run-end') {
        end();
      } else if (e.type === 'run') {
        send(runPoints(ctx, e.run, epochNow()));
      }
    },
    close: end,
  };
}

function addInto(following: Following, encoded: string): void {
  const h = decodeHistogram(encoded);
  if (following.latency) following.latency.add(h);
  else following.latency = h;
}

/** A run's points: the whole run (percentiles from its merged histogram), and a steady run's series. */
export function runPoints(ctx: LiveContext, run: MeasuredRun, nowMs: number): MetricPoint[] {
  const tags = tagsOf(ctx, run);
  const counts = {
    requests: run.requests,
    bytes: run.bytes,
    errors: run.failedRequests,
    retries: run.retries,
    throttles: run.throttled,
  };
  const latency = percentileFields(run.histograms.total ? decodeHistogram(run.histograms.total) : undefined);
  const whole: MetricPoint = {
    measurement: RUN_MEASUREMENT,
    tags,
    timeMs: nowMs,
    startMs: nowMs - run.wallMs,
    fields: {
      ...counts,
      ...rates(counts, run.wallMs / 1000),
      ...latency,
      wall_s: run.wallMs / 1000,
      failed: runFailed(run) ? 1 : 0,
    },
  };
  const steady = run.steady;
  if (!steady) return [whole];
  const series = steady.series.map((s, i): MetricPoint => {
    const c = {
      requests: s.ops,
      bytes: s.bytes,
      errors: s.errors,
      retries: s.retries,
      throttles: s.throttled,
    };
    const p: Record<string, number> =
      s.p50Ms === undefined ? {} : { latency_p50_ms: s.p50Ms, latency_p99_ms: s.p99Ms ?? s.p50Ms };
    const startMs = steady.releaseEpochMs + i * steady.intervalMs;
    return {
      measurement: INTERVAL_MEASUREMENT,
      tags,
      startMs,
      timeMs: startMs + steady.intervalMs,
      fields: { ...c, ...rates(c, steady.intervalMs / 1000), ...p },
    };
  });
  return [...series, whole];
}
