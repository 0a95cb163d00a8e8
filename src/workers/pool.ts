// The coordinator: forks worker processes, deals them the work fairly, releases them together on a
// barrier (barrier.ts), and merges what they send back (collector.ts), with the run's timers
// (timers.ts). It never averages percentiles. A worker that dies is named with its cause; the
// others' results are kept.
import type { ChildProcess } from 'node:child_process';
import { splitItems, type Items } from '../plan/items.js';
import type { Bearer } from '../storage/entra.js';
import { afterAllFinished, dispatch, release, waitFor, type AfterWorkers, type JobSpec } from './barrier.js';
import { Collector, type MergedRun } from './collector.js';
import { forkWorker, takeFirstWorker } from './first-worker.js';
import { loadHistograms } from '../metrics/histograms.js';
import type { FromWorker, Progress } from './protocol.js';
import { AutotermTimer, TokenRenewer, type Autoterm } from './timers.js';
import { bearerOf } from '../storage/target-info.js';

export type { AfterWorkers, JobSpec } from './barrier.js';
export type { MergedRun, WorkerSummary } from './collector.js';

export interface PoolOptions {
  after?: AfterWorkers;
  /** Aborting stops new items at once; what is in flight gets `graceMs`, then the workers are killed. */
  signal?: AbortSignal;
  graceMs?: number;
  /**
   * Totals over all workers of finished items, a few times a second, and the latency histogram that
   * one worker's message carried (what succeeded there since its last), where it carried one.
   */
  onProgress?: (done: Progress, latency?: string) => void;
  /**
   * Awaited once every worker is ready (forked, job received, payloads made), before the barrier is
   * released: a scale-out run's start gate. A rejection ends the run before any request.
   */
  beforeRelease?: () => Promise<void>;
  /** Called once every worker is ready, just before the barrier is released. */
  onReleased?: () => void;
  /** Called once every worker has finished its requests and is told to check its work (untimed). */
  onChecking?: () => void;
  /** Steady runs: end early once the rate has stayed within ±tolerance of its mean for a window. */
  autoterm?: Autoterm;
  /**
   * Entra ID: the token a run should carry now (renewed when it expires soon). Asked during the run
   * every quarter of the token's remaining life (1 s to 60 s); a new one is sent to the workers.
   */
  token?: (signal?: AbortSignal) => Promise<Bearer>;
}

/** What the workers say while they run: progress for the display, and after a stop how far each got. */
class Listening {
  readonly progress: Progress[];
  readonly sentBefore: (number | undefined)[];
  private readonly children: readonly ChildProcess[];
  private readonly listeners: ((m: FromWorker) => void)[];

  constructor(children: readonly ChildProcess[], onProgress?: PoolOptions['onProgress']) {
    this.children = children;
    this.progress = children.map(() => ({ ops: 0, bytes: 0, errors: 0, retries: 0 }));
    this.sentBefore = children.map(() => undefined);
    this.listeners = children.map((c, i) => {
      const listener = (m: FromWorker) => {
        if (m.type === 'stopping') this.sentBefore[i] = m.sentBefore;
        if (m.type !== 'progress') return;
        this.progress[i] = { ops: m.ops, bytes: m.bytes, errors: m.errors, retries: m.retries };
        onProgress?.(this.total(), m.latency);
      };
      c.on('message', listener);
      return listener;
    });
  }

  total(): Progress {
    return this.progress.reduce((a, p) => ({
      ops: a.ops + p.ops,
      bytes: a.bytes + p.bytes,
      errors: a.errors + p.errors,
      retries: a.retries + p.retries,
    }));
  }

  /**
   * After a stop: the items that may have reached the server (a worker that never answered, any of its
   * share).
   */
  maybeSent(shares: readonly Items[]): Set<number> {
    const maybe = new Set<number>();
    shares.forEach((share, i) => {
      for (let p = 0; p < (this.sentBefore[i] ?? share.length); p++) maybe.add(share.at(p)!.index);
    });
    return maybe;
  }

  close(): void {
    this.children.forEach((c, i) => c.off('message', this.listeners[i]!));
  }
}

/** A stop: no new items; what is in flight gets a grace period, then the workers are ended. */
function onStop(
  children: readonly ChildProcess[],
  signal: AbortSignal | undefined,
  graceMs: number,
): () => void {
  let graceTimer: NodeJS.Timeout | undefined;
  const onAbort = () => {
    for (const c of children) if (c.connected) c.send({ type: 'stop' });
    graceTimer = setTimeout(() => children.forEach((c) => c.kill('SIGKILL')), graceMs);
  };
  if (signal?.aborted) onAbort();
  else signal?.addEventListener('abort', onAbort, { once: true });
  return () => {
    signal?.removeEventListener('abort', onAbort);
    if (graceTimer) clearTimeout(graceTimer);
  };
}

export const STOP_GRACE_MS = 1_000;

const isUp = (c: ChildProcess) => c.connected && c.exitCode === null && c.signalCode === null;

/**
 * Worker processes that persist across runs: a run's JIT, imports and loaded modules (the SDK's
 * above all) stay warm for the next one, so a warm-up run warms something and no run pays for
 * process start. Connections do not persist: every run opens its own sockets. A worker that died
 * is replaced before the next run.
 */
export class WorkerPool {
  private readonly children: ChildProcess[] = [];

  /** Releases the workers: they exit when their IPC channel closes. */
  close(): void {
    for (const c of this.children) {
      if (c.connected) c.disconnect();
      if (c.exitCode === null && c.signalCode === null) c.kill();
    }
    this.children.length = 0;
  }

  /** Starts `count` workers now, so that their start overlaps other setup (the target, preflight). */
  prefork(count: number): void {
    this.take(count);
  }

  private take(count: number): ChildProcess[] {
    for (let i = 0; i < count; i++) {
      const c = this.children[i];
      if (c && isUp(c)) continue;
      if (c) c.kill();
      this.children[i] = takeFirstWorker() ?? forkWorker();
    }
    return this.children.slice(0, count);
  }

  async run(base: JobSpec, items: Items, processes: number, opts: PoolOptions = {}): Promise<MergedRun> {
    const { signal } = opts;
    const shares = splitItems(items, processes);
    const children = this.take(shares.length);
    const listening = new Listening(children, opts.onProgress);
    const unStop = onStop(children, signal, opts.graceMs ?? STOP_GRACE_MS);
    let timers: { autoterm?: AutotermTimer; renewer?: TokenRenewer } = {};
    try {
      // A split object's completion is the worker's to record only where it holds every part.
      const dispatched = dispatch(
        children,
        shares.length > 1 && base.completions === 'whole-object' ? { ...base, completions: undefined } : base,
        shares,
      );
      // The jobs are sent: while the workers prepare (untimed), load what merging their results
      // needs, before the barrier rather than between the last result and the report.
      loadHistograms();
      await dispatched;
      await opts.beforeRelease?.();
      const collector = new Collector(items.length);
      const done = children.map((c, i) => waitFor(c, i, 'done').then((m) => collector.add(i, m.result)));
      const afterStep = afterAllFinished(children, opts.after, opts.onChecking);
      opts.onReleased?.();
      const releaseEpochMs = release(children);
      const bearer = bearerOf(base.target);
      timers = {
        autoterm:
          base.steady && opts.autoterm
            ? new AutotermTimer(children, releaseEpochMs, base.steady.intervalMs, opts.autoterm)
            : undefined,
        renewer: bearer && opts.token ? new TokenRenewer(children, bearer, opts.token, signal) : undefined,
      };
      const settled = await Promise.allSettled(done);
      timers.autoterm?.stop();
      timers.renewer?.stop();
      // A worker that failed its job is not trusted with the next one: it is replaced.
      settled.forEach((s, i) => {
        if (s.status === 'rejected') children[i]!.kill();
      });
      return collector.merge({
        releaseEpochMs,
        steady: base.steady,
        openLoop: base.openLoop,
        train: base.train,
        afterRecord: await afterStep,
        failures: settled.flatMap((s) => (s.status === 'rejected' ? [(s.reason as Error).message] : [])),
        maybeSent: signal?.aborted ? listening.maybeSent(shares) : undefined,
        autotermAtMs: timers.autoterm?.atMs,
      });
    } finally {
      unStop();
      timers.autoterm?.stop();
      timers.renewer?.stop();
      listening.close();
    }
  }
}
