// The one run loop, for downloads, uploads and every cell of a sweep: open the workload (target,
// preflight, fixtures), then run its contenders interleaved run by run (ABCABC, so drift hits all
// alike): prepare -> fork -> barrier -> collect -> verify -> cleanup. A stop is an AbortSignal; what
// happens is told through typed events that reporters and the results writer subscribe to.
import { log } from '../log/logger.js';
import { ToldError } from '../vocabulary/errors.js';
import { withSampledRecords, type MeasuredRun } from '../results/record.js';
import { runFailed, type Cell } from '../results/schema.js';
import { RunsUntilTime } from './until-time.js';
import { measuredRunAtMost, RecordBudget } from '../results/record-budget.js';
import { WorkerPool } from '../workers/pool.js';
import type { RunOptions } from '../config/load.js';
import { StopGrace } from './stop-grace.js';
import { runOnce, type RunContext } from './run-once.js';
import type {
  CellSetup,
  Contender,
  OpenWorkload,
  SessionCell,
  SessionEvent,
  SessionOptions,
} from './session-types.js';

export type {
  CellSetup,
  Contender,
  OpenWorkload,
  PreparedRun,
  SessionCell,
  SessionEvent,
  SessionOptions,
} from './session-types.js';
export type { CleanupContext } from './stop-grace.js';

/**
 * The fewest measured runs a race may stop at: 3 against 5 is the least the rank test can separate (p =
 * 0.036).
 */
export const RACE_MIN_RUNS = 3;

/**
 * A cell as a run's options say: runs, warm-ups, --min-time, a steady run, warm connections. The
 * CLI and the library (runDownload, runUpload) set a session up through this one function.
 */
export function sessionCell(config: RunOptions, setup: CellSetup, cell?: Cell): SessionCell {
  return {
    ...(cell ? { cell } : {}),
    setup,
    runs: config.runs,
    warmup: config.warmup,
    minTimeMs: config.minTimeMs,
    maxRuns: config.maxRuns,
    precision: config.precision,
    steady: config.steady,
    connections: config.connections,
    ...(config.openLoop ? { openLoop: config.openLoop } : {}),
    ...(config.train ? { train: config.train } : {}),
  };
}

/** The most measured runs --min-time may ask of one contender when the cell names no cap. */
export const MAX_RUNS = 1000;

export interface SessionOutcome {
  /** The last cell's target, as a label. */
  target: string;
  objectSizeBytes?: number;
  runs: MeasuredRun[];
  /** True when the signal stopped it: `runs` holds what finished before. */
  interrupted: boolean;
}

export async function runSession(
  cells: readonly SessionCell[],
  opts: SessionOptions = {},
): Promise<SessionOutcome> {
  const signal = opts.signal ?? new AbortController().signal;
  const runs: MeasuredRun[] = [];
  const session: SessionContext = {
    signal,
    emit: opts.onEvent ?? (() => {}),
    // The raw records of all the runs together stay within one run's worth: memory flat in runs.
    kept: new RecordBudget(runs, measuredRunAtMost),
    opts,
  };
  let target = '';
  let objectSizeBytes: number | undefined;
  for (const [index, cellSpec] of cells.entries()) {
    if (signal.aborted) break;
    if (cellSpec.cell)
      log.info(
        `sweep cell ${index + 1}/${cells.length}: ${Object.entries(cellSpec.cell)
          .map(([k, v]) => `${k} ${v}`)
          .join(' ')}`,
      );
    const open = await runCell(session, cellSpec, index, cells.length);
    target = open.target;
    objectSizeBytes = open.objectSizeBytes;
  }
  return { target, objectSizeBytes, runs, interrupted: signal.aborted };
}

/** What every cell of a session shares. */
interface SessionContext {
  signal: AbortSignal;
  emit: (e: SessionEvent) => void;
  /** The runs reported so far, as a results file would keep them. */
  kept: RecordBudget<MeasuredRun>;
  opts: SessionOptions;
}

/** One cell: open its workload, run its contenders, and let go of what it made, whatever happened. */
async function runCell(
  session: SessionContext,
  cellSpec: SessionCell,
  index: number,
  count: number,
): Promise<OpenWorkload> {
  const { signal, emit } = session;
  // One pool per cell: its processes stay warm across the cell's runs and contenders.
  const pool = new WorkerPool();
  // Every run needs a first worker: its start overlaps opening the target (preflight, fixtures).
  // The others wait until the run's items are known: never more processes than items.
  pool.prefork(1);
  let open: OpenWorkload;
  try {
    open = await cellSpec.setup.open(signal);
  } catch (err) {
    pool.close();
    throw err;
  }
  emit({ type: 'cell', index, count, cell: cellSpec.cell, target: open.target });
  const stop = cellStopOf(signal, open, session.opts.stopGraceMs);
  const { grace } = stop;
  try {
    const { steady, connections } = cellSpec;
    const ctx = { pool, open, signal: stop.signal, grace, emit, runs: 0, steady, connections };
    await runRounds(session, cellSpec, {
      ...ctx,
      startGate: session.opts.startGate,
      openLoop: cellSpec.openLoop,
      train: cellSpec.train,
    });
  } catch (err) {
    // Whatever failed once the target was gone failed because of it: said when it happened.
    if (stop.lost) throw new ToldError(1, stop.lost);
    throw err;
  } finally {
    stop.release();
    pool.close();
    try {
      const what = `the cleanup of what the session made on ${open.target}`;
      await grace.run(what, (ctx) => open.close(stop.signal.aborted, ctx));
    } finally {
      await open.stop();
    }
  }
  // Said when it happened: the CLI ends with it, writing what finished.
  if (stop.lost) throw new ToldError(1, stop.lost);
  return open;
}

/** A cell's stop: its signal, its cleanup's grace, and why its target was lost (where it was). */
interface CellStop {
  signal: AbortSignal;
  grace: StopGrace;
  lost?: string;
  /** Stops following the session's signal. */
  release(): void;
}

/** The cell stops on the session's stop, or at once when its target dies. */
function cellStopOf(signal: AbortSignal, open: OpenWorkload, stopGraceMs: number | undefined): CellStop {
  const cellStop = new AbortController();
  const follow = () => cellStop.abort(signal.reason);
  if (signal.aborted) follow();
  else signal.addEventListener('abort', follow, { once: true });
  const grace = new StopGrace(cellStop.signal, stopGraceMs);
  const stop: CellStop = {
    signal: cellStop.signal,
    grace,
    release: () => signal.removeEventListener('abort', follow),
  };
  void open.lost?.then((why) => {
    if (cellStop.signal.aborted) return;
    stop.lost = why;
    log.error(`${why}: ending the session; the runs that finished are kept`);
    // Nothing can be cleaned on a target that is gone: no grace to wait out.
    grace.spend();
    cellStop.abort(new Error(why));
  });
  return stop;
}

/**
 * A cell's runs, interleaved: each round runs every contender that still wants a run. Past the
 * runs asked for, --min-time keeps the ones short of it going, until --max-runs or, with a
 * precision target, until its median is known well enough; a race ends a decided one early.
 */
async function runRounds(session: SessionContext, cellSpec: SessionCell, context: RunContext): Promise<void> {
  const {
    cell,
    runs: measured,
    warmup,
    minTimeMs = 0,
    maxRuns = MAX_RUNS,
    precision = 0,
    decided,
  } = cellSpec;
  const { open } = context;
  const total = warmup + measured;
  const untilTime = new RunsUntilTime(open.contenders, { minTimeMs, maxRuns, precision });
  const raced = (c: Contender) =>
    decided !== undefined &&
    untilTime.times(c).length >= RACE_MIN_RUNS &&
    decided(c.strategy, untilTime.times(c));
  const wants = (c: Contender, runIndex: number) =>
    !raced(c) && (runIndex < total || (runIndex < warmup + maxRuns && untilTime.wantsMore(c)));
  let previous: Contender[] = [];
  for (let runIndex = 0; ; runIndex++) {
    const round = open.contenders.filter((c) => wants(c, runIndex));
    for (const c of previous.filter((p) => runIndex > total && !round.includes(p))) {
      log.verbose(`${c.strategy}: ${runIndex - warmup} measured runs (${untilTime.reason(c)})`);
    }
    previous = round;
    if (!round.length) return;
    if (runIndex === total)
      log.info(`--min-time ${minTimeMs / 1000} s: more runs of ${round.map((c) => c.strategy).join(', ')}`);
    for (const contender of round) {
      if (context.signal.aborted) return;
      const id = {
        strategy: contender.strategy,
        description: contender.description,
        cell,
        params: open.params,
        run: runIndex,
        warmup: runIndex < warmup,
      };
      const runs = Math.max(total, runIndex + 1);
      const run = await runOnce({ ...context, runs }, contender, id);
      if (!run) return;
      if (!run.warmup) untilTime.add(contender, run.wallMs);
      const tag = total > 1 ? ` (${run.warmup ? 'warm-up' : 'run'} ${runIndex + 1}/${runs})` : '';
      if (runFailed(run)) log.error(`${contender.strategy}${tag}: ${run.error ?? run.verification}`);
      session.emit({ type: 'run', run });
      // Reported: from here on the session keeps what a results file would.
      session.kept.push(measuredRunAtMost(withSampledRecords(run), session.kept.room(run.records.length)));
      // A contender that fails is not run again to fill its time.
      if (runFailed(run)) untilTime.done(contender);
    }
  }
}
