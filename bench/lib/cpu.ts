// CPU per unit of work, ours against a peer in the same run: ours from its workers' own counters
// (process.cpuUsage around the timed section, in the results file), the peer from the kernel's
// count for its process (proc.ts `cpu`). On a shared machine CPU is the measure that holds where
// wall time does not; the verdict is the ratio's per-round median and its interval.
import type { GoalResult } from './report.ts';
import { MiB, type Row, type Sample } from './sample.ts';
import { median, medianIntervalSignTestExact } from '../../src/analysis/stats.ts';
import { pairedRatios, ratioText, roundsToTell } from './paired.ts';

export type CpuUnit = 'request' | 'MiB';

function perUnitUs(s: Sample, unit: CpuUnit): number | undefined {
  if (!s.ok) return undefined;
  if (s.run) {
    const cpuMs = s.run.workers.reduce((t, w) => t + w.cpuUserMs + w.cpuSystemMs, 0);
    return (cpuMs * 1000) / (unit === 'MiB' ? s.run.bytes / MiB : s.run.requests);
  }
  if (s.cpuMs === undefined) return undefined;
  return (s.cpuMs * 1000) / (unit === 'MiB' ? s.bytes / MiB : (s.cpuRequests ?? s.requests));
}

/**
 * CPU per unit, ours against the peer in the same rounds (alternate() runs each once a round): the
 * verdict is the median of the per-round ratios ours/peer with its sign-test interval (paired.ts),
 * as a shared machine's runs of one build spread 1.5-2x. Reached where the whole ~95% interval is at
 * most 1, missed where it is wholly above 1; otherwise the rounds cannot tell, and the goal says so
 * and about how many rounds might (a point ratio of three runs decided nothing either way).
 */
export function cpuGoal(
  what: string,
  unit: CpuUnit,
  ours: Row | undefined,
  peer: Row | undefined,
): GoalResult {
  const per = (s: Sample) => perUnitUs(s, unit);
  const values = (r: Row | undefined) =>
    (r?.samples ?? []).map(per).filter((v): v is number => v !== undefined);
  const o = median(values(ours));
  const p = median(values(peer));
  const base = {
    what,
    ours: ours?.label ?? '—',
    peer: peer?.label ?? '—',
    targetText: `<= the peer's CPU per ${unit}`,
  };
  const ratios = pairedRatios(ours, peer, per);
  const rounds = medianIntervalSignTestExact(ratios);
  if (!Number.isFinite(o / p) || !rounds.n)
    return { ...base, ratio: NaN, reached: undefined, note: '', valueText: 'not measured' };
  const told = rounds.confidence >= 0.95 && (rounds.high <= 1 || rounds.low > 1);
  const more = roundsToTell(ratios);
  return {
    ...base,
    ratio: p / o,
    reached: told ? rounds.high <= 1 : undefined,
    note: '',
    verdict: told
      ? undefined
      : `no significant difference in ${rounds.n} ` +
        `round(s)${more ? `; ~${more} would tell a difference this size` : ''}`,
    valueText:
      `ours ${o.toFixed(1)} µs, peer ${p.toFixed(1)} µs per ${unit}; ours/peer per round ` +
      `${ratioText(rounds)}`,
  };
}
