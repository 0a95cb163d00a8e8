// The timers a run keeps going while its workers work: --autoterm's stability test over the live
// rate, and the renewal of an Entra ID token the run outlives. Each starts at the release and stops
// when the run's results are in; neither measures anything.
import type { ChildProcess } from 'node:child_process';
import type { Bearer } from '../storage/entra.js';
import type { FromWorker } from './protocol.js';

export interface Autoterm {
  windowMs: number;
  /** A fraction: 0.075 is ±7.5%. */
  tolerance: number;
}

/**
 * --autoterm's test, warp's idea: the last `window` interval rates all lie within ±tolerance of
 * their mean. Rates are bytes per interval, or requests where no bytes move (listing, HEAD).
 */
export function isStable(rates: readonly number[], window: number, tolerance: number): boolean {
  if (window < 2 || rates.length < window) return false;
  const last = rates.slice(-window);
  const mean = last.reduce((a, b) => a + b, 0) / window;
  return mean > 0 && last.every((r) => Math.abs(r - mean) <= tolerance * mean);
}

/**
 * How often a run asks for a renewed token: a quarter of what is left of the one held, within [1 s, 60 s].
 */
export const tokenCheckMs = (b: Bearer, nowMs = Date.now()) =>
  Math.min(60_000, Math.max(1_000, (b.expiresOnMs - nowMs) / 4));

const sendAll = (children: readonly ChildProcess[], msg: Parameters<ChildProcess['send']>[0]) => {
  for (const c of children) if (c.connected) c.send(msg);
};

/**
 * Adds the workers' interval reports (each sent just after an interval closes, on the release's
 * clock) and, once the rate over whole intervals is stable, tells them to finish. Intervals are
 * taken in order, each once every worker has reported it: the series the test reads has the
 * boundaries of the results' series, whatever --interval is.
 */
export class AutotermTimer {
  /** When it ended the run, in ms since the release; unset while it has not. */
  atMs?: number;
  private readonly children: readonly ChildProcess[];
  private readonly listeners: ((m: FromWorker) => void)[];

  constructor(children: readonly ChildProcess[], releaseEpochMs: number, intervalMs: number, term: Autoterm) {
    this.children = children;
    const window = Math.max(2, Math.ceil(term.windowMs / intervalMs));
    const rates: number[] = [];
    const pending = new Map<number, { reports: number; ops: number; bytes: number }>();
    let next = 0;
    let bytesMove = false;
    const onReport = (m: Extract<FromWorker, { type: 'interval' }>) => {
      if (this.atMs !== undefined || m.index < next) return;
      const sum = pending.get(m.index) ?? { reports: 0, ops: 0, bytes: 0 };
      sum.reports++;
      sum.ops += m.ops;
      sum.bytes += m.bytes;
      pending.set(m.index, sum);
      for (let done = pending.get(next); done && done.reports >= children.length; done = pending.get(next)) {
        pending.delete(next++);
        // Requests until bytes move (a listing moves none), then bytes: never the two in one window.
        if (!bytesMove && done.bytes > 0) {
          bytesMove = true;
          rates.length = 0;
        }
        rates.push(bytesMove ? done.bytes : done.ops);
      }
      if (!isStable(rates, window, term.tolerance)) return;
      this.atMs = performance.timeOrigin + performance.now() - releaseEpochMs;
      sendAll(children, { type: 'finish' });
      this.stop();
    };
    this.listeners = children.map((c) => {
      const listener = (m: FromWorker) => {
        if (m.type === 'interval') onReport(m);
      };
      c.on('message', listener);
      return listener;
    });
  }

  stop(): void {
    this.children.forEach((c, i) => c.off('message', this.listeners[i]!));
  }
}

/** A long run outlives its token: the coordinator renews it and hands it on (never the workers). */
export class TokenRenewer {
  private timer?: NodeJS.Timeout;
  private stopped = false;
  private held: Bearer;
  private readonly children: readonly ChildProcess[];
  private readonly token: (signal?: AbortSignal) => Promise<Bearer>;
  private readonly signal?: AbortSignal;

  constructor(
    children: readonly ChildProcess[],
    held: Bearer,
    token: (signal?: AbortSignal) => Promise<Bearer>,
    signal?: AbortSignal,
  ) {
    this.children = children;
    this.held = held;
    this.token = token;
    this.signal = signal;
    this.timer = setTimeout(() => void this.renew(), tokenCheckMs(held));
  }

  private async renew(): Promise<void> {
    try {
      const b = await this.token(this.signal);
      if (b.token !== this.held.token) sendAll(this.children, { type: 'token', bearer: b });
      this.held = b;
    } catch {
      // The run goes on with the token it has; a refusal will show as failed requests, with the fix named.
    }
    if (!this.stopped) this.timer = setTimeout(() => void this.renew(), tokenCheckMs(this.held));
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}
