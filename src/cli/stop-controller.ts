// How a measuring session is stopped: SIGINT, SIGTERM or SIGHUP, or its --deadline. One
// AbortController for the session; a second signal ends the process at once; each reason has its
// exit code (as timeout(1): 124 for the deadline, 128 + the signal's number) and its words.
import { log } from '../log/logger.js';

export const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
/** Signals this close together are one stop (timeout(1) signals the process, then its group). */
const SAME_STOP_MS = 100;

/** The reason a stop carries: the signal's name, or 'deadline' (the results' `interrupted`). */
export type StopReason = (typeof STOP_SIGNALS)[number] | 'deadline';

/** As timeout(1) does: 124 when the deadline stopped it; 128 + the signal's number for a signal. */
const EXIT_CODES: Record<string, number> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };
export const exitCodeOf = (reason: string): number => EXIT_CODES[reason] ?? 124;

/** What stopped it, after "stopped": "by SIGTERM", "at the --deadline" (a deadline is no signal). */
export const stoppedBy = (reason: string): string =>
  reason === 'deadline' ? 'at the --deadline' : `by ${reason}`;

export class StopController {
  private readonly stop = new AbortController();
  private readonly deadline?: NodeJS.Timeout;
  private firstAtMs = 0;

  constructor(deadlineMs?: number) {
    // SIGHUP (a closed terminal, a dropped ssh session) stops as SIGTERM does: partial results kept.
    // Never taken off: a copy of the stop that arrives after the session (timeout(1)'s second, to the
    // group) is the same stop. With no listener left, even for a moment, Node restores the signal's
    // default action, and the copy killed the process (no exit code of ours, its results file
    // unwritten when it came before the write). A listener keeps no process alive.
    for (const s of STOP_SIGNALS) process.on(s, this.onSignal);
    if (deadlineMs !== undefined) {
      this.deadline = setTimeout(() => {
        log.warn(
          `--deadline of ${deadlineMs / 1000} s reached: no new requests; ` +
            'stopping the run in flight, then writing partial results',
        );
        this.stop.abort('deadline' satisfies StopReason);
      }, deadlineMs);
    }
  }

  get signal(): AbortSignal {
    return this.stop.signal;
  }

  /** Why it stopped; undefined while it has not. */
  get reason(): StopReason | undefined {
    return this.stop.signal.aborted ? (this.stop.signal.reason as StopReason) : undefined;
  }

  /** The session is over: the deadline no longer applies (the signal listeners stay, see above). */
  close(): void {
    clearTimeout(this.deadline);
  }

  private readonly onSignal = (signal: NodeJS.Signals) => {
    if (this.stop.signal.aborted) {
      // One stop sent twice, not a second one: timeout(1) signals the process and then its group,
      // and a terminal's Ctrl-C reaches every process of the group.
      if (performance.now() - this.firstAtMs < SAME_STOP_MS) return;
      // A second signal: stop now. Workers are our children and end with us.
      process.stderr.write(`blob-cacher: ${signal} again, exiting without waiting\n`);
      process.exit(exitCodeOf(signal));
    }
    this.firstAtMs = performance.now();
    log.warn(`${signal}: no new requests; stopping the run in flight, then writing partial results`);
    this.stop.abort(signal);
  };
}
