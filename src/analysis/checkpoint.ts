// A checkpoint's figures from its runs' facts (results/checkpoint.ts), per contender: the time to a
// consistent checkpoint, write and read bandwidth (all ranks together, and each rank's own), the
// straggler share, each rank's figures, and verdicts on the write and the read-back that say only
// what the rank test supports.
//
// Straggler share: the share of the time to a consistent checkpoint that passes after the median
// rank has finished writing, (consistent - median rank's finish) / consistent. With ranks that end
// together it is the commit's own share, near 0; with one rank twice as slow as the rest it is about
// half. Beside it, the slowest rank's finish over the median rank's (1 when they end together).
import { cellLabel } from '../results/label.js';
import type { CheckpointRecord, RankSpan } from '../results/checkpoint.js';
import type { ResultsFile, RunRecord } from '../results/schema.js';
import { runFailed } from '../results/schema.js';
import { MIN_RUNS_FOR_SIGNIFICANCE, ratioInterval, runsToTell, significantlyFaster } from './significance.js';
import { median, medianIntervalBootstrap } from './stats.js';
import { MAX_RUNS_ADVISED } from './verdict.js';

/** A median over runs, with its bootstrap 95% interval (from 2 runs; one run's value is its own bounds). */
export interface Figure {
  median: number;
  low: number;
  high: number;
}

export interface CheckpointRank {
  rank: number;
  /** Medians over runs: its shard over its own write time (first request to last), and when it finished. */
  writeMiBps: number;
  writeEndMs: number;
  readMiBps?: number;
  readEndMs?: number;
  /** Runs in which this rank finished its write last. */
  slowestIn: number;
}

export interface CheckpointContender {
  contender: string;
  /** Runs with checkpoint facts (measured, not failed), and of them those whose read-back matched. */
  runs: number;
  readVerified: number;
  ranks: number;
  shardSizeBytes: number;
  blockSizeBytes?: number;
  consistentMs: Figure;
  /** Every rank's shard over the time to a consistent checkpoint. */
  writeMiBps: Figure;
  /** Every rank's shard over the read-back's span; absent where nothing was read. */
  readMiBps?: Figure;
  stragglerShare: Figure;
  slowestOverMedian: Figure;
  perRank: CheckpointRank[];
}

export interface CheckpointVerdict {
  phase: 'write' | 'read';
  text: string;
}

export interface CheckpointReport {
  contenders: CheckpointContender[];
  /** The most ranks any contender wrote with: the per-rank columns there are. */
  mostRanks: number;
  verdicts: CheckpointVerdict[];
}

const MIB = 1024 * 1024;
const mibps = (bytes: number, ms: number) => (ms > 0 ? bytes / MIB / (ms / 1000) : 0);

function figure(values: readonly number[]): Figure {
  const m = median(values);
  if (values.length < 2) return { median: m, low: m, high: m };
  const { low, high } = medianIntervalBootstrap(values);
  return { median: m, low, high };
}

/** (consistent - median rank's finish) / consistent, and slowest rank's finish / median rank's. */
export function stragglerOf(c: Pick<CheckpointRecord, 'write' | 'consistentMs'>): {
  share: number;
  ratio: number;
} {
  const ends = c.write.map((s) => s.endMs);
  const mid = median(ends);
  const share = c.consistentMs > 0 ? Math.max(0, c.consistentMs - mid) / c.consistentMs : 0;
  return { share, ratio: mid > 0 ? Math.max(...ends) / mid : 1 };
}

const ownMiBps = (s: RankSpan) => mibps(s.bytes, s.endMs - s.startMs);

function perRank(facts: readonly CheckpointRecord[]): CheckpointRank[] {
  const ranks = facts[0]!.write.length;
  const slowest = facts.map((f) => f.write.reduce((a, s, i, all) => (s.endMs > all[a]!.endMs ? i : a), 0));
  return Array.from({ length: ranks }, (_, rank) => {
    const w = facts.map((f) => f.write[rank]).filter((s) => s !== undefined);
    const r = facts.map((f) => f.read?.ranks[rank]).filter((s) => s !== undefined);
    return {
      rank,
      writeMiBps: median(w.map(ownMiBps)),
      writeEndMs: median(w.map((s) => s.endMs)),
      ...(r.length ? { readMiBps: median(r.map(ownMiBps)), readEndMs: median(r.map((s) => s.endMs)) } : {}),
      slowestIn: slowest.filter((i) => i === rank).length,
    };
  });
}

function contenderOf(label: string, runs: readonly RunRecord[]): CheckpointContender {
  const facts = runs.map((r) => r.checkpoint!);
  const first = facts[0]!;
  const total = first.shardSizeBytes * first.write.length;
  const reads = facts.flatMap((f) => (f.read ? [f.read] : []));
  const stragglers = facts.map(stragglerOf);
  return {
    contender: label,
    runs: runs.length,
    readVerified: reads.filter((r) => r.verified).length,
    ranks: first.write.length,
    shardSizeBytes: first.shardSizeBytes,
    ...(first.blockSizeBytes !== undefined ? { blockSizeBytes: first.blockSizeBytes } : {}),
    consistentMs: figure(facts.map((f) => f.consistentMs)),
    writeMiBps: figure(facts.map((f) => mibps(total, f.consistentMs))),
    ...(reads.length ? { readMiBps: figure(reads.map((r) => mibps(total, r.wallMs))) } : {}),
    stragglerShare: figure(stragglers.map((s) => s.share)),
    slowestOverMedian: figure(stragglers.map((s) => s.ratio)),
    perRank: perRank(facts),
  };
}

/** The checkpoint section of a report (`only`: that contender's alone); undefined without checkpoint runs. */
export function checkpointReport(
  doc: Pick<ResultsFile, 'runs'>,
  only?: string,
): CheckpointReport | undefined {
  const byContender = new Map<string, RunRecord[]>();
  for (const r of doc.runs) {
    if (r.warmup || !r.checkpoint || runFailed(r)) continue;
    const label = cellLabel(r.strategy, r.cell);
    if (only !== undefined && label !== only) continue;
    byContender.set(label, [...(byContender.get(label) ?? []), r]);
  }
  if (!byContender.size) return undefined;
  const contenders = [...byContender].map(([label, runs]) => contenderOf(label, runs));
  const times = (phase: 'write' | 'read') => (label: string) =>
    byContender.get(label)!.flatMap((r) => {
      const c = r.checkpoint!;
      if (phase === 'write') return [c.consistentMs];
      return c.read ? [c.read.wallMs] : [];
    });
  return {
    contenders,
    mostRanks: Math.max(0, ...contenders.map((c) => c.ranks)),
    verdicts: [
      ...phaseVerdicts(
        'write',
        contenders.map((c) => c.contender),
        times('write'),
      ),
      ...phaseVerdicts(
        'read',
        contenders.map((c) => c.contender),
        times('read'),
      ),
    ],
  };
}

const PHASE_WORDS = { write: 'reaches a consistent checkpoint', read: 'reads its checkpoint back' } as const;

/** The fastest by median against each other: a ratio with its interval where the rank test tells apart. */
export function phaseVerdicts(
  phase: 'write' | 'read',
  labels: readonly string[],
  timesOf: (label: string) => number[],
): CheckpointVerdict[] {
  const measured = labels.filter((l) => timesOf(l).length > 0);
  if (measured.length < 2) return [];
  const [best, ...rest] = [...measured].sort((a, b) => median(timesOf(a)) - median(timesOf(b)));
  const fast = timesOf(best!);
  return rest.map((other) => {
    const slow = timesOf(other);
    const n = Math.min(fast.length, slow.length);
    if (significantlyFaster(fast, slow)) {
      const r = ratioInterval(fast, slow);
      const ratio = median(slow) / median(fast);
      const text =
        `${best} ${PHASE_WORDS[phase]} ${ratio.toFixed(2)}x faster than ${other} ` +
        `(95% interval ${r.low.toFixed(2)}–${r.high.toFixed(2)}, n=${n})`;
      return { phase, text };
    }
    const advice = tieAdvice(fast, slow, n);
    return {
      phase,
      text: `${phase}: no significant difference between ${best} and ${other} at n=${n}: ${advice}`,
    };
  });
}

/** What a tie needs, in the words of the main verdict (analysis/verdict.ts). */
function tieAdvice(fast: readonly number[], slow: readonly number[], n: number): string {
  const needed = runsToTell(fast, slow) ?? 0;
  if (n < MIN_RUNS_FOR_SIGNIFICANCE)
    return `${MIN_RUNS_FOR_SIGNIFICANCE} runs each are the fewest a rank test can decide on`;
  if (needed > MAX_RUNS_ADVISED)
    return `telling a difference this small apart would take more than ${MAX_RUNS_ADVISED} runs each`;
  if (needed > n) return `about ${needed} runs each would tell a difference this size apart`;
  return 'the difference is within the noise';
}
