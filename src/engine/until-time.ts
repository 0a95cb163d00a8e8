// When a contender past its first runs has run enough: hyperfine's --min-time (its measured runs add
// up to this much), ended early by a precision target (its median's 95% interval within +-2%).
// The cap (--max-runs) is the session loop's, beside the run index.
import { medianWithin } from '../analysis/significance.js';

export interface UntilTimeRule {
  minTimeMs: number;
  maxRuns: number;
  /** A share of the median (0.02); 0: no precision target. */
  precision: number;
}

/** The measured times of each contender so far, and whether it wants another run. */
export class RunsUntilTime<C> {
  private readonly timesMs = new Map<C, number[]>();
  private readonly totalMs = new Map<C, number>();
  private readonly finished = new Set<C>();
  private readonly rule: UntilTimeRule;

  constructor(contenders: readonly C[], rule: UntilTimeRule) {
    this.rule = rule;
    for (const c of contenders) {
      this.timesMs.set(c, []);
      this.totalMs.set(c, 0);
    }
  }

  add(c: C, wallMs: number): void {
    this.timesMs.get(c)!.push(wallMs);
    this.totalMs.set(c, this.totalMs.get(c)! + wallMs);
  }

  /** Its measured times so far. */
  times(c: C): readonly number[] {
    return this.timesMs.get(c)!;
  }

  /** No more runs of it to fill its time (it failed). */
  done(c: C): void {
    this.finished.add(c);
  }

  /** Short of --min-time, and its median not yet known to the precision asked. */
  wantsMore(c: C): boolean {
    if (this.finished.has(c) || this.totalMs.get(c)! >= this.rule.minTimeMs) return false;
    return !(this.rule.precision > 0 && medianWithin(this.timesMs.get(c)!, this.rule.precision));
  }

  /** Why a contender stopped adding runs, for the log. */
  reason(c: C): 'failed' | 'min-time' | 'precision' | 'max-runs' {
    if (this.finished.has(c)) return 'failed';
    if (this.totalMs.get(c)! >= this.rule.minTimeMs) return 'min-time';
    if (this.rule.precision > 0 && medianWithin(this.timesMs.get(c)!, this.rule.precision))
      return 'precision';
    return 'max-runs';
  }
}
