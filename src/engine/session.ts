// The one run loop, for downloads, uploads and every cell of a sweep: open the workload (target,
// preflight, fixtures), then run its contenders interleaved run by run (ABCABC, so drift hits all
// alike): prepare -> fork -> barrier -> collect -> verify -> cleanup. A stop is an AbortSignal; what
// happens is told through typed events that reporters and the results writer subscribe to.
import { log } from '../log/logger.js';
import { ToldError } from '../config/errors.js';
import {
  failedRun,
  withSampledRecords,
  type MeasuredRun,
  type RunIdentity,
  type Verification,
} from '../results/record.js';
import { runFailed, type Cell, type RunParams, type Unit } from '../results/schema.js';
import { measuredRun } from './measure.js';
import { RunsUntilTime } from './until-time.js';
import { measuredRunAtMost, RecordBudget } from '../results/record-budget.js';
import { totalBytes, type Items } from '../plan/items.js';
import { WorkerPool, type AfterWorkers, type JobSpec, type MergedRun } from '../workers/pool.js';
import type { Progress } from '../workers/protocol.js';
import type { ServerClockView } from '../metrics/server-clock.js';
import type { OpenLoopOptions, RunOptions, SteadyOptions } from '../config/load.js';
import type { Bearer } from '../storage/entra.js';
import type { ConnectionMode } from '../config/choices.js';
import { StopGrace, type CleanupContext } from './stop-grace.js';

export type { CleanupContext } from './stop-grace.js';

/** One run of one contender, ready to go: the job and items, and what to do with the result. */
export interface PreparedRun {
  job: JobSpec;
  items: Items;
  objectSizeBytes: number;
  /** What it is counted in: its request kind's unit for its plan. */
  unit: Unit;
  /** A timed step after every worker is done (an upload's Put Block List). */
  after?: AfterWorkers;
  verify(merged: MergedRun): Promise<Verification>;
  /**
   * Runs whatever happened: outputs, temporary files, uploaded blobs. `merged` is what the workers
   * sent back, when they did: items cancelled before they started need no cleaning up. After a
   * stop, `ctx.signal` ends it at the stop grace; it resolves true when it said itself what it left.
   */
  cleanup(verified: boolean, merged: MergedRun | undefined, ctx: CleanupContext): Promise<boolean | void>;
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
  /** The target's own clock, where we run the server (the embedded Azurite): each run's server-side span. */
  serverClock?: ServerClockView;
  /** Entra ID: the token runs should carry now, renewed when it expires soon (asked during long runs too). */
  token?: (signal?: AbortSignal) => Promise<Bearer>;
  contenders: Contender[];
  /**
   * Resolves when the target's own process dies unasked (the embedded Azurite, killed by the OOM
   * killer): the line that says so. The session then ends at once, as on a stop, and fails with it.
   */
  lost?: Promise<string>;
  /** Removes what the session made besides its runs' uploads (fixtures, folders), within `ctx`'s grace. */
  close(interrupted: boolean, ctx: CleanupContext): Promise<boolean | void>;
  /** Lets go of the target (stops the embedded Azurite), after close, whether close finished or not. */
  stop(): Promise<void>;
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
   * its measured runs add up to this much time, as hyperfine's --min-time; at most `maxRuns` runs.
   */
  minTimeMs?: number;
  /** The cap on what --min-time adds: at most this many measured runs (MAX_RUNS when unset). */
  maxRuns?: number;
  /**
   * With minTimeMs: a contender also stops once its median is known to this share (0.02: +-2%); 0 or unset:
   * off.
   */
  precision?: number;
  /**
   * --duration: every run repeats its requests for a time, counted per interval (and maybe ended early by
   * --autoterm).
   */
  steady?: SteadyOptions;
  /** warm: each worker opens MAX_SOCKETS connections before the barrier. */
  connections?: ConnectionMode;
  /** --rate: every run is an open loop at this rate. */
  openLoop?: OpenLoopOptions;
  /**
   * Racing (irace's, for a search): asked after each of a contender's measured runs from the
   * RACE_MIN_RUNS-th on; true ends its runs there, because what they show already decides (tune: a
   * cell the rank test already finds significantly slower than the fastest one measured).
   */
  decided?: (strategy: string, measuredMs: readonly number[]) => boolean;
}

/**
 * The fewest measured runs a race may stop at: 3 against 5 is the least the rank test can separate (p =
 * 0.036).
 */
export const RACE_MIN_RUNS = 3;

/**
 * A cell as a run's options say: runs, warm-ups, --min-time, a steady run, warm connections. The
 * CLI and the library (runDownload, runUpload) set a session up through this one function.
 */
export function sessionCell(config: RunOptions, workload: Workload, cell?: Cell): SessionCell {
  return {
    ...(cell ? { cell } : {}),
    workload,
    runs: config.runs,
    warmup: config.warmup,
    minTimeMs: config.minTimeMs,
    maxRuns: config.maxRuns,
    precision: config.precision,
    steady: config.steady,
    connections: config.connections,
    ...(config.openLoop ? { openLoop: config.openLoop } : {}),
  };
}

/** The most measured runs --min-time may ask of one contender when the cell names no cap. */
export const MAX_RUNS = 1000;

export type SessionEvent =
  | { type: 'cell'; index: number; count: number; cell?: Cell; target: string }
  /** `durationMs`: a steady run, which repeats its `requests` (one lap) until then. */
  | {
      type: 'run-start';
      strategy: string;
      unit: Unit;
      cell?: Cell;
      run: number;
      runs: number;
      warmup: boolean;
      requests: number;
      bytes: number;
      durationMs?: number;
    }
  /** `latency`: one worker's histogram of what succeeded since its last progress (live metrics). */
  | ({ type: 'progress'; latency?: string } & Progress)
  | { type: 'run'; run: MeasuredRun }
  | { type: 'run-end' }
  /**
   * An untimed step of a run that may be long (reading back and deleting thousands of uploads):
   * `verify` from the workers' checks to the coordinator's verdict, then `cleanup`; `total` where its
   * items are counted, as `step-progress` tells how far it is.
   */
  | {
      type: 'step';
      step: 'verify' | 'cleanup';
      strategy: string;
      cell?: Cell;
      run: number;
      runs: number;
      warmup: boolean;
    }
  | { type: 'step-progress'; done: number; total: number }
  | { type: 'step-end' };

export interface SessionOptions {
  signal?: AbortSignal;
  onEvent?: (event: SessionEvent) => void;
  /**
   * Awaited before each run's barrier is released, once its workers are forked and ready: a
   * scale-out run waits here for its other clients. A gate that throws ends the session with its error.
   */
  startGate?: (signal: AbortSignal) => Promise<void>;
  /** After a stop, what all cleanup together may take, counted from the stop (DEFAULT_STOP_GRACE_MS). */
  stopGraceMs?: number;
}

export interface SessionOutcome {
  /** The last cell's target, as a label. */
  target: string;
  objectSizeBytes?: number;
  runs: MeasuredRun[];
  /** True when the signal stopped it: `runs` holds what finished before. */
  interrupted: boolean;
}

/**
 * A stop cut the run short: a worker died or was killed, or some request failed or never went because of it.
 */
const cutShortByStop = (merged: MergedRun) => merged.failures.length > 0 || merged.stopped > 0;

export async function runSession(
  cells: readonly SessionCell[],
  opts: SessionOptions = {},
): Promise<SessionOutcome> {
  const signal = opts.signal ?? new AbortController().signal;
  const emit = opts.onEvent ?? (() => {});
  const runs: MeasuredRun[] = [];
  // The raw records of all the runs together stay within one run's worth: memory flat in runs.
  const kept = new RecordBudget(runs, measuredRunAtMost);
  let target = '';
  let objectSizeBytes: number | undefined;
  for (const [cellIndex, cellSpec] of cells.entries()) {
    const {
      cell,
      workload,
      runs: measured,
      warmup,
      minTimeMs = 0,
      maxRuns = MAX_RUNS,
      precision = 0,
      steady,
      connections,
      decided,
    } = cellSpec;
    if (signal.aborted) break;
    if (cell)
      log.info(
        `sweep cell ${cellIndex + 1}/${cells.length}: ${Object.entries(cell)
          .map(([k, v]) => `${k} ${v}`)
          .join(' ')}`,
      );
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
    // The cell stops on the session's stop, or at once when its target dies.
    const cellStop = new AbortController();
    const follow = () => cellStop.abort(signal.reason);
    if (signal.aborted) follow();
    else signal.addEventListener('abort', follow, { once: true });
    let lost: string | undefined;
    const grace = new StopGrace(cellStop.signal, opts.stopGraceMs);
    void open.lost?.then((why) => {
      if (cellStop.signal.aborted) return;
      lost = why;
      log.error(`${why}: ending the session; the runs that finished are kept`);
      // Nothing can be cleaned on a target that is gone: no grace to wait out.
      grace.spend();
      cellStop.abort(new Error(why));
    });
    try {
      const total = warmup + measured;
      // Measured time so far per contender: --min-time keeps the ones short of it going, until
      // --max-runs or, with a precision target, until its median is known well enough.
      const untilTime = new RunsUntilTime(open.contenders, { minTimeMs, maxRuns, precision });
      const raced = (c: Contender) =>
        decided !== undefined &&
        untilTime.times(c).length >= RACE_MIN_RUNS &&
        decided(c.strategy, untilTime.times(c));
      const wants = (c: Contender, runIndex: number) =>
        !raced(c) && (runIndex < total || (runIndex < warmup + maxRuns && untilTime.wantsMore(c)));
      let previous: Contender[] = [];
      runLoop: for (let runIndex = 0; ; runIndex++) {
        const round = open.contenders.filter((c) => wants(c, runIndex));
        for (const c of previous.filter((p) => runIndex > total && !round.includes(p))) {
          log.verbose(`${c.strategy}: ${runIndex - warmup} measured runs (${untilTime.reason(c)})`);
        }
        previous = round;
        if (!round.length) break;
        if (runIndex === total)
          log.info(
            `--min-time ${minTimeMs / 1000} s: more runs of ${round.map((c) => c.strategy).join(', ')}`,
          );
        for (const contender of round) {
          if (cellStop.signal.aborted) break runLoop;
          const id = {
            strategy: contender.strategy,
            description: contender.description,
            cell,
            params: open.params,
            run: runIndex,
            warmup: runIndex < warmup,
          };
          const runs = Math.max(total, runIndex + 1);
          const context = { pool, open, signal: cellStop.signal, grace, emit, runs, steady, connections };
          const run = await runOnce(
            { ...context, startGate: opts.startGate, openLoop: cellSpec.openLoop },
            contender,
            id,
          );
          if (!run) break runLoop;
          if (!run.warmup) untilTime.add(contender, run.wallMs);
          const tag =
            total > 1
              ? ` (${run.warmup ? 'warm-up' : 'run'} ${runIndex + 1}/${Math.max(total, runIndex + 1)})`
              : '';
          if (runFailed(run)) log.error(`${contender.strategy}${tag}: ${run.error ?? run.verification}`);
          emit({ type: 'run', run });
          // Reported: from here on the session keeps what a results file would.
          kept.push(measuredRunAtMost(withSampledRecords(run), kept.room(run.records.length)));
          // A contender that fails is not run again to fill its time.
          if (runFailed(run)) untilTime.done(contender);
        }
      }
    } catch (err) {
      // Whatever failed once the target was gone failed because of it: said when it happened.
      if (lost) throw new ToldError(1, lost);
      throw err;
    } finally {
      signal.removeEventListener('abort', follow);
      pool.close();
      try {
        const what = `the cleanup of what the session made on ${open.target}`;
        await grace.run(what, (ctx) => open.close(cellStop.signal.aborted, ctx));
      } finally {
        await open.stop();
      }
    }
    // Said when it happened: the CLI ends with it, writing what finished.
    if (lost) throw new ToldError(1, lost);
  }
  return { target, objectSizeBytes, runs, interrupted: signal.aborted };
}

/** Which run a step belongs to, as progress names it. */
type StepRun = Omit<Extract<SessionEvent, { type: 'step' }>, 'type' | 'step'>;

/** What every run of a cell shares. */
interface RunContext {
  pool: WorkerPool;
  open: OpenWorkload;
  signal: AbortSignal;
  /** Bounds every cleanup after a stop. */
  grace: StopGrace;
  emit: (e: SessionEvent) => void;
  /** The runs this contender will make, for progress. */
  runs: number;
  steady?: SteadyOptions;
  openLoop?: OpenLoopOptions;
  connections?: ConnectionMode;
  startGate?: SessionOptions['startGate'];
}

/**
 * A run that reached its workers' results: when it was released and collected, what the server's clock said.
 */
interface Executed {
  merged: MergedRun;
  releasedAt: number;
  collectedAt: number;
  serverSpanMs?: number;
}

/** The gate's failure is the session's, not a run's: it is thrown on, not recorded as a failed run. */
class GateFailure {
  readonly error: unknown;
  constructor(error: unknown) {
    this.error = error;
  }
}

/**
 * One run of one contender; undefined when the stop cut it short (such a run is not recorded). Where
 * the wall time outside the timed span goes: setup (plan, fork, payloads, up to the barrier),
 * collect (from the last answer to the merged results), verify and cleanup.
 */
async function runOnce(
  ctx: RunContext,
  contender: Contender,
  id: Omit<RunIdentity, 'objectSizeBytes'>,
): Promise<MeasuredRun | undefined> {
  const began = performance.now();
  const shown = { strategy: id.strategy, cell: id.cell, run: id.run, runs: ctx.runs, warmup: id.warmup };
  let prepared: PreparedRun | undefined;
  let executed: Executed | undefined;
  let check: Verification;
  let verifyMs: number;
  // Cleanup, whatever happened: bounded by the stop grace once a stop has come, and followed by progress.
  const cleanup = async (verified: boolean, merged?: MergedRun) => {
    if (!prepared) return;
    const run = prepared;
    ctx.emit({ type: 'step', step: 'cleanup', ...shown });
    const what = `the cleanup of ${contender.strategy} run ${id.run + 1}`;
    try {
      const progress = (done: number, total: number) => ctx.emit({ type: 'step-progress', done, total });
      await ctx.grace.run(what, (c) => run.cleanup(verified, merged, c), progress);
    } catch (err) {
      // After a stop a cleanup that fails is said, not the session's failure: what finished is kept.
      if (!ctx.signal.aborted) throw err;
      log.warn(`${what} after the stop failed: ${(err as Error).message.split('\n')[0]}`);
    } finally {
      ctx.emit({ type: 'step-end' });
    }
  };
  try {
    prepared = await contender.prepare(id.run);
    executed = await execute(ctx, prepared, id, shown);
    ctx.emit({ type: 'run-end' });
    if (ctx.signal.aborted && cutShortByStop(executed.merged)) {
      log.warn(`${contender.strategy}: run ${id.run + 1} was cut short by the stop and is not recorded`);
      await cleanup(false, executed.merged);
      return undefined;
    }
    ctx.emit({ type: 'step', step: 'verify', ...shown });
    try {
      check = await prepared.verify(executed.merged);
    } finally {
      ctx.emit({ type: 'step-end' });
    }
    verifyMs = performance.now() - executed.collectedAt;
  } catch (err) {
    if (!executed) ctx.emit({ type: 'run-end' });
    if (err instanceof GateFailure) {
      await cleanup(false);
      // A stop while waiting at the gate is a stop, not the gate's failure.
      if (ctx.signal.aborted) return undefined;
      throw err.error;
    }
    // A run that failed once the stop had come (its target gone, its requests cancelled) was cut
    // short by it: left out, as a run the stop cut is.
    if (ctx.signal.aborted) {
      log.warn(`${contender.strategy}: run ${id.run + 1} was cut short by the stop and is not recorded`);
      await cleanup(false, executed?.merged);
      return undefined;
    }
    const run = failedRun(
      {
        ...id,
        ...(prepared ? { unit: prepared.unit } : {}),
        objectSizeBytes: prepared?.objectSizeBytes ?? ctx.open.objectSizeBytes ?? 0,
      },
      (err as Error).message,
    );
    await cleanup(false, executed?.merged);
    return run;
  }
  const { merged, releasedAt, collectedAt, serverSpanMs } = executed;
  const failed = merged.failures.length ? { verified: false, error: merged.failures.join('; ') } : {};
  const verified = !runFailed({ ...check, ...failed });
  const cleaning = performance.now();
  await cleanup(verified, merged);
  // What the workers spent checking (read-backs, range hashes) is verification, not collection.
  const workerVerifyMs = Math.max(0, ...merged.workers.map((w) => w.verifyMs ?? 0));
  const untimedMs = {
    setup: releasedAt - began,
    collect: Math.max(0, collectedAt - releasedAt - merged.wallMs - workerVerifyMs),
    verify: verifyMs + workerVerifyMs,
    cleanup: performance.now() - cleaning,
  };
  const { items } = prepared;
  const plan = ctx.steady
    ? { ...ctx.steady, lapBytes: totalBytes(items), lapRequests: items.length }
    : undefined;
  return measuredRun(
    { ...id, unit: prepared.unit, objectSizeBytes: prepared.objectSizeBytes },
    merged,
    { ...check, ...failed },
    { plan, serverSpanMs, untimedMs, hedged: prepared.job.hedge !== undefined },
  );
}

/** Fork (or reuse) the workers, release them on the barrier, and collect what they send. */
async function execute(
  ctx: RunContext,
  prepared: PreparedRun,
  id: Omit<RunIdentity, 'objectSizeBytes'>,
  shown: StepRun,
): Promise<Executed> {
  const { open, signal, steady, connections, startGate, emit } = ctx;
  const { items, job } = prepared;
  // A process with no item would only cost a fork and its memory: never more processes than items.
  const processes = Math.max(1, Math.min(open.params.processes, items.length));
  const capped =
    processes < open.params.processes ? ` (--processes ${open.params.processes} capped at one per item)` : '';
  // A listing item is a stream of pages over one prefix: its requests are known only as it goes.
  // A listing plan is listings only.
  const what = items.at(0)?.list
    ? `${items.length} prefix listing(s), each a stream of pages,`
    : `${items.length} request(s)`;
  log.verbose(
    `${id.strategy}: ${what} over ${processes} process(es) x ${open.params.maxSockets} socket(s)${capped}`,
  );
  const bytes = totalBytes(items);
  const steadyJob = steady ? { durationMs: steady.durationMs, intervalMs: steady.intervalMs } : undefined;
  // The server's clock forgets what it saw before this run's release, and the release waits until it
  // has: no request of this run can come first. Asked as the workers are given their job (they make
  // no data request before the barrier: warm connections are HEADs), the answer is in by the time
  // they are ready; behind a scale-out gate, which talks to storage itself, only once it is passed.
  const clock = steady ? undefined : open.serverClock;
  const reset = startGate ? undefined : clock?.reset();
  reset?.catch(() => {});
  const beforeRelease =
    startGate || clock
      ? async () => {
          if (startGate) {
            await startGate(signal).catch((error: unknown) => {
              throw new GateFailure(error);
            });
          }
          await (reset ?? clock?.reset());
        }
      : undefined;
  let releasedAt = performance.now();
  // --max-in-flight defaults to every socket the closed loop would use: MAX_SOCKETS per process.
  const openLoop = ctx.openLoop
    ? { ...ctx.openLoop, maxInFlight: ctx.openLoop.maxInFlight ?? processes * open.params.maxSockets }
    : undefined;
  const merged = await ctx.pool.run(
    {
      ...job,
      ...(steadyJob ? { steady: steadyJob } : {}),
      ...(openLoop ? { openLoop } : {}),
      ...(connections === 'warm' ? { connections } : {}),
    },
    items,
    processes,
    {
      after: prepared.after,
      autoterm: steady?.autoterm,
      token: open.token,
      signal,
      beforeRelease,
      onProgress: (done, latency) => emit({ type: 'progress', ...done, ...(latency ? { latency } : {}) }),
      // The workers' checks (reading uploads back, hashing ranges) are the verify step's first part.
      onChecking: () => emit({ type: 'step', step: 'verify', ...shown }),
      onReleased: () => {
        releasedAt = performance.now();
        emit({
          type: 'run-start',
          strategy: id.strategy,
          unit: prepared.unit,
          cell: id.cell,
          run: id.run,
          runs: ctx.runs,
          warmup: id.warmup,
          requests: items.length,
          bytes,
          ...(steady ? { durationMs: steady.durationMs } : {}),
        });
      },
    },
  );
  // Asked before anything else reaches the server (verification, cleanup). A steady run has no fixed
  // work to span: the server's clock would time the duration asked for.
  const serverSpanMs = await clock?.span();
  return { merged, releasedAt, collectedAt: performance.now(), serverSpanMs };
}
