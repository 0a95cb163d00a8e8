// Progress while a session runs, as a listener of its events: a live bar on a terminal, or, when
// stderr is not one (Docker and Kubernetes logs, `| cat`), a plain line every few seconds.
import { cellLabel } from '../results/label.js';
import type { SessionEvent } from '../engine/session.js';
import type { Progress } from '../workers/protocol.js';
import { forTerminal } from './safe-text.js';

export interface ProgressView {
  onEvent(event: SessionEvent): void;
  close(): void;
}

type RunStart = Extract<SessionEvent, { type: 'run-start' }>;

const MiB = 1024 * 1024;
/** The run's own unit, from its request kind: MiB/s for an object, ops/s for many files, listings and HEADs. */
const byBytes = (e: RunStart) => e.unit === 'MiB/s';

function rate(e: RunStart, done: Progress, seconds: number): string {
  if (seconds <= 0) return '';
  return byBytes(e) ? `${(done.bytes / MiB / seconds).toFixed(1)} MiB/s` : `${(done.ops / seconds).toFixed(0)} ops/s`;
}

const NONE: ProgressView = { onEvent: () => {}, close: () => {} };

/**
 * A live bar on a terminal; elsewhere periodic lines, unless `lines` is off (a quiet log level).
 */
export async function showProgress(opts: { stream?: NodeJS.WriteStream; intervalMs?: number; lines?: boolean } = {}): Promise<ProgressView> {
  const stream = opts.stream ?? process.stderr;
  if (stream.isTTY) return progressBar(stream);
  return opts.lines === false ? NONE : progressLines(stream, opts.intervalMs ?? 5_000);
}

/** What a view does with one run: start it, show progress, end it. */
interface RunView {
  start(run: RunStart): void;
  update(run: RunStart, done: Progress, seconds: number): void;
  end(): void;
}

/** Follows the session's events for a view: one run at a time, from its release to its end. */
function follow(view: RunView): ProgressView {
  let run: RunStart | undefined;
  let started = 0;
  const end = () => {
    if (run) view.end();
    run = undefined;
  };
  return {
    onEvent(e) {
      if (e.type === 'run-start') {
        end();
        run = e;
        started = performance.now();
        view.start(e);
      } else if (e.type === 'progress' && run) {
        view.update(run, e, (performance.now() - started) / 1000);
      } else if (e.type === 'run-end') {
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
  let timer: NodeJS.Timeout | undefined;
  const line = () => {
    if (!current) return;
    const { run, started, last } = current;
    const s = (performance.now() - started) / 1000;
    const phase = `${run.warmup ? 'warm-up' : 'run'} ${run.run + 1}/${run.runs}`;
    // A steady run repeats its requests until its duration: its progress is time, not a count.
    const done = run.durationMs ? `${last.ops} requests, ${s.toFixed(0)}/${(run.durationMs / 1000).toFixed(0)} s` : `${last.ops}/${run.requests} requests`;
    stream.write(`progress: ${forTerminal(cellLabel(run.strategy, run.cell))} ${phase}: ${done}, ${rate(run, last, s)}, errors ${last.errors}, retries ${last.retries}, ${s.toFixed(0)} s\n`);
  };
  return follow({
    start(run) {
      current = { run, started: performance.now(), last: zero };
      timer = setInterval(line, intervalMs);
      timer.unref();
    },
    update(_run, done) {
      if (current) current.last = done;
    },
    end() {
      clearInterval(timer);
      current = undefined;
    },
  });
}

async function progressBar(stream: NodeJS.WriteStream): Promise<ProgressView> {
  const { default: cliProgress } = await import('cli-progress');
  const bar = new cliProgress.SingleBar({
    stream,
    format: '{label} [{bar}] {percentage}% | {done} | {rate}',
    barsize: 24,
    hideCursor: true,
    clearOnComplete: true,
    fps: 8,
  }, cliProgress.Presets.shades_classic);
  return follow({
    // A steady run's bar fills with time (tenths of a second), a fixed run's with requests.
    // Which contender and which of its runs: `chunked run 3/5` (or `warm-up 1/1`).
    start: (run) => bar.start(run.durationMs ? Math.ceil(run.durationMs / 100) : run.requests, 0, {
      label: `${forTerminal(cellLabel(run.strategy, run.cell))} ${run.warmup ? 'warm-up' : 'run'} ${run.run + 1}/${run.runs}`.padEnd(24), rate: '', done: '',
    }),
    update: (run, done, seconds) => bar.update(run.durationMs ? Math.min(Math.floor(seconds * 10), Math.ceil(run.durationMs / 100)) : done.ops, {
      rate: rate(run, done, seconds),
      done: run.durationMs ? `${done.ops} requests, ${seconds.toFixed(0)}/${(run.durationMs / 1000).toFixed(0)} s` : `${done.ops}/${run.requests} requests`,
    }),
    end: () => bar.stop(),
  });
}
