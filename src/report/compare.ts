// A against B, per contender (strategy and sweep cell) and phase, as benchstat does: a rank test
// (Mann-Whitney U) on the runs' times, `~` when it finds no significant difference, and the ratio
// of medians with its bootstrap 95% interval.
import { ALPHA, mannWhitney, MIN_RUNS_FOR_SIGNIFICANCE, ratioInterval, significantlyFaster } from '../analysis/significance.js';
import type { ContenderStats } from '../analysis/analyze.js';
import { fmtMs } from './console.js';

export interface StrategyChange {
  strategy: string;
  baseMs: number;
  newMs: number;
  /** Negative is faster. */
  changePct: number;
  /** new / base median time, with its 95% interval. */
  ratio: number;
  ratioLow: number;
  ratioHigh: number;
  p: number;
  significant: boolean;
  /** Why it is not significant, when it is not. */
  note: string;
  phases: { metric: string; baseP50Ms: number; newP50Ms: number; changePct: number }[];
}

const pct = (a: number, b: number) => (a > 0 ? ((b - a) / a) * 100 : 0);

export function compareStats(base: readonly ContenderStats[], next: readonly ContenderStats[]): { changes: StrategyChange[]; onlyInBase: string[]; onlyInNew: string[] } {
  const byName = new Map(next.map((s) => [s.label, s]));
  const changes: StrategyChange[] = [];
  for (const a of base) {
    const b = byName.get(a.label);
    if (!b) continue;
    const { p } = mannWhitney(a.timesMs, b.timesMs);
    // The verdict's own rule: the rank test and the ratio's interval, one way or the other.
    const significant = significantlyFaster(a.timesMs, b.timesMs) || significantlyFaster(b.timesMs, a.timesMs);
    const few = a.timesMs.length < MIN_RUNS_FOR_SIGNIFICANCE || b.timesMs.length < MIN_RUNS_FOR_SIGNIFICANCE;
    const note = significant ? '' : few ? `needs --runs >= ${MIN_RUNS_FOR_SIGNIFICANCE} on both sides`
      : p < ALPHA ? `p=${p.toFixed(2)}, but the ratio's 95% interval reaches 1x` : `p=${p.toFixed(2)}`;
    // Ratio as new/base: ratioInterval(fast, slow) measures slow/fast.
    const ci = ratioInterval(a.timesMs, b.timesMs);
    const phases = (['wait', 'firstByte', 'download', 'total'] as const)
      .filter((m) => a.latencyMs[m] && b.latencyMs[m])
      .map((m) => ({ metric: m, baseP50Ms: a.latencyMs[m]!.p50, newP50Ms: b.latencyMs[m]!.p50, changePct: pct(a.latencyMs[m]!.p50, b.latencyMs[m]!.p50) }));
    changes.push({
      strategy: a.label, baseMs: a.wallMs.median, newMs: b.wallMs.median, changePct: pct(a.wallMs.median, b.wallMs.median),
      ratio: b.wallMs.median / a.wallMs.median, ratioLow: ci.low, ratioHigh: ci.high, p, significant, note, phases,
    });
  }
  const baseNames = new Set(base.map((s) => s.label));
  return {
    changes,
    onlyInBase: base.filter((s) => !byName.has(s.label)).map((s) => s.label),
    onlyInNew: next.filter((s) => !baseNames.has(s.label)).map((s) => s.label),
  };
}

export function renderCompare(result: ReturnType<typeof compareStats>, baseLabel: string, newLabel: string): string {
  const lines = [`compare ${baseLabel} -> ${newLabel}`, ''];
  lines.push(`${'strategy'.padEnd(16)}${'base ms'.padStart(10)}${'new ms'.padStart(10)}${'change'.padStart(9)}  ${'new/base (95% CI)'.padEnd(22)}verdict`);
  for (const c of result.changes) {
    const sign = c.changePct > 0 ? '+' : '';
    const verdict = c.significant ? `${c.changePct < 0 ? 'faster' : 'slower'} (p=${c.p.toFixed(3)})` : `~ (${c.note})`;
    const ratio = `${c.ratio.toFixed(2)}x (${c.ratioLow.toFixed(2)}–${c.ratioHigh.toFixed(2)})`;
    lines.push(`${c.strategy.padEnd(16)}${c.baseMs.toFixed(1).padStart(10)}${c.newMs.toFixed(1).padStart(10)}${`${sign}${c.changePct.toFixed(1)}%`.padStart(9)}  ${ratio.padEnd(22)}${verdict}`);
    for (const p of c.phases) {
      lines.push(`  ${`${p.metric} p50`.padEnd(14)}${fmtMs(p.baseP50Ms).padStart(10)}${fmtMs(p.newP50Ms).padStart(10)}${`${p.changePct > 0 ? '+' : ''}${p.changePct.toFixed(1)}%`.padStart(9)}`);
    }
  }
  if (result.onlyInBase.length) lines.push(`only in ${baseLabel}: ${result.onlyInBase.join(', ')}`);
  if (result.onlyInNew.length) lines.push(`only in ${newLabel}: ${result.onlyInNew.join(', ')}`);
  return lines.join('\n');
}
