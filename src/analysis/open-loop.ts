// An open-loop contender's figures (--rate), over its measured runs: the rate offered and achieved,
// the sends skipped at --max-in-flight, and latency from the intended start beside latency from the
// actual send, so that the queueing between them shows. Counts and histograms are added over runs.
import { sumEncoded, valuesAtPercentiles } from '../metrics/histograms.js';
import type { OpenLoopRecord, RunRecord } from '../results/schema.js';

/** Percentiles of an open loop's latencies, ms. */
export interface OpenLoopLatencyMs {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  p999: number;
  max: number;
}

export interface OpenLoopSummary {
  ratePerSecond: number;
  arrival: OpenLoopRecord['arrival'];
  maxInFlight: number;
  /**
   * Slots the schedule offered per second of schedule (release to last slot, plus one mean gap), and
   * successful requests per second of the same schedule.
   */
  offeredPerSecond: number;
  achievedPerSecond: number;
  offered: number;
  sent: number;
  /** Slots that found --max-in-flight reached: never sent, and not delayed either. */
  skippedSends: number;
  skippedShare: number;
  /** Latency from the intended start (what a client on this schedule sees), and from the actual send. */
  fromIntendedMs?: OpenLoopLatencyMs;
  fromSendMs?: OpenLoopLatencyMs;
  /** Send time minus intended start: this client's own scheduling error, every send. */
  latenessMs?: OpenLoopLatencyMs;
}

function latencyOf(texts: string[]): OpenLoopLatencyMs | undefined {
  const h = sumEncoded(texts);
  if (!h || h.totalCount === 0) return undefined;
  const [p50, p90, p99, p999] = valuesAtPercentiles(h, [50, 90, 99, 99.9]).map((us) => us / 1000);
  return { count: h.totalCount, p50: p50!, p90: p90!, p99: p99!, p999: p999!, max: h.maxValue / 1000 };
}

/** Undefined where no measured run was an open loop. */
export function openLoopSummary(
  runs: readonly Pick<RunRecord, 'warmup' | 'openLoop'>[],
): OpenLoopSummary | undefined {
  const loops = runs.filter((r) => !r.warmup && r.openLoop).map((r) => r.openLoop!);
  const first = loops[0];
  if (!first) return undefined;
  const sum = (f: (o: OpenLoopRecord) => number) => loops.reduce((a, o) => a + f(o), 0);
  // A run's schedule spans its last slot plus one mean gap: n slots at rate R span n / R seconds.
  const scheduleS = sum((o) => o.lastOfferedMs / 1000 + 1 / o.ratePerSecond);
  const offered = sum((o) => o.offered);
  const skippedSends = sum((o) => o.skipped);
  const fromIntendedMs = latencyOf(loops.map((o) => o.histograms.fromIntended));
  const fromSendMs = latencyOf(loops.map((o) => o.histograms.fromSend));
  const latenessMs = latencyOf(loops.map((o) => o.histograms.lateness));
  return {
    ratePerSecond: first.ratePerSecond, arrival: first.arrival, maxInFlight: first.maxInFlight,
    offeredPerSecond: scheduleS > 0 ? offered / scheduleS : 0,
    achievedPerSecond: scheduleS > 0 ? sum((o) => o.succeeded) / scheduleS : 0,
    offered, sent: sum((o) => o.sent), skippedSends, skippedShare: offered ? skippedSends / offered : 0,
    ...(fromIntendedMs ? { fromIntendedMs } : {}), ...(fromSendMs ? { fromSendMs } : {}),
    ...(latenessMs ? { latenessMs } : {}),
  };
}
