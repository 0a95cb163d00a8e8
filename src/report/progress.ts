// A live progress bar on a terminal (stderr), with MiB/s or ops/s: a listener of the session's
// events. Nothing at all when stderr is piped or redirected, so logs and reports stay clean.
import type { SessionEvent } from '../engine/session.js';

export interface ProgressView {
  onEvent(event: SessionEvent): void;
  close(): void;
}

const NONE: ProgressView = { onEvent: () => {}, close: () => {} };

export async function progressBar(stream: NodeJS.WriteStream = process.stderr): Promise<ProgressView> {
  if (!stream.isTTY) return NONE;
  const { default: cliProgress } = await import('cli-progress');
  const bar = new cliProgress.SingleBar({
    stream,
    format: '{label} [{bar}] {percentage}% | {value}/{total} requests | {rate}',
    barsize: 24,
    hideCursor: true,
    clearOnComplete: true,
    fps: 8,
  }, cliProgress.Presets.shades_classic);
  let active = false;
  let started = 0;
  let byBytes = false;
  const stop = () => {
    if (active) bar.stop();
    active = false;
  };
  return {
    onEvent(e) {
      if (e.type === 'run-start') {
        stop();
        active = true;
        started = performance.now();
        byBytes = e.bytes / Math.max(1, e.requests) >= 1024 * 1024;
        bar.start(e.requests, 0, { label: e.strategy.padEnd(15), rate: '' });
      } else if (e.type === 'progress' && active) {
        const s = (performance.now() - started) / 1000;
        const rate = s <= 0 ? '' : byBytes ? `${(e.bytes / 1024 / 1024 / s).toFixed(1)} MiB/s` : `${(e.ops / s).toFixed(0)} ops/s`;
        bar.update(e.ops, { rate });
      } else if (e.type === 'run-end') {
        stop();
      }
    },
    close: stop,
  };
}
