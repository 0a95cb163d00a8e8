// Progress while a session runs, as a listener of its events: a live bar on a terminal, or, when
// stderr is not one (Docker and Kubernetes logs, `| cat`), a plain line every few seconds. The
// untimed steps after a run (reading back and deleting thousands of uploads) are followed alike.
import { cellLabel } from '../results/label.js';
import type { SessionEvent } from '../engine/session.js';
import type { Progress } from '../workers/protocol.js';
import { forTerminal } from './safe-text.js';

export interface ProgressView {
  onEvent(event: SessionEvent): void;
  close(): void;
}

type RunStart = Extract<SessionEvent, { type: 'run-start' }>;
type StepStart = Extract<SessionEvent, { type: 'step' }>;

const MiB = 1024 * 1024;
/**
 * The run's own unit, from its request kind: MiB/s for an object, ops/s for many files, listings and HEADs.
 */
const byBytes = (e: RunStart) => e.unit === 'MiB/s';

function rate(e: RunStart, done: Progress, seconds: number): string {
  if (seconds <= 0) return '';
  return byBytes(e)
    ? `${(done.bytes / MiB / seconds).toFixed(1)} MiB/s`
    : `${(done.ops / seconds).toFixed(0)} ops/s`;
}

/** Which of a contender's runs: `run 3/5`, or `warm-up 1/1`. */
const runText = (run: RunStart) => `${run.warmup ? 'warm-up' : 'run'} ${run.run + 1}/${run.runs}`;

const NONE: ProgressView = { onEvent: () => {}, close: () => {} };
/** A step shorter than this gets no bar on a terminal. */
const STEP_BAR_AFTER_MS = 1_000;

/**
 * A live bar on a terminal; elsewhere periodic lines, unless `lines` is off (a quiet log level).
 */
export async function showProgress(
  opts: { stream?: NodeJS.WriteStream; intervalMs?: number; lines?: boolean } = {},
): Promise<ProgressView> {
  const stream = opts.stream ?? process.stderr;
  if (stream.isTTY) return progressBar(stream);
  return opts.lines === false ? NONE : progressLines(stream, opts.intervalMs ?? 5_000);
}

/** How far a step is: its items done of total, once it has counted them. */
interface StepDone {
  done: number;
  total: number;
}

/** What a view does with one run or step at a time: start it, show progress, end it. */
interface RunView {
  start(run: RunStart): void;
  update(run: RunStart, done: Progress, seconds: number): void;
  startStep(step: StepStart): void;
  updateStep(step: StepStart, done: StepDone, seconds: number): void;
  end(): void;
}

/** A step's name and run, as its lines start: `small-files run 2/3: cleanup`. */
const stepLabel = (s: StepStart) =>
  `${cellLabel(s.strategy, s.cell)} ${s.warmup ? 'warm-up' : 'run'} ${s.run + 1}/${s.runs}: ${s.step}`;

/** Follows the session's events for a view: one run (release to end) or untimed step at a time. */
function follow(view: RunView): ProgressView {
  let shown: { run: RunStart } | { step: StepStart } | undefined;
  let started = 0;
  const end = () => {
    if (shown) view.end();
    shown = undefined;
  };
  const seconds = () => (performance.now() - started) / 1000;
  return {
    onEvent(e) {
      if (e.type === 'run-start' || e.type === 'step') {
        end();
        started = performance.now();
        if (e.type === 'run-start') {
          shown = { run: e };
          view.start(e);
        } else {
          shown = { step: e };
          view.startStep(e);
        }
      } else if (e.type === 'progress' && shown && 'run' in shown) {
        view.update(shown.run, e, seconds());
      } else if (e.type === 'step-progress' && shown && 'step' in shown) {
        view.updateStep(shown.step, e, seconds());
      } else if (e.type === 'run-end' || e.type === 'step-end') {
        end();
      }
    },
    close: end,
  };
}

/** One plain line per interval while a run is going: done/total, rate, errors, retries. */
export function progressLines(stream: NodeJS.WritableStream, intervalMs: number): ProgressView {
  const zero: Progress = { ops: 0, bytes: 0, errors: 0, retries: 0 };
  let current: { run: RunStart; started: number; last: Progress } | undefined;
  let step: { step: StepStart; started: number; done?: StepDone } | undefined;
  let timer: NodeJS.Timeout | undefined;
  const every = (line: () => void) => {
    timer = setInterval(line, intervalMs);
    timer.unref();
  };
  // A step says how far it is once it has counted its items; until then, that it is still going.
  const stepLine = () => {
    if (!step) return;
    const s = (performance.now() - step.started) / 1000;
    const done = step.done ? ` ${step.done.done}/${step.done.total}` : '';
    stream.write(`progress: ${stepLabel(step.step)}${done}, ${s.toFixed(0)} s\n`);
  };
  const line = () => {
    if (!current) return;
    const { run, started, last } = current;
    const s = (performance.now() - started) / 1000;
    const phase = `${run.warmup ? 'warm-up' : 'run'} ${run.run + 1}/${run.runs}`;
    // A steady run repeats its requests until its duration: its progress is time, not a count.
    const done = run.durationMs
      ? `${last.ops} requests, ${s.toFixed(0)}/${(run.durationMs / 1000).toFixed(0)} s`
      : `${last.ops}/${run.requests} requests`;
    stream.write(
      `progress: ${forTerminal(cellLabel(run.strategy, run.cell))} ${phase}: ${done}, ` +
        `${rate(run, last, s)}, errors ${last.errors}, retries ${last.retries}, ${s.toFixed(0)} s\n`,
    );
  };
  return follow({
    start(run) {
      current = { run, started: performance.now(), last: zero };
      every(line);
    },
    update(_run, done) {
      if (current) current.last = done;
    },
    startStep(s) {
      step = { step: s, started: performance.now() };
      every(stepLine);
    },
    updateStep(_s, done) {
      if (step) step.done = { done: done.done, total: done.total };
    },
    end() {
      clearInterval(timer);
      current = undefined;
      step = undefined;
    },
  });
}

async function progressBar(stream: NodeJS.WriteStream): Promise<ProgressView> {
  const { default: cliProgress } = await import('cli-progress');
  const bar = new cliProgress.SingleBar(
    {
      stream,
      format: '{label} [{bar}] {percentage}% | {done} | {rate}',
      barsize: 24,
      hideCursor: true,
      clearOnComplete: true,
      fps: 8,
    },
    cliProgress.Presets.shades_classic,
  );
  let stepBar: NodeJS.Timeout | undefined;
  let stepDone: { done: StepDone; seconds: number } | undefined;
  // Before its bar starts, a step's updates are kept (a bar not started takes none).
  const showStep = (done: StepDone, seconds: number) => {
    bar.setTotal(Math.max(1, done.total));
    bar.update(done.done, { done: `${done.done}/${done.total}`, rate: `${seconds.toFixed(0)} s` });
  };
  return follow({
    // A steady run's bar fills with time (tenths of a second), a fixed run's with requests.
    // Which contender and which of its runs: `chunked run 3/5` (or `warm-up 1/1`).
    start: (run) =>
      bar.start(run.durationMs ? Math.ceil(run.durationMs / 100) : run.requests, 0, {
        label: `${forTerminal(cellLabel(run.strategy, run.cell))} ${runText(run)}`.padEnd(24),
        rate: '',
        done: '',
      }),
    update: (run, done, seconds) =>
      bar.update(
        run.durationMs ? Math.min(Math.floor(seconds * 10), Math.ceil(run.durationMs / 100)) : done.ops,
        {
          rate: rate(run, done, seconds),
          done: run.durationMs
            ? `${done.ops} requests, ${seconds.toFixed(0)}/${(run.durationMs / 1000).toFixed(0)} s`
            : `${done.ops}/${run.requests} requests`,
        },
      ),
    // A step gets a bar once it has taken a second (most take milliseconds: no flicker between
    // runs); it fills once the step has counted its items, its time showing until then.
    startStep: (step) => {
      stepBar = setTimeout(() => {
        bar.start(1, 0, { label: stepLabel(step).padEnd(24), rate: '', done: '' });
        if (stepDone) showStep(stepDone.done, stepDone.seconds);
      }, STEP_BAR_AFTER_MS);
      stepBar.unref();
    },
    updateStep: (_step, done, seconds) => {
      stepDone = { done, seconds };
      showStep(done, seconds);
    },
    end: () => {
      clearTimeout(stepBar);
      stepDone = undefined;
      bar.stop();
    },
  });
}
