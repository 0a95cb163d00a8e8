// The coordinator: forks worker processes, deals them the work fairly, releases them together on a
// barrier, and merges what they send back. It never averages percentiles. A worker that dies is
// named with its cause; the others' results are kept.
import { fork, type ChildProcess } from 'node:child_process';
import { PhaseHistograms } from '../metrics/histograms.js';
import { RecordTable } from '../metrics/record-table.js';
import { encodeItems, splitItems, type Items } from '../plan/items.js';
import { workerEntry } from './entry.js';
import type { FromWorker, OpRecord, Progress, SteadyTotals, WorkerJob, WorkerResult } from './protocol.js';
import { mergeSteady, type MergedSteady } from './steady.js';
import { addTotals, countInto } from '../metrics/totals.js';
import { addTallies, type Tally } from '../metrics/record-checks.js';
import type { Bearer } from '../storage/entra.js';

const WORKER = workerEntry();

/** What a worker sent about itself, its records taken out (they are the run's, merged). */
export type WorkerSummary = Omit<WorkerResult, 'records'> & { requests: number };

export interface MergedRun {
  workers: WorkerSummary[];
  records: RecordTable;
  histograms: PhaseHistograms;
  /** From the first request's start to the last response's end (or the step after them), across processes. */
  wallMs: number;
  /** Workers that failed or died, with the reason; their items are missing from `records`. */
  failures: string[];
  /** After a stop: the items that may have reached the server (the rest never left). */
  maybeSent?: ReadonlySet<number>;
  /** A steady run (--duration): every request counted by interval; `records` hold each item's last. */
  steady?: MergedSteady;
  /** When --autoterm ended a steady run, in ms since the release. */
  autotermAtMs?: number;
  /**
   * Many files (the job asked for a summary): every request's totals and the checks of every item,
   * made by the workers over their shares; `records` are then a sample, with every failure.
   */
  summary?: { totals: SteadyTotals; tally: Tally };
}

function waitFor(child: ChildProcess, index: number, type: 'ready' | 'finished' | 'done'): Promise<FromWorker> {
  return new Promise((resolve, reject) => {
    const onMessage = (msg: FromWorker) => {
      if (msg.type === type) {
        cleanup();
        resolve(msg);
      } else if (msg.type === 'failed') {
        cleanup();
        reject(new Error(`worker ${index} (pid ${child.pid}) failed: ${msg.message}`));
      }
    };
    const onExit = (code: number | null, signal: string | null) => {
      cleanup();
      reject(new Error(`worker ${index} (pid ${child.pid}) died before it was ${type}: ${signal ? `killed by ${signal}` : `exit code ${code}`}`));
    };
    const cleanup = () => {
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.on('exit', onExit);
  });
}

/**
 * A step that runs once every worker has finished its items without a failure (an upload's commit):
 * started on the workers' 'finished' signal, not after their results arrive, and timed as part of the run.
 */
export type AfterWorkers = () => Promise<OpRecord>;

/** A job as the engine describes it: every worker gets it with its own index and share of the items. */
export type JobSpec = Omit<WorkerJob, 'workerIndex' | 'items'>;

export interface PoolOptions {
  after?: AfterWorkers;
  /** Aborting stops new items at once; what is in flight gets `graceMs`, then the workers are killed. */
  signal?: AbortSignal;
  graceMs?: number;
  /** Totals over all workers of finished items, a few times a second. */
  onProgress?: (done: Progress) => void;
  /**
   * Awaited once every worker is ready (forked, job received, payloads made), before the barrier is
   * released: a scale-out run's start gate. A rejection ends the run before any request.
   */
  beforeRelease?: () => Promise<void>;
  /** Called once every worker is ready, just before the barrier is released. */
  onReleased?: () => void;
  /** Steady runs: end early once the rate has stayed within ±tolerance of its mean for a window. */
  autoterm?: Autoterm;
  /**
   * Entra ID: the token a run should carry now (renewed when it expires soon). Asked during the run
   * every quarter of the token's remaining life (1 s to 60 s); a new one is sent to the workers.
   */
  token?: (signal?: AbortSignal) => Promise<Bearer>;
}

/** How often a run asks for a renewed token: a quarter of what is left of the one held, within [1 s, 60 s]. */
export const tokenCheckMs = (b: Bearer, nowMs = Date.now()) => Math.min(60_000, Math.max(1_000, (b.expiresOnMs - nowMs) / 4));

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
      this.children[i] = fork(WORKER.path, [], { execArgv: WORKER.execArgv, stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced' });
    }
    return this.children.slice(0, count);
  }

  async run(base: JobSpec, items: Items, processes: number, opts: PoolOptions = {}): Promise<MergedRun> {
    const { after, signal, onProgress } = opts;
    const shares = splitItems(items, processes);
    const children = this.take(shares.length);
    const sentBefore: (number | undefined)[] = children.map(() => undefined);
    const progress: Progress[] = children.map(() => ({ ops: 0, bytes: 0, errors: 0, retries: 0 }));
    const listeners = children.map((c, i) => {
      const listener = (m: FromWorker) => {
        if (m.type === 'stopping') sentBefore[i] = m.sentBefore;
        if (m.type !== 'progress') return;
        progress[i] = { ops: m.ops, bytes: m.bytes, errors: m.errors, retries: m.retries };
        onProgress?.(progress.reduce((a, p) => ({ ops: a.ops + p.ops, bytes: a.bytes + p.bytes, errors: a.errors + p.errors, retries: a.retries + p.retries })));
      };
      c.on('message', listener);
      return listener;
    });
    let graceTimer: NodeJS.Timeout | undefined;
    let sampler: NodeJS.Timeout | undefined;
    let renewer: NodeJS.Timeout | undefined;
    let finishedAll = false;
    const onAbort = () => {
      // Stop starting new items; what is in flight gets a grace period, then the workers are ended.
      for (const c of children) if (c.connected) c.send({ type: 'stop' });
      graceTimer = setTimeout(() => children.forEach((c) => c.kill('SIGKILL')), opts.graceMs ?? STOP_GRACE_MS);
    };
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const ready = children.map((c, i) => waitFor(c, i, 'ready'));
      children.forEach((c, i) => c.send({ type: 'job', job: { ...base, workerIndex: i, items: encodeItems(shares[i]!) } }));
      await Promise.all(ready);
      await opts.beforeRelease?.();
      // Each worker's records go into the run's table as they arrive (and its message is dropped),
      // made at the first: one row per item, or more where a listing's pages are rows of their own.
      let collected: RecordTable | undefined;
      const summaries: WorkerSummary[] = [];
      const done = children.map((c, i) => waitFor(c, i, 'done').then((m) => {
        const { records: encoded, ...summary } = (m as Extract<FromWorker, { type: 'done' }>).result;
        collected = (collected ?? new RecordTable(items.length)).append(RecordTable.decode(encoded));
        // The summary keeps no second copy of the records.
        summaries[i] = { ...summary, requests: summary.summary?.requests ?? encoded.length };
      }));
      const finished = children.map((c, i) => waitFor(c, i, 'finished'));
      // A worker that fails or dies rejects this too: then there is no step after, and `done` says why.
      const afterStep = after
        ? Promise.all(finished)
          .then((msgs) => (msgs.every((m) => m.type === 'finished' && m.failedItems === 0) ? after() : undefined))
          .catch(() => undefined)
        : undefined;
      // Workers check what they moved (hash ranges, read uploads back) only once every one of them,
      // and the step after, is done: a worker done early would otherwise load the server and the
      // CPUs while another's timed requests are still going (a 2 x 32 upload's span grew 15-40%).
      void Promise.allSettled([...finished, afterStep]).then(() => {
        for (const c of children) if (c.connected) c.send({ type: 'verify' });
      });
      opts.onReleased?.();
      const epochMs = performance.timeOrigin + performance.now();
      for (const c of children) c.send({ type: 'go', epochMs });
      let autotermAtMs: number | undefined;
      if (base.steady && opts.autoterm) {
        const { intervalMs } = base.steady;
        const window = Math.max(2, Math.ceil(opts.autoterm.windowMs / intervalMs));
        const rates: number[] = [];
        let before = { ops: 0, bytes: 0 };
        sampler = setInterval(() => {
          const now = progress.reduce((a, p) => ({ ops: a.ops + p.ops, bytes: a.bytes + p.bytes }), { ops: 0, bytes: 0 });
          rates.push(now.bytes > 0 ? now.bytes - before.bytes : now.ops - before.ops);
          before = now;
          if (!isStable(rates, window, opts.autoterm!.tolerance)) return;
          clearInterval(sampler);
          autotermAtMs = performance.timeOrigin + performance.now() - epochMs;
          for (const c of children) if (c.connected) c.send({ type: 'finish' });
        }, intervalMs);
      }
      // A long run outlives its token: the coordinator renews it and hands it on (never the workers).
      let sent = base.target.kind === 'blob' ? base.target.bearer : undefined;
      const renew = async () => {
        if (!sent || !opts.token) return;
        try {
          const b = await opts.token(signal);
          if (b.token !== sent.token) for (const c of children) if (c.connected) c.send({ type: 'token', bearer: b });
          sent = b;
        } catch {
          // The run goes on with the token it has; a refusal will show as failed requests, with the fix named.
        }
        if (!finishedAll) renewer = setTimeout(renew, tokenCheckMs(sent));
      };
      if (sent && opts.token) renewer = setTimeout(renew, tokenCheckMs(sent));
      const settled = await Promise.allSettled(done);
      finishedAll = true;
      clearTimeout(renewer);
      clearInterval(sampler);
      // A worker that failed its job is not trusted with the next one: it is replaced.
      settled.forEach((s, i) => {
        if (s.status === 'rejected') children[i]!.kill();
      });
      const afterRecord = await afterStep;
      const failures = settled.flatMap((s) => (s.status === 'rejected' ? [(s.reason as Error).message] : []));
      const results = summaries.filter((s) => s !== undefined);
      const histograms = new PhaseHistograms();
      for (const r of results) histograms.addEncoded(r.histograms);
      const records = (collected ?? new RecordTable()).sortByOffset();
      // The ranked span, the same for every contender: its first request's start (when it was issued,
      // so queueing for a socket counts) to its last response's end; a worker's own setup and
      // wind-down are outside it.
      let start = Infinity;
      let end = -Infinity;
      const steady = base.steady ? mergeSteady(results, epochMs, base.steady.intervalMs) : undefined;
      if (steady) {
        // Records keep each item's last request only: the span comes from every request the workers counted.
        for (const w of steady.workers) {
          start = Math.min(start, epochMs + w.firstStartMs);
          end = Math.max(end, epochMs + w.lastEndMs);
        }
      } else {
        ({ startEpochMs: start, endEpochMs: end } = records.span());
        // A sample of the records may not hold the first and last: the workers said when they were.
        for (const w of results) {
          if (!w.summary) continue;
          start = Math.min(start, w.summary.firstStartEpochMs);
          end = Math.max(end, w.summary.lastEndEpochMs);
        }
      }
      const summary = !steady && results.length && results.every((w) => w.summary)
        ? { totals: addTotals(results.map((w) => w.summary!.totals)), tally: addTallies(results.map((w) => w.summary!.tally)) }
        : undefined;
      if (afterRecord) {
        // A step after the workers (an upload's commit) is one more request of the run, steady or not.
        if (steady) countInto(steady.totals, afterRecord);
        if (summary) countInto(summary.totals, afterRecord);
        records.push(afterRecord);
        if (!afterRecord.error) histograms.record(afterRecord.phases, afterRecord.totalMs);
        end = Math.max(end, afterRecord.startEpochMs + afterRecord.totalMs);
      }
      // A worker that never answered the stop may have sent any of its items.
      let maybeSent: Set<number> | undefined;
      if (signal?.aborted) {
        maybeSent = new Set();
        shares.forEach((share, i) => {
          for (let p = 0; p < (sentBefore[i] ?? share.length); p++) maybeSent!.add(share.at(p)!.index);
        });
      }
      return {
        workers: results, records, histograms, wallMs: end > start ? end - start : 0, failures, maybeSent, ...(summary ? { summary } : {}),
        ...(steady ? { steady } : {}), ...(autotermAtMs === undefined ? {} : { autotermAtMs }),
      };
    } finally {
      signal?.removeEventListener('abort', onAbort);
      if (graceTimer) clearTimeout(graceTimer);
      clearInterval(sampler);
      finishedAll = true;
      clearTimeout(renewer);
      children.forEach((c, i) => c.off('message', listeners[i]!));
    }
  }
}

/** One run on workers forked for it alone. */
export async function runOnWorkers(base: JobSpec, items: Items, processes: number, opts: PoolOptions = {}): Promise<MergedRun> {
  const pool = new WorkerPool();
  try {
    return await pool.run(base, items, processes, opts);
  } finally {
    pool.close();
  }
}
