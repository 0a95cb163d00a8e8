// Progress while a session runs, as a listener of its events: a live bar on a terminal, or, when
// stderr is not one (Docker and Kubernetes logs, `| cat`), a plain line every few seconds.
import { cellLabel } from '../analysis/analyze.js';
import type { SessionEvent } from '../engine/session.js';
import type { Progress } from '../workers/protocol.js';

export interface ProgressView {
  onEvent(event: SessionEvent): void;
  close(): void;
}

type RunStart = Extract<SessionEvent, { type: 'run-start' }>;

const MiB = 1024 * 1024;
/** Large objects are followed in MiB/s, many small ones in ops/s. */
const byBytes = (e: RunStart) => e.bytes / Math.max(1, e.requests) >= MiB;

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

/** One plain line per interval while a run is going: done/total, rate, errors, retries. */
export function progressLines(stream: NodeJS.WritableStream, intervalMs: number): ProgressView {
  let run: RunStart | undefined;
  let started = 0;
  let last: Progress = { ops: 0, bytes: 0, errors: 0, retries: 0 };
  let timer: NodeJS.Timeout | undefined;
  const line = () => {
    if (!run) return;
    const s = (performance.now() - started) / 1000;
    const phase = `${run.warmup ? 'warm-up' : 'run'} ${run.run + 1}/${run.runs}`;
    stream.write(`progress: ${cellLabel(run.strategy, run.cell)} ${phase}: ${last.ops}/${run.requests} requests, ${rate(run, last, s)}, errors ${last.errors}, retries ${last.retries}, ${s.toFixed(0)} s\n`);
  };
  const stop = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
    run = undefined;
  };
  return {
    onEvent(e) {
      if (e.type === 'run-start') {
        stop();
        run = e;
        started = performance.now();
        last = { ops: 0, bytes: 0, errors: 0, retries: 0 };
        timer = setInterval(line, intervalMs);
        timer.unref();
      } else if (e.type === 'progress') {
        last = e;
      } else if (e.type === 'run-end') {
        stop();
      }
    },
    close: stop,
  };
}

async function progressBar(stream: NodeJS.WriteStream): Promise<ProgressView> {
  const { default: cliProgress } = await import('cli-progress');
  const bar = new cliProgress.SingleBar({
    stream,
    format: '{label} [{bar}] {percentage}% | {value}/{total} requests | {rate}',
    barsize: 24,
    hideCursor: true,
    clearOnComplete: true,
    fps: 8,
  }, cliProgress.Presets.shades_classic);
  let run: RunStart | undefined;
  let started = 0;
  const stop = () => {
    if (run) bar.stop();
    run = undefined;
  };
  return {
    onEvent(e) {
      if (e.type === 'run-start') {
        stop();
        run = e;
        started = performance.now();
        bar.start(e.requests, 0, { label: e.strategy.padEnd(15), rate: '' });
      } else if (e.type === 'progress' && run) {
        bar.update(e.ops, { rate: rate(run, e, (performance.now() - started) / 1000) });
      } else if (e.type === 'run-end') {
        stop();
      }
    },
    close: stop,
  };
}
