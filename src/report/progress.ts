// A live progress bar on a terminal (stderr), with MiB/s or ops/s; nothing at all when stderr is
// piped or redirected, so logs and reports stay clean.
import cliProgress from 'cli-progress';
import { setProgressListener } from '../workers/pool.js';

/** Shows progress until the returned function is called. */
export function showProgress(stream: NodeJS.WriteStream = process.stderr): () => void {
  if (!stream.isTTY) return () => {};
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
  setProgressListener((e) => {
    if (e.kind === 'start') {
      if (active) bar.stop();
      active = true;
      started = performance.now();
      byBytes = e.totalBytes / Math.max(1, e.totalOps) >= 1024 * 1024;
      bar.start(e.totalOps, 0, { label: e.strategy.padEnd(15), rate: '' });
      return;
    }
    const s = (performance.now() - started) / 1000;
    const rate = s <= 0 ? '' : byBytes ? `${(e.bytes / 1024 / 1024 / s).toFixed(1)} MiB/s` : `${(e.ops / s).toFixed(0)} ops/s`;
    bar.update(e.ops, { rate });
    if (e.ops >= bar.getTotal()) {
      bar.stop();
      active = false;
    }
  });
  return () => {
    setProgressListener(undefined);
    if (active) bar.stop();
  };
}
