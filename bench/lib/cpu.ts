// CPU per unit of work, ours against a peer in the same run: ours from its workers' own counters
// (process.cpuUsage around the timed section, in the results file), the peer from the kernel's
// count for its process (proc.ts `cpu`). On a shared machine CPU is the measure that holds where
// wall time does not; the verdict is the ratio of the medians.
import type { GoalResult } from './report.ts';
import { median, MiB, type Row, type Sample } from './sample.ts';

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

/** Median CPU per unit of each side; reached when ours is at most the peer's. */
export function cpuGoal(what: string, unit: CpuUnit, ours: Row | undefined, peer: Row | undefined): GoalResult {
  const med = (r: Row | undefined) => median((r?.samples ?? []).map((s) => perUnitUs(s, unit)).filter((v): v is number => v !== undefined));
  const o = med(ours);
  const p = med(peer);
  const ratio = o / p;
  const ok = Number.isFinite(ratio);
  return {
    what, ours: ours?.label ?? '—', peer: peer?.label ?? '—', ratio: ok ? p / o : NaN, reached: ok ? o <= p : undefined, note: '',
    valueText: ok ? `ours ${o.toFixed(1)} µs, peer ${p.toFixed(1)} µs per ${unit} (${ratio.toFixed(2)}x the peer's CPU)` : 'not measured',
    targetText: `<= the peer's CPU per ${unit}`,
  };
}
