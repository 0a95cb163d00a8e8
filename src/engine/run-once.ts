// One run of one contender, within its cell: prepare, fork and release the workers on the barrier,
// collect, verify, clean up; a run the stop cut short is left out, a failed one recorded as failed.
import { log } from '../log/logger.js';
import { failedRun, type MeasuredRun, type RunIdentity, type Verification } from '../results/record.js';
import { runFailed } from '../results/schema.js';
import { measuredRun } from './measure.js';
import { totalBytes } from '../plan/items.js';
import type { MergedRun, WorkerPool } from '../workers/pool.js';
import type { ServerClockView } from '../metrics/server-clock.js';
import type { OpenLoopOptions, SteadyOptions } from '../config/load.js';
import type { TrainOptions } from '../config/train-options.js';
import type { ConnectionMode } from '../vocabulary/choices.js';
import type { StopGrace } from './stop-grace.js';
import type { Contender, OpenWorkload, PreparedRun, SessionEvent, SessionOptions } from './session-types.js';

/**
 * A stop cut the run short: a worker died or was killed, or some request failed or never went because of it.
 */
const cutShortByStop = (merged: MergedRun) => merged.failures.length > 0 || merged.stopped > 0;
/** Which run a step belongs to, as progress names it. */
type StepRun = Omit<Extract<SessionEvent, { type: 'step' }>, 'type' | 'step'>;

/** What every run of a cell shares. */
export interface RunContext {
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
  train?: TrainOptions;
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
export async function runOnce(
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
  const cleanup = (verified: boolean, merged?: MergedRun) =>
    prepared ? cleanupRun(ctx, prepared, shown, verified, merged) : Promise.resolve();
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
    return failedAttempt(ctx, err, { id, prepared, executed, cleanup });
  }
  const { merged } = executed;
  const failed = merged.failures.length ? { verified: false, error: merged.failures.join('; ') } : {};
  const verified = !runFailed({ ...check, ...failed });
  const cleaning = performance.now();
  await cleanup(verified, merged);
  const measured = measuredRun(
    { ...id, unit: prepared.unit, objectSizeBytes: prepared.objectSizeBytes },
    merged,
    { ...check, ...failed },
    {
      plan: ctx.steady
        ? { ...ctx.steady, lapBytes: totalBytes(prepared.items), lapRequests: prepared.items.length }
        : undefined,
      serverSpanMs: executed.serverSpanMs,
      untimedMs: untimedMs(executed, began, verifyMs, cleaning),
      hedged: prepared.job.hedge !== undefined,
    },
  );
  return prepared.annex ? { ...measured, ...prepared.annex() } : measured;
}

/**
 * Where the wall time outside the timed span went: setup (plan, fork, payloads, up to the barrier),
 * collect (from the last answer to the merged results), verify and cleanup.
 */
function untimedMs(
  { merged, releasedAt, collectedAt }: Executed,
  began: number,
  verifyMs: number,
  cleaning: number,
) {
  // What the workers spent checking (read-backs, range hashes) is verification, not collection.
  const workerVerifyMs = Math.max(0, ...merged.workers.map((w) => w.verifyMs ?? 0));
  return {
    setup: releasedAt - began,
    collect: Math.max(0, collectedAt - releasedAt - merged.wallMs - workerVerifyMs),
    verify: verifyMs + workerVerifyMs,
    cleanup: performance.now() - cleaning,
  };
}

/** Cleanup, whatever happened: bounded by the stop grace once a stop has come, and followed by progress. */
async function cleanupRun(
  ctx: RunContext,
  run: PreparedRun,
  shown: StepRun,
  verified: boolean,
  merged?: MergedRun,
): Promise<void> {
  ctx.emit({ type: 'step', step: 'cleanup', ...shown });
  const what = `the cleanup of ${shown.strategy} run ${shown.run + 1}`;
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
}

/**
 * A run that threw: the gate's failure is the session's; after a stop the run is left out; otherwise it
 * is recorded as failed.
 */
async function failedAttempt(
  ctx: RunContext,
  err: unknown,
  at: {
    id: Omit<RunIdentity, 'objectSizeBytes'>;
    prepared?: PreparedRun;
    executed?: Executed;
    cleanup: (verified: boolean, merged?: MergedRun) => Promise<void>;
  },
): Promise<MeasuredRun | undefined> {
  const { id, prepared, executed, cleanup } = at;
  if (err instanceof GateFailure) {
    await cleanup(false);
    // A stop while waiting at the gate is a stop, not the gate's failure.
    if (ctx.signal.aborted) return undefined;
    throw err.error;
  }
  // A run that failed once the stop had come (its target gone, its requests cancelled) was cut
  // short by it: left out, as a run the stop cut is.
  if (ctx.signal.aborted) {
    log.warn(`${id.strategy}: run ${id.run + 1} was cut short by the stop and is not recorded`);
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

/** One verbose line: the run's requests over its processes and sockets. */
function sayShape(
  strategy: string,
  items: PreparedRun['items'],
  processes: number,
  params: { processes: number; maxSockets: number },
): void {
  const capped =
    processes < params.processes ? ` (--processes ${params.processes} capped at one per item)` : '';
  // A listing item is a stream of pages over one prefix: its requests are known only as it goes.
  // A listing plan is listings only.
  const what = items.at(0)?.list
    ? `${items.length} prefix listing(s), each a stream of pages,`
    : `${items.length} request(s)`;
  log.verbose(`${strategy}: ${what} over ${processes} process(es) x ${params.maxSockets} socket(s)${capped}`);
}

/** Fork (or reuse) the workers, release them on the barrier, and collect what they send. */
async function execute(
  ctx: RunContext,
  prepared: PreparedRun,
  id: Omit<RunIdentity, 'objectSizeBytes'>,
  shown: StepRun,
): Promise<Executed> {
  const { open, signal, steady, connections, emit } = ctx;
  const { items, job } = prepared;
  // A process with no item would only cost a fork and its memory: never more processes than items.
  const processes = Math.max(1, Math.min(open.params.processes, items.length));
  sayShape(id.strategy, items, processes, open.params);
  const bytes = totalBytes(items);
  const steadyJob = steady ? { durationMs: steady.durationMs, intervalMs: steady.intervalMs } : undefined;
  const { clock, beforeRelease } = releaseGate(ctx);
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
      ...(ctx.train ? { train: ctx.train } : {}),
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

/**
 * What the release waits for: a scale-out gate, and the server's clock forgetting what it saw before
 * this run's release, so that no request of this run can come first. Asked as the workers are given
 * their job (they make no data request before the barrier: warm connections are HEADs), the answer
 * is in by the time they are ready; behind a scale-out gate, which talks to storage itself, only
 * once it is passed. A steady run has no clock: it would time the duration asked for.
 */
function releaseGate(ctx: RunContext): { clock?: ServerClockView; beforeRelease?: () => Promise<void> } {
  const { startGate, signal } = ctx;
  const clock = ctx.steady ? undefined : ctx.open.serverClock;
  const reset = startGate ? undefined : clock?.reset();
  reset?.catch(() => {});
  if (!startGate && !clock) return { clock };
  return {
    clock,
    beforeRelease: async () => {
      if (startGate) {
        await startGate(signal).catch((error: unknown) => {
          throw new GateFailure(error);
        });
      }
      await (reset ?? clock?.reset());
    },
  };
}
