// The session's vocabulary: a run prepared for its workers, a contender, a cell's open workload
// and its set-up, a cell's settings, and the events and options of a session.
import type { Verification } from '../results/record.js';
import type { Cell, RunParams, Unit } from '../results/schema.js';
import type { Items } from '../plan/items.js';
import type { AfterWorkers, JobSpec, MergedRun } from '../workers/pool.js';
import type { Progress } from '../workers/protocol.js';
import type { ServerClockView } from '../metrics/server-clock.js';
import type { OpenLoopOptions, SteadyOptions } from '../config/load.js';
import type { TrainOptions } from '../config/train-options.js';
import type { Bearer } from '../storage/entra.js';
import type { ConnectionMode } from '../vocabulary/choices.js';
import type { CleanupContext } from './stop-grace.js';
import type { MeasuredRun } from '../results/record.js';

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
  /** Facts of its own the workload adds to the run once verified (a checkpoint's ranks and read-back). */
  annex?(): Pick<MeasuredRun, 'checkpoint'>;
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

/** What a cell opens before its runs: the target, its preflight, and fixtures or the upload store. */
export interface CellSetup {
  open(signal: AbortSignal): Promise<OpenWorkload>;
}

/** One cell of a session: a plain run has one, a sweep one per combination of swept values. */
export interface SessionCell {
  cell?: Cell;
  setup: CellSetup;
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
  /** `train`: every run is epochs of shuffled batches behind a simulated accelerator. */
  train?: TrainOptions;
  /**
   * Racing (irace's, for a search): asked after each of a contender's measured runs from the
   * RACE_MIN_RUNS-th on; true ends its runs there, because what they show already decides (tune: a
   * cell the rank test already finds significantly slower than the fastest one measured).
   */
  decided?: (strategy: string, measuredMs: readonly number[]) => boolean;
}

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
