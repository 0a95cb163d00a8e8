// The one run loop, for downloads, uploads and every cell of a sweep: open the workload (target,
// preflight, fixtures), then run its contenders interleaved run by run (ABCABC, so drift hits all
// alike): prepare -> fork -> barrier -> collect -> verify -> cleanup. A stop is an AbortSignal; what
// happens is told through typed events that reporters and the results writer subscribe to.
import { log } from '../log/logger.js';
import { failedRun, measuredRun, withSampledRecords, type MeasuredRun, type RunIdentity, type Verification } from '../results/record.js';
import { runFailed, type Cell, type RunParams } from '../results/schema.js';
import { totalBytes, type Items } from '../strategies/items.js';
import { WorkerPool, type AfterWorkers, type JobSpec, type MergedRun } from '../workers/pool.js';
import type { Progress } from '../workers/protocol.js';
import type { ServerClock } from '../metrics/server-clock.js';
import type { SteadyOptions } from '../config/load.js';
import type { Bearer } from '../storage/entra.js';
import type { ConnectionMode } from '../config/options.js';

/** One run of one contender, ready to go: the job and items, and what to do with the result. */
export interface PreparedRun {
  job: JobSpec;
  items: Items;
  objectSizeBytes: number;
  /** A timed step after every worker is done (an upload's Put Block List). */
  after?: AfterWorkers;
  verify(merged: MergedRun): Promise<Verification>;
  /**
   * Runs whatever happened: outputs, temporary files, uploaded blobs. `merged` is what the workers
   * sent back, when they did: items cancelled before they started need no cleaning up.
   */
  cleanup(verified: boolean, merged?: MergedRun): Promise<void>;
}

export interface Contender {
  strategy: string;
  description: string;
  prepare(run: number): Promise<PreparedRun>;
}

/** A workload once its target is open and checked: what it measures, and how to let go of it. */
export interface OpenWorkload {
  target: string;
  /** The settings every run of this workload is measured with. */
  params: RunParams;
  /** Downloads: the size of the object every contender delivers. */
  objectSizeBytes?: number;
  /** The target's own clock, when it runs in this process: each run's server-side span. */
  serverClock?: ServerClock;
  /** Entra ID: the token runs should carry now, renewed when it expires soon (asked during long runs too). */
  token?: (signal?: AbortSignal) => Promise<Bearer>;
  contenders: Contender[];
  close(interrupted: boolean): Promise<void>;
}

export interface Workload {
  open(signal: AbortSignal): Promise<OpenWorkload>;
}

/** One cell of a session: a plain run has one, a sweep one per combination of swept values. */
export interface SessionCell {
  cell?: Cell;
  workload: Workload;
  runs: number;
  warmup: number;
  /**
   * After `runs`, a contender keeps running (still interleaved with the others that need more) until
   * its measured runs add up to this much time, as hyperfine's --min-time; at most MAX_RUNS runs.
   */
  minTimeMs?: number;
  /** --duration: every run repeats its requests for a time, counted per interval (and maybe ended early by --autoterm). */
  steady?: SteadyOptions;
  /** warm: each worker opens MAX_SOCKETS connections before the barrier. */
  connections?: ConnectionMode;
}

/** The most measured runs --min-time may ask of one contender. */
export const MAX_RUNS = 1000;

export type SessionEvent =
  | { type: 'cell'; index: number; count: number; cell?: Cell; target: string }
  /** `durationMs`: a steady run, which repeats its `requests` (one lap) until then. */
  | { type: 'run-start'; strategy: string; cell?: Cell; run: number; runs: number; warmup: boolean; requests: number; bytes: number; durationMs?: number }
  | ({ type: 'progress' } & Progress)
  | { type: 'run'; run: MeasuredRun }
  | { type: 'run-end' };

export interface SessionOptions {
  signal?: AbortSignal;
  onEvent?: (event: SessionEvent) => void;
  /**
   * Awaited before each run's barrier is released, once its workers are forked and ready: a
   * scale-out run waits here for its other clients. A gate that throws ends the session with its error.
   */
  startGate?: (signal: AbortSignal) => Promise<void>;
}

export interface SessionOutcome {
  /** The last cell's target, as a label. */
  target: string;
  objectSizeBytes?: number;
  runs: MeasuredRun[];
  /** True when the signal stopped it: `runs` holds what finished before. */
  interrupted: boolean;
}

const cancelledByStop = (merged: MergedRun) => merged.failures.length > 0 || merged.records.failedRows().some((i) => merged.records.error(i)!.startsWith('cancelled'));

export async function runSession(cells: readonly SessionCell[], opts: SessionOptions = {}): Promise<SessionOutcome> {
  const signal = opts.signal ?? new AbortController().signal;
  const emit = opts.onEvent ?? (() => {});
  const runs: MeasuredRun[] = [];
  let target = '';
  let objectSizeBytes: number | undefined;
  for (const [cellIndex, { cell, workload, runs: measured, warmup, minTimeMs = 0, steady, connections }] of cells.entries()) {
    if (signal.aborted) break;
    if (cell) log.info(`sweep cell ${cellIndex + 1}/${cells.length}: ${Object.entries(cell).map(([k, v]) => `${k} ${v}`).join(' ')}`);
    // One pool per cell: its processes stay warm across the cell's runs and contenders.
    const pool = new WorkerPool();
    // Every run needs a first worker: its start overlaps opening the target (preflight, fixtures).
    // The others wait until the run's items are known: never more processes than items.
    pool.prefork(1);
    let open: OpenWorkload;
    try {
      open = await workload.open(signal);
    } catch (err) {
      pool.close();
      throw err;
    }
    target = open.target;
    objectSizeBytes = open.objectSizeBytes;
    emit({ type: 'cell', index: cellIndex, count: cells.length, cell, target });
    try {
      const total = warmup + measured;
      // Measured time so far per contender: --min-time keeps the ones short of it going.
      const measuredMs = new Map<Contender, number>(open.contenders.map((c) => [c, 0]));
      const wants = (c: Contender, runIndex: number) =>
        runIndex < total || (runIndex < warmup + MAX_RUNS && measuredMs.get(c)! < minTimeMs);
      runs: for (let runIndex = 0; ; runIndex++) {
        const round = open.contenders.filter((c) => wants(c, runIndex));
        if (!round.length) break;
        if (runIndex === total) log.info(`--min-time ${minTimeMs / 1000} s: more runs of ${round.map((c) => c.strategy).join(', ')}`);
        for (const contender of round) {
          if (signal.aborted) break runs;
          const id = { strategy: contender.strategy, description: contender.description, cell, params: open.params, run: runIndex, warmup: runIndex < warmup };
          const run = await runOnce(pool, contender, id, Math.max(total, runIndex + 1), open, signal, emit, { steady, connections, startGate: opts.startGate });
          if (!run) break runs;
          if (!run.warmup) measuredMs.set(contender, measuredMs.get(contender)! + run.wallMs);
          const tag = total > 1 ? ` (${run.warmup ? 'warm-up' : 'run'} ${runIndex + 1}/${Math.max(total, runIndex + 1)})` : '';
          if (runFailed(run)) log.error(`${contender.strategy}${tag}: ${run.error ?? run.verification}`);
          emit({ type: 'run', run });
          // Reported: from here on the session keeps what a results file would.
          runs.push(withSampledRecords(run));
          // A contender that fails is not run again to fill its time.
          if (runFailed(run)) measuredMs.set(contender, Infinity);
        }
      }
    } finally {
      pool.close();
      await open.close(signal.aborted);
    }
  }
  return { target, objectSizeBytes, runs, interrupted: signal.aborted };
}

/** One run of one contender; undefined when the stop cut it short (such a run is not recorded). */
async function runOnce(
  pool: WorkerPool, contender: Contender, id: Omit<RunIdentity, 'objectSizeBytes'>, runs: number, open: OpenWorkload, signal: AbortSignal,
  emit: (e: SessionEvent) => void, { steady, connections, startGate }: { steady?: SteadyOptions; connections?: ConnectionMode; startGate?: SessionOptions['startGate'] },
): Promise<MeasuredRun | undefined> {
  // The gate's failure is the session's, not this run's: it is thrown on, not recorded as a failed run.
  let gateFailed: { error: unknown } | undefined;
  let prepared: PreparedRun | undefined;
  let merged: MergedRun | undefined;
  let run: MeasuredRun;
  // Where the wall time outside the timed span goes: setup (plan, fork, payloads, up to the
  // barrier), collect (from the last answer to the merged results), verify and cleanup.
  const began = performance.now();
  let releasedAt = began;
  let verifyMs = 0;
  try {
    prepared = await contender.prepare(id.run);
    const { items, job, objectSizeBytes } = prepared;
    // A process with no item would only cost a fork and its memory: never more processes than items.
    const processes = Math.max(1, Math.min(open.params.processes, items.length));
    const capped = processes < open.params.processes ? ` (--processes ${open.params.processes} capped at one per item)` : '';
    // A listing item is a stream of pages over one prefix: its requests are known only as it goes.
    // A listing plan is listings only.
    const what = items.at(0)?.list ? `${items.length} prefix listing(s), each a stream of pages,` : `${items.length} request(s)`;
    log.verbose(`${contender.strategy}: ${what} over ${processes} process(es) x ${open.params.maxSockets} socket(s)${capped}`);
    const bytes = totalBytes(items);
    const steadyJob = steady ? { durationMs: steady.durationMs, intervalMs: steady.intervalMs } : undefined;
    merged = await pool.run({ ...job, ...(steadyJob ? { steady: steadyJob } : {}), ...(connections === 'warm' ? { connections } : {}) }, items, processes, {
      after: prepared.after,
      autoterm: steady?.autoterm,
      token: open.token,
      signal,
      beforeRelease: startGate && (() => startGate(signal).catch((error: unknown) => {
        gateFailed = { error };
        throw error;
      })),
      onProgress: (done) => emit({ type: 'progress', ...done }),
      onReleased: () => {
        releasedAt = performance.now();
        open.serverClock?.reset();
        emit({ type: 'run-start', strategy: id.strategy, cell: id.cell, run: id.run, runs, warmup: id.warmup, requests: items.length, bytes, ...(steady ? { durationMs: steady.durationMs } : {}) });
      },
    });
    // A steady run has no fixed work to span: the server's clock would time the duration asked for.
    const serverSpanMs = steady ? undefined : open.serverClock?.span();
    const collectedAt = performance.now();
    emit({ type: 'run-end' });
    if (signal.aborted && cancelledByStop(merged)) {
      log.warn(`${contender.strategy}: run ${id.run + 1} was cut short by the stop and is not recorded`);
      await prepared.cleanup(false, merged);
      return undefined;
    }
    const check = await prepared.verify(merged);
    verifyMs = performance.now() - collectedAt;
    const failed = merged.failures.length ? { verified: false, error: merged.failures.join('; ') } : {};
    const plan = steady ? { ...steady, lapBytes: bytes, lapRequests: items.length } : undefined;
    run = { ...measuredRun({ ...id, objectSizeBytes }, merged, { ...check, ...failed }, plan), ...(serverSpanMs === undefined ? {} : { serverSpanMs }) };
    const warm = merged.workers.filter((w) => w.warmSockets !== undefined);
    if (warm.length) run.warmSockets = warm.reduce((a, w) => a + w.warmSockets!, 0);
    // What the workers spent checking (read-backs, range hashes) is verification, not collection.
    const workerVerifyMs = Math.max(0, ...merged.workers.map((w) => w.verifyMs ?? 0));
    run.untimedMs = {
      setup: releasedAt - began,
      collect: Math.max(0, collectedAt - releasedAt - merged.wallMs - workerVerifyMs),
      verify: verifyMs + workerVerifyMs,
      cleanup: 0,
    };
  } catch (err) {
    emit({ type: 'run-end' });
    if (gateFailed) {
      await prepared?.cleanup(false);
      // A stop while waiting at the gate is a stop, not the gate's failure.
      if (signal.aborted) return undefined;
      throw gateFailed.error;
    }
    run = failedRun({ ...id, objectSizeBytes: prepared?.objectSizeBytes ?? open.objectSizeBytes ?? 0 }, (err as Error).message);
  }
  const cleaning = performance.now();
  await prepared?.cleanup(!runFailed(run), merged);
  if (run.untimedMs) run.untimedMs.cleanup = performance.now() - cleaning;
  return run;
}
