// Ranks that the data support, and the verdict in words. A contender's rank is one more than the
// number of contenders significantly faster than it, so contenders that cannot be told apart share
// a rank, shown as `1=`. Significantly faster takes both tests: the rank test (Mann-Whitney U over
// the runs' times) and the 95% interval of the ratio of medians lying wholly above 1x; a verdict
// line never says "faster" beside an interval that reaches below 1x. Warnings follow hyperfine.
import type { ContenderStats } from './analyze.js';
import { coefficientOfVariation, MIN_RUNS_FOR_SIGNIFICANCE, outliers, ratioInterval, runsToTell, significantlyFaster } from './significance.js';
import { median } from './stats.js';

export interface RankedStats extends ContenderStats {
  /** 1 for the fastest group; failed contenders rank after every verified one. */
  rank: number;
  /** Another contender has the same rank: no significant difference between them. */
  tied: boolean;
}

/** Past this many runs (--runs allows 1000), advice to add runs is no advice: the contenders are equivalent. */
export const MAX_RUNS_ADVISED = 1000;

export const rankLabel = (s: RankedStats) => `${s.rank}${s.tied ? '=' : ''}`;

const fasterThan = (a: ContenderStats, b: ContenderStats) => significantlyFaster(a.timesMs, b.timesMs);

/** Fastest first by median time, with ranks the rank test supports; failed contenders last. */
export function rankStats(stats: readonly ContenderStats[]): RankedStats[] {
  const ok = stats.filter((s) => s.verified && s.timesMs.length > 0).sort((a, b) => median(a.timesMs) - median(b.timesMs));
  const failed = stats.filter((s) => !ok.includes(s));
  const ranked = ok.map((s) => ({ ...s, rank: 1 + ok.filter((o) => o !== s && fasterThan(o, s)).length, tied: false }));
  // A rank is kept in order: a contender never ranks ahead of one with a lower median.
  for (let i = 1; i < ranked.length; i++) ranked[i]!.rank = Math.max(ranked[i]!.rank, ranked[i - 1]!.rank);
  for (const r of ranked) r.tied = ranked.some((o) => o !== r && o.rank === r.rank);
  const last = ranked.length + 1;
  return [...ranked, ...failed.map((s) => ({ ...s, rank: last, tied: failed.length > 1 }))];
}

const x = (v: number) => `${v.toFixed(2)}x`;

/** The verdict in words: who leads, by how much and how sure, or that the data cannot tell. */
export function verdictLines(ranked: readonly RankedStats[]): string[] {
  const ok = ranked.filter((s) => s.verified && s.timesMs.length > 0);
  if (ok.length < 2) return [];
  const leader = ok[0]!;
  const lines: string[] = [];
  const tiedWithLeader = ok.filter((s) => s !== leader && s.rank === leader.rank);
  if (tiedWithLeader.length) {
    const names = [leader, ...tiedWithLeader].map((s) => s.label);
    const n = Math.min(...[leader, ...tiedWithLeader].map((s) => s.timesMs.length));
    const needed = Math.max(...tiedWithLeader.map((s) => runsToTell(leader.timesMs, s.timesMs) ?? 0));
    const more = n < MIN_RUNS_FOR_SIGNIFICANCE
      ? `${MIN_RUNS_FOR_SIGNIFICANCE} runs each are the fewest a rank test can decide on: add --runs ${Math.max(MIN_RUNS_FOR_SIGNIFICANCE, needed)}`
      : needed > MAX_RUNS_ADVISED ? `telling a difference this small apart would take more than ${MAX_RUNS_ADVISED} runs each: for this workload they are equivalent`
        : needed > n ? `about ${needed} runs each would tell a difference this size apart: add --runs ${needed}` : 'the difference is within the noise';
    lines.push(`no significant difference between ${names.join(', ')} at n=${n}: ${more}`);
  }
  for (const s of ok.filter((o) => o.rank > leader.rank)) {
    const r = median(s.timesMs) / median(leader.timesMs);
    const ci = ratioInterval(leader.timesMs, s.timesMs);
    lines.push(`${leader.label} is ${x(r)} faster than ${s.label} (95% CI ${x(ci.low)}–${x(ci.high)}, n=${leader.timesMs.length}/${s.timesMs.length})`);
  }
  return lines;
}

/** A contender's client-side time against the server's span of the same runs (medians). */
export function serverGap(s: ContenderStats): { ms: number; ratio: number; within: boolean } | undefined {
  if (!s.serverSpanMs || !(s.serverSpanMs.median > 0)) return undefined;
  const client = median(s.timesMs);
  const ms = client - s.serverSpanMs.median;
  const ratio = client / s.serverSpanMs.median;
  // Within 3% or 3 ms: the span of the transfer itself, as the server saw it.
  return { ms, ratio, within: ms <= 3 || ratio <= 1.03 };
}

/** What makes the ranking less trustworthy, worded for the user. */
export function warnings(stats: readonly ContenderStats[], targetOnThisMachine: boolean): string[] {
  const out: string[] = [];
  for (const s of stats) {
    const odd = outliers(s.timesMs);
    if (odd.length) {
      out.push(`${s.label}: ${odd.length} of ${s.timesMs.length} runs are statistical outliers (modified Z-score > 3.5 on the MAD): other work on this machine or a cold start; use --warmup or a quieter machine`);
    }
    const cv = coefficientOfVariation(s.timesMs);
    if (cv > 0.1) out.push(`${s.label}: run times vary by ${(cv * 100).toFixed(0)}% (coefficient of variation): the ranking needs more runs`);
    if (s.cpuBoundWorkers > 0) {
      out.push(`${s.label}: ${s.cpuBoundWorkers} worker run(s) CPU-bound (event-loop delay p99 up to ${s.eventLoopDelayP99MaxMs.toFixed(1)} ms): the client, not the target, may be what was measured; more processes may help`);
    }
  }
  for (const s of stats) {
    const gap = serverGap(s);
    if (gap && !gap.within) {
      out.push(`${s.label}: its time is ${(gap.ratio * 100 - 100).toFixed(0)}% (${gap.ms.toFixed(0)} ms) above the server's span of its data requests: in it are connecting (unless --connections warm), client-side work, and the last bytes still in the sockets' buffers when the server finished, a few ms that weigh less on larger transfers (BENCHMARKS.md, case 11)`);
    }
  }
  if (targetOnThisMachine) out.push('the target runs on this machine: client and server share its CPUs, so the ranking may not hold against a remote account');
  return out;
}
