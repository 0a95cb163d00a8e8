// Cleanup once a stop has come gets a bounded budget: the stop grace, counted from the stop. A
// container is given 10 s (docker stop) or 30 s (Kubernetes) between SIGTERM and SIGKILL, and
// deleting thousands of uploads takes longer than that: past the budget a step is abandoned (its
// signal aborted, so that its requests end) and what it left is said in one line, by the step
// itself where it knows (it resolves true), else here.
import { log } from '../log/logger.js';
import { formatDuration as seconds } from '../vocabulary/durations.js';

/** The default budget: within docker stop's 10 s grace, with room for the results and the report. */
export const DEFAULT_STOP_GRACE_MS = 5_000;
/** After its signal is aborted, how long a step may take to settle and say what it left. */
const SETTLE_MS = 250;

/** What a cleanup step is given: a signal aborted when its budget is spent, and whether a stop came. */
export interface CleanupContext {
  signal: AbortSignal;
  /** A stop came before or while the step ran. */
  readonly stopped: boolean;
  /** The budget, for the step's own line about what it left. */
  graceMs: number;
  /** How far the step is (items done of total), for progress. */
  progress(done: number, total: number): void;
}

/** How a line about cleanup the grace cut begins: `cleanup cut at the 5 s stop grace (--stop-grace)`. */
export const cutAt = (graceMs: number): string =>
  `cleanup cut at the ${seconds(graceMs)} stop grace (--stop-grace)`;

/** The stop grace of one session: started by the stop signal, spent by every cleanup step after it. */
export class StopGrace {
  private readonly stop: AbortSignal;
  readonly graceMs: number;
  private stoppedAtMs?: number;

  constructor(stop: AbortSignal, graceMs = DEFAULT_STOP_GRACE_MS) {
    this.stop = stop;
    this.graceMs = graceMs;
    if (stop.aborted) this.stoppedAtMs = performance.now();
    else stop.addEventListener('abort', () => (this.stoppedAtMs ??= performance.now()), { once: true });
  }

  /**
   * Nothing is left to spend: the target is gone (nothing can be cleaned on it), so every step
   * is abandoned at once. Called before the stop's signal is aborted.
   */
  spend(): void {
    this.stoppedAtMs = performance.now() - this.graceMs;
  }

  /** What is left of the budget: all of it (unbounded) before a stop. */
  leftMs(): number {
    if (this.stoppedAtMs === undefined) return Infinity;
    return Math.max(0, this.stoppedAtMs + this.graceMs - performance.now());
  }

  /**
   * Runs a cleanup step: to its end before a stop; after one (or once one comes while it runs) for
   * what is left of the grace at most. True when it finished; false when it was abandoned, after
   * saying `what` was left where the step did not say so itself (it returns true when it did).
   */
  async run(
    what: string,
    step: (ctx: CleanupContext) => Promise<boolean | void>,
    progress: CleanupContext['progress'] = () => {},
  ): Promise<boolean> {
    const abandon = new AbortController();
    const grace = this;
    const ctx: CleanupContext = {
      signal: abandon.signal,
      graceMs: this.graceMs,
      progress,
      get stopped() {
        return grace.stop.aborted;
      },
    };
    let timer: NodeJS.Timeout | undefined;
    let arm: (() => void) | undefined;
    const timeUp = new Promise<'late'>((resolve) => {
      arm = () => (timer = setTimeout(() => resolve('late'), this.leftMs()));
      if (this.stop.aborted) arm();
      else this.stop.addEventListener('abort', arm, { once: true });
    });
    const spent = () => abandon.abort(new Error(`the ${seconds(this.graceMs)} stop grace ran out`));
    // With no time left the step still starts, its signal already aborted: one that honours it
    // returns at once, saying what it leaves.
    if (this.leftMs() === 0) spent();
    const running = step(ctx);
    running.catch(() => {});
    try {
      const first = await Promise.race([running.then(() => 'done' as const), timeUp]);
      if (first === 'done') return !abandon.signal.aborted;
      spent();
      // A step that honours its signal stops at once and may say itself what it left.
      let settle: NodeJS.Timeout | undefined;
      const settled = new Promise<false>((r) => (settle = setTimeout(() => r(false), SETTLE_MS)));
      const said = await Promise.race([
        running.then(
          (s) => s === true,
          () => false,
        ),
        settled,
      ]);
      clearTimeout(settle);
      if (!said) log.warn(`${cutAt(this.graceMs)}: ${what} was not finished`);
      return false;
    } finally {
      clearTimeout(timer);
      if (arm) this.stop.removeEventListener('abort', arm);
    }
  }
}
