// The start barrier of a scale-out run, through the storage account: each client (its workers
// forked and ready) writes runs/<RUN_ID>/ready/<i> once, then lists the markers until all K are
// there. The start is the latest marker's Last-Modified plus a lead, on the service's clock, the
// same instant for every client; each waits for it on its own clock, corrected by its offset.
import { hostname } from 'node:os';
import { ExitError } from '../vocabulary/errors.js';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ClockOffset, LocalClock } from './clock.js';
import { runPaths, type RunStore, type StoredBlob } from './run-store.js';
import type { Shard } from './shard.js';

/** A barrier that cannot be passed: the exit code says why (the Job's podFailurePolicy fails on them). */
export class BarrierError extends ExitError {
  constructor(exitCode: number, message: string) {
    super(exitCode, message);
    this.name = 'BarrierError';
  }
}

export const EXIT_BARRIER_TIMEOUT = 3;
export const EXIT_DUPLICATE_INDEX = 4;
export const EXIT_LATE = 5;

export interface BarrierOptions {
  runId: string;
  shard: Shard;
  /** Time between the last marker and the start, for every client to see it and get ready. */
  leadMs: number;
  timeoutMs: number;
  pollMs?: number;
  clock: LocalClock;
  offset: ClockOffset;
  signal?: AbortSignal;
}

export interface BarrierPassed {
  /** The start on the service's clock, and the local time this client waited for. */
  startStorageMs: number;
  startLocalMs: number;
}

/** The start: the latest marker's Last-Modified plus the lead, on the service's clock. */
export function startTimeMs(markers: readonly StoredBlob[], leadMs: number): number {
  return Math.max(...markers.map((m) => m.lastModifiedMs)) + leadMs;
}

/** The client indices that have a marker among `markers`, below `count`. */
export function readyIndices(markers: readonly StoredBlob[], prefix: string, count: number): Set<number> {
  const out = new Set<number>();
  for (const m of markers) {
    const rest = m.name.slice(prefix.length);
    if (/^\d+$/.test(rest) && Number(rest) < count) out.add(Number(rest));
  }
  return out;
}

export async function passBarrier(store: RunStore, opts: BarrierOptions): Promise<BarrierPassed> {
  const { runId, shard, leadMs, timeoutMs, pollMs = 250, clock, offset, signal } = opts;
  const paths = runPaths(runId);
  const marker = JSON.stringify({
    index: shard.index,
    parallelism: shard.count,
    host: hostname(),
    pid: process.pid,
    clockOffsetMs: offset.offsetMs,
  });
  if (!(await store.createOnce(paths.ready(shard.index), marker))) {
    throw new BarrierError(
      EXIT_DUPLICATE_INDEX,
      `index ${shard.index} of run ${runId} is taken: ${paths.ready(shard.index)} exists already; ` +
        'give each client its own --index',
    );
  }
  const deadline = clock.now() + timeoutMs;
  let markers: StoredBlob[];
  for (;;) {
    markers = await store.list(paths.readyPrefix);
    const ready = readyIndices(markers, paths.readyPrefix, shard.count);
    if (ready.size >= shard.count) break;
    if (clock.now() > deadline) {
      const missing = Array.from({ length: shard.count }, (_, i) => i).filter((i) => !ready.has(i));
      throw new BarrierError(
        EXIT_BARRIER_TIMEOUT,
        `barrier of run ${runId}: ${ready.size} of ${shard.count} clients ready after ` +
          `--barrier-timeout ${timeoutMs / 1000} s; missing index ${missing.join(', ')}`,
      );
    }
    await sleep(pollMs, undefined, { signal });
  }
  const startStorageMs = startTimeMs(
    markers.filter((m) => readyIndices([m], paths.readyPrefix, shard.count).size),
    leadMs,
  );
  const startLocalMs = startStorageMs - offset.offsetMs;
  const lateMs = clock.now() - startLocalMs;
  if (lateMs > 0) {
    throw new BarrierError(
      EXIT_LATE,
      `client ${shard.index} of run ${runId} saw the last client ${Math.round(lateMs)} ms after the start; ` +
        `raise --start-lead (now ${leadMs} ms)`,
    );
  }
  // A timer for all but the last few ms, then a short spin: timers fire late, by a millisecond or more.
  const untilMs = startLocalMs - clock.now();
  if (untilMs > 5) await sleep(untilMs - 5, undefined, { signal });
  while (clock.now() < startLocalMs) signal?.throwIfAborted();
  return { startStorageMs, startLocalMs };
}
