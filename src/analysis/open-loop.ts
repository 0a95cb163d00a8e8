// An open-loop contender's figures (--rate), over its measured runs: the rate offered and achieved,
// the sends skipped at --max-in-flight, and latency from the intended start beside latency from the
// actual send, so that the queueing between them shows. Counts and histograms are added over runs.
import { sumEncoded, valuesAtPercentiles } from '../metrics/histograms.js';
import { cellLabel } from '../results/label.js';
import type { OpenLoopRecord, RunRecord, Slo } from '../results/schema.js';

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
    ratePerSecond: first.ratePerSecond,
    arrival: first.arrival,
    maxInFlight: first.maxInFlight,
    offeredPerSecond: scheduleS > 0 ? offered / scheduleS : 0,
    achievedPerSecond: scheduleS > 0 ? sum((o) => o.succeeded) / scheduleS : 0,
    offered,
    sent: sum((o) => o.sent),
    skippedSends,
    skippedShare: offered ? skippedSends / offered : 0,
    ...(fromIntendedMs ? { fromIntendedMs } : {}),
    ...(fromSendMs ? { fromSendMs } : {}),
    ...(latenessMs ? { latenessMs } : {}),
  };
}

/** The least share of the offered sends that must succeed for a rate to keep its SLO (skips and failures). */
export const SLO_MIN_ACHIEVED_SHARE = 0.99;

/** One rate of a curve: offered and achieved, its latency at the SLO's percentile, and whether it kept it. */
export interface RatePoint {
  label: string;
  ratePerSecond: number;
  offeredPerSecond: number;
  achievedPerSecond: number;
  skippedShare: number;
  /** Latency from the intended start at the SLO's percentile; none where no request succeeded. */
  latencyMs?: number;
  keeps: boolean;
}

/**
 * A latency-throughput curve: one contender's cells that differ only in --rate, slowest first. The
 * knee is the highest rate that keeps the SLO with every lower rate keeping it too.
 */
export interface RateCurve {
  /** The contender and its other swept values. */
  label: string;
  slo: Slo;
  points: RatePoint[];
  kneePerSecond?: number;
}

const atPercentile = (l: OpenLoopLatencyMs | undefined, p: Slo['percentile']) =>
  l === undefined ? undefined : p === 50 ? l.p50 : p === 90 ? l.p90 : p === 99 ? l.p99 : l.p999;

/**
 * A rate keeps the SLO when the latency from the intended start at its percentile is within the
 * bound and at least SLO_MIN_ACHIEVED_SHARE of the offered sends succeeded. `latencyMs`: that latency.
 */
export function keepsSlo(o: OpenLoopSummary, slo: Slo): { keeps: boolean; latencyMs?: number } {
  const latencyMs = atPercentile(o.fromIntendedMs, slo.percentile);
  const keeps =
    latencyMs !== undefined &&
    latencyMs <= slo.boundMs &&
    o.achievedPerSecond >= SLO_MIN_ACHIEVED_SHARE * o.offeredPerSecond;
  return { keeps, ...(latencyMs === undefined ? {} : { latencyMs }) };
}

/** Every open-loop contender's curve under `slo`, in the order the runs first name them. */
export function rateCurves(runs: readonly RunRecord[], slo: Slo): RateCurve[] {
  const groups = new Map<string, Map<string, RunRecord[]>>();
  for (const r of runs) {
    if (!r.openLoop) continue;
    const others = Object.fromEntries(Object.entries(r.cell ?? {}).filter(([flag]) => flag !== '--rate'));
    const group = cellLabel(r.strategy, Object.keys(others).length ? others : undefined);
    const cells = groups.get(group) ?? new Map<string, RunRecord[]>();
    groups.set(group, cells);
    const label = cellLabel(r.strategy, r.cell);
    cells.set(label, [...(cells.get(label) ?? []), r]);
  }
  return [...groups].flatMap(([label, cells]) => {
    const points = [...cells]
      .flatMap(([cell, cellRuns]): RatePoint[] => {
        const o = openLoopSummary(cellRuns);
        if (!o) return [];
        const { keeps, latencyMs } = keepsSlo(o, slo);
        return [
          {
            label: cell,
            ratePerSecond: o.ratePerSecond,
            offeredPerSecond: o.offeredPerSecond,
            achievedPerSecond: o.achievedPerSecond,
            skippedShare: o.skippedShare,
            ...(latencyMs === undefined ? {} : { latencyMs }),
            keeps,
          },
        ];
      })
      .sort((a, b) => a.ratePerSecond - b.ratePerSecond);
    const broken = points.findIndex((p) => !p.keeps);
    const kept = broken < 0 ? points : points.slice(0, broken);
    const knee = kept.at(-1);
    if (!points.length) return [];
    return [{ label, slo, points, ...(knee ? { kneePerSecond: knee.ratePerSecond } : {}) }];
  });
}
