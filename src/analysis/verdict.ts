// Ranks that the data support, and the verdict as data with its sentence. A contender's rank is one
// more than the number of contenders significantly faster than it, so contenders that cannot be
// told apart share a rank, shown as `1=`. Significantly faster takes both tests: the rank test
// (Mann-Whitney U over the runs' times) and the 95% interval of the ratio of medians lying wholly
// above 1x; a verdict never says "faster" beside an interval that reaches below 1x.
import type { ContenderStats } from './analyze.js';
import {
  mannWhitney,
  MIN_RUNS_FOR_SIGNIFICANCE,
  ratioInterval,
  runsToTell,
  significantlyFaster,
} from './significance.js';
import { median } from './stats.js';

export interface RankedStats extends ContenderStats {
  /** 1 for the fastest group; failed contenders rank after every verified one. */
  rank: number;
  /** Another contender has the same rank: no significant difference between them. */
  tied: boolean;
}

/**
 * Past this many runs (--runs allows 1000), advice to add runs is no advice: the contenders are equivalent.
 */
export const MAX_RUNS_ADVISED = 1000;

export const rankLabel = (s: Pick<RankedStats, 'rank' | 'tied'>) => `${s.rank}${s.tied ? '=' : ''}`;

const fasterThan = (a: ContenderStats, b: ContenderStats) => significantlyFaster(a.timesMs, b.timesMs);

/** Fastest first by median time, with ranks the rank test supports; failed contenders last. */
export function rankStats(stats: readonly ContenderStats[]): RankedStats[] {
  const ok = stats
    .filter((s) => s.verified && s.timesMs.length > 0)
    .sort((a, b) => median(a.timesMs) - median(b.timesMs));
  const failed = stats.filter((s) => !ok.includes(s));
  const ranked = ok.map((s) => ({
    ...s,
    rank: 1 + ok.filter((o) => o !== s && fasterThan(o, s)).length,
    tied: false,
  }));
  // A rank is kept in order: a contender never ranks ahead of one with a lower median.
  for (let i = 1; i < ranked.length; i++) ranked[i]!.rank = Math.max(ranked[i]!.rank, ranked[i - 1]!.rank);
  for (const r of ranked) r.tied = ranked.some((o) => o !== r && o.rank === r.rank);
  const last = ranked.length + 1;
  return [...ranked, ...failed.map((s) => ({ ...s, rank: last, tied: failed.length > 1 }))];
}

/** Why a tie stands: too few samples to test, more would tell, too small to matter, or noise. */
export type TieAdvice = 'too-few-runs' | 'add-runs' | 'equivalent' | 'within-noise';

/** The leader's group cannot be told apart: `runsNeeded` each would tell a difference of this size. */
export interface TieVerdict {
  kind: 'tie';
  contenders: string[];
  /** The fewest samples any of them has; `of` says whether they are runs or steady intervals. */
  n: number;
  of: 'runs' | 'intervals';
  advice: TieAdvice;
  runsNeeded?: number;
  text: string;
}

/** `faster` beats `slower`: median(slower)/median(faster) = ratio, with its bootstrap 95% interval. */
export interface FasterVerdict {
  kind: 'faster';
  faster: string;
  slower: string;
  ratio: number;
  ratioLow: number;
  ratioHigh: number;
  nFaster: number;
  nSlower: number;
  /** The rank test's two-sided p. */
  p: number;
  text: string;
}

export type Verdict = TieVerdict | FasterVerdict;

const x = (v: number) => `${v.toFixed(2)}x`;

/** The leader and those a rank test cannot tell from it, with what more runs could (or could not) do. */
function tieVerdict(leader: RankedStats, tiedWithLeader: readonly RankedStats[]): TieVerdict {
  const group = [leader, ...tiedWithLeader];
  const n = Math.min(...group.map((s) => s.timesMs.length));
  const of = group.some((s) => s.samples?.of === 'intervals') ? 'intervals' : 'runs';
  const needed = Math.max(...tiedWithLeader.map((s) => runsToTell(leader.timesMs, s.timesMs) ?? 0));
  const advice: TieAdvice =
    n < MIN_RUNS_FOR_SIGNIFICANCE
      ? 'too-few-runs'
      : needed > MAX_RUNS_ADVISED
        ? 'equivalent'
        : needed > n
          ? 'add-runs'
          : 'within-noise';
  const runsNeeded =
    advice === 'too-few-runs'
      ? Math.max(MIN_RUNS_FOR_SIGNIFICANCE, needed)
      : advice === 'add-runs'
        ? needed
        : undefined;
  const more = {
    'too-few-runs':
      `${MIN_RUNS_FOR_SIGNIFICANCE} runs each are the fewest a rank test can decide on: ` +
      `add --runs ${runsNeeded}`,
    equivalent:
      `telling a difference this small apart would take more than ${MAX_RUNS_ADVISED} runs each: ` +
      'for this workload they are equivalent',
    'add-runs': `about ${needed} runs each would tell a difference this size apart: add --runs ${needed}`,
    'within-noise': 'the difference is within the noise',
  }[advice];
  const names = group.map((s) => s.label);
  const nText = of === 'intervals' ? `n=${n} intervals` : `n=${n}`;
  return {
    kind: 'tie',
    contenders: names,
    n,
    of,
    advice,
    ...(runsNeeded !== undefined ? { runsNeeded } : {}),
    text: `no significant difference between ${names.join(', ')} at ${nText}: ${more}`,
  };
}

/** `by` is significantly faster than `s`: the ratio of their medians with its interval. */
function fasterVerdict(by: RankedStats, s: RankedStats): FasterVerdict {
  const ratio = median(s.timesMs) / median(by.timesMs);
  const ci = ratioInterval(by.timesMs, s.timesMs);
  const [nF, nS] = [by.timesMs.length, s.timesMs.length];
  return {
    kind: 'faster',
    faster: by.label,
    slower: s.label,
    ratio,
    ratioLow: ci.low,
    ratioHigh: ci.high,
    nFaster: nF,
    nSlower: nS,
    p: mannWhitney(by.timesMs, s.timesMs).p,
    text:
      `${by.label} is ${x(ratio)} faster than ${s.label} ` +
      `(95% CI ${x(ci.low)}–${x(ci.high)}, n=${nF}/${nS})`,
  };
}

/** Who leads, by how much and how sure, or that the data cannot tell: as data, each with its sentence. */
export function verdicts(ranked: readonly RankedStats[]): Verdict[] {
  const ok = ranked.filter((s) => s.verified && s.timesMs.length > 0);
  if (ok.length < 2) return [];
  const leader = ok[0]!;
  const out: Verdict[] = [];
  const tiedWithLeader = ok.filter((s) => s !== leader && s.rank === leader.rank);
  if (tiedWithLeader.length) out.push(tieVerdict(leader, tiedWithLeader));
  for (const s of ok.filter((o) => o.rank > leader.rank)) {
    // Said of the fastest contender that is significantly faster than it, which need not be the
    // leader: a rank below the leader can come from another (or only keep the order of the medians,
    // when nothing is significantly faster, and then there is nothing to say).
    const by = ok.find((o) => o !== s && fasterThan(o, s));
    if (by) out.push(fasterVerdict(by, s));
  }
  return out;
}

/** The verdict in words, one sentence per verdict. */
export const verdictLines = (ranked: readonly RankedStats[]): string[] => verdicts(ranked).map((v) => v.text);

/**
 * Linux's default tcp_rmem and tcp_wmem maxima (6 MiB, 4 MiB): the buffers assumed where they were not read.
 */
export const DEFAULT_SOCKET_BUFFER_BYTES = 6 * 1024 * 1024 + 4 * 1024 * 1024;

export interface ServerGap {
  clientMs: number;
  serverMs: number;
  ms: number;
  ratio: number;
  /** 3% of the server's span plus the time to drain the socket buffers at the contender's own rate. */
  boundMs: number;
  within: boolean;
}

/**
 * A contender's client-side time against the server's span of the same runs (medians). The last
 * bytes can still sit in the kernel's buffers (receive and send) when the server finishes: at the
 * contender's own rate they take `bufferBytes / rate` to drain, so the bound is 3% plus that.
 */
export function serverGap(
  s: ContenderStats,
  bufferBytes = DEFAULT_SOCKET_BUFFER_BYTES,
): ServerGap | undefined {
  if (!s.serverSpanMs || !(s.serverSpanMs.median > 0)) return undefined;
  const clientMs = median(s.timesMs);
  const serverMs = s.serverSpanMs.median;
  const ms = clientMs - serverMs;
  const rateBytesPerMs = (s.throughputMiBps.median * 1024 * 1024) / 1000;
  const drainMs = rateBytesPerMs > 0 ? bufferBytes / rateBytesPerMs : 0;
  const boundMs = 0.03 * serverMs + drainMs;
  return { clientMs, serverMs, ms, ratio: clientMs / serverMs, boundMs, within: ms <= boundMs };
}
