// The timers a run keeps going while its workers work: --autoterm's stability test over the live
// rate, and the renewal of an Entra ID token the run outlives. Each starts at the release and stops
// when the run's results are in; neither measures anything.
import type { ChildProcess } from 'node:child_process';
import type { Bearer } from '../storage/entra.js';
import type { Progress } from './protocol.js';

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

/** How often a run asks for a renewed token: a quarter of what is left of the one held, within [1 s, 60 s]. */
export const tokenCheckMs = (b: Bearer, nowMs = Date.now()) => Math.min(60_000, Math.max(1_000, (b.expiresOnMs - nowMs) / 4));

const sendAll = (children: readonly ChildProcess[], msg: Parameters<ChildProcess['send']>[0]) => {
  for (const c of children) if (c.connected) c.send(msg);
};

/** Samples the workers' progress every interval; once the rate is stable, tells them to finish. */
export class AutotermTimer {
  /** When it ended the run, in ms since the release; unset while it has not. */
  atMs?: number;
  private timer?: NodeJS.Timeout;

  constructor(children: readonly ChildProcess[], total: () => Pick<Progress, 'ops' | 'bytes'>, releaseEpochMs: number, intervalMs: number, autoterm: Autoterm) {
    const window = Math.max(2, Math.ceil(autoterm.windowMs / intervalMs));
    const rates: number[] = [];
    let before = { ops: 0, bytes: 0 };
    this.timer = setInterval(() => {
      const now = total();
      rates.push(now.bytes > 0 ? now.bytes - before.bytes : now.ops - before.ops);
      before = now;
      if (!isStable(rates, window, autoterm.tolerance)) return;
      this.stop();
      this.atMs = performance.timeOrigin + performance.now() - releaseEpochMs;
      sendAll(children, { type: 'finish' });
    }, intervalMs);
  }

  stop(): void {
    clearInterval(this.timer);
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

  constructor(children: readonly ChildProcess[], held: Bearer, token: (signal?: AbortSignal) => Promise<Bearer>, signal?: AbortSignal) {
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
