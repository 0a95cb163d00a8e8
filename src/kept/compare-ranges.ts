// The byte-for-byte check of a run's ranges against the fixture, on two cores where one is idle: a
// large compare is bound by one core's memory bandwidth, and split with a thread that this process
// keeps from run to run it takes less wall time. Every byte is still compared; only where the work
// runs changes.
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import type { Worker } from 'node:worker_threads';

// Required where a thread is made: an import would load node:worker_threads (and its messaging and
// serialization internals) in every worker process at its start, a compare of a few bytes included.
const require = createRequire(import.meta.url);

/** One range to check: what came in and what the fixture holds there, for item row `row`. */
export interface RangePair {
  row: number;
  got: Buffer;
  expected: Buffer;
}

/** Below this many bytes the thread's message round trip costs more than half the compare saves. */
export const SPLIT_MIN_BYTES = 4 * 1024 * 1024;

/** A part of one pair, as the thread gets it: both views by their shared memory, offset and length. */
type Segment = [
  got: SharedArrayBuffer,
  gotOffset: number,
  expected: SharedArrayBuffer,
  expectedOffset: number,
  length: number,
  row: number,
];

// The thread's whole program: plain CommonJS, evaluated, so that it loads nothing of ours.
const THREAD_SOURCE = `
const { parentPort } = require('node:worker_threads');
parentPort.on('message', (segments) => {
  const differ = [];
  for (const [got, gotOffset, expected, expectedOffset, length, row] of segments) {
    const same = Buffer.from(got, gotOffset, length).equals(Buffer.from(expected, expectedOffset, length));
    if (!same) differ.push(row);
  }
  parentPort.postMessage(differ);
});`;

/**
 * A second thread for comparing, started before a run's barrier (its start never lands in a timed
 * section) and kept by the worker process (KeptBuffers) for the runs after.
 */
export class CompareThread {
  private readonly worker: Worker;
  private broken = false;
  readonly online: Promise<void>;

  constructor() {
    const threads = require('node:worker_threads') as typeof import('node:worker_threads');
    this.worker = new threads.Worker(THREAD_SOURCE, { eval: true });
    // Idle, it holds nothing open: the worker process ends as it would without it.
    this.worker.unref();
    this.online = new Promise<void>((resolve) => {
      this.worker.once('online', resolve);
      this.worker.once('error', () => {
        this.broken = true;
        resolve();
      });
    });
  }

  get usable(): boolean {
    return !this.broken;
  }

  /**
   * The rows of `segments` that differ; undefined when the thread failed (the caller compares them itself).
   */
  rowsThatDiffer(segments: Segment[]): Promise<number[] | undefined> {
    if (this.broken) return Promise.resolve(undefined);
    return new Promise((resolve) => {
      const done = (rows: number[] | undefined) => {
        this.worker.off('message', onMessage);
        this.worker.off('error', onError);
        this.worker.unref();
        resolve(rows);
      };
      const onMessage = (rows: number[]) => done(rows);
      const onError = () => {
        this.broken = true;
        done(undefined);
      };
      this.worker.ref();
      this.worker.on('message', onMessage);
      this.worker.once('error', onError);
      this.worker.postMessage(segments);
    });
  }
}

/**
 * Whether a job's check should take a second thread: its ranges are big enough, both sides sit in
 * shared memory, and the machine has a core more than the job's worker processes (which check their
 * shares at once).
 */
export function wantsThread(totalBytes: number, workers: number, cores = availableParallelism()): boolean {
  return totalBytes >= SPLIT_MIN_BYTES && workers < cores;
}

const shared = (b: Buffer): SharedArrayBuffer | undefined =>
  b.buffer instanceof SharedArrayBuffer ? b.buffer : undefined;

/**
 * The rows whose bytes differ from the fixture's. With `thread` and enough bytes, the last half of
 * the bytes (cut inside a range where need be) goes to the thread while this one compares the first.
 */
export async function rowsThatDiffer(
  pairs: readonly RangePair[],
  thread?: CompareThread,
): Promise<Set<number>> {
  const differ = new Set<number>();
  const total = pairs.reduce((a, p) => a + p.got.length, 0);
  const sharable =
    thread?.usable &&
    total >= SPLIT_MIN_BYTES &&
    pairs.every((p) => shared(p.got) && shared(p.expected) && p.got.length === p.expected.length);
  if (!sharable) {
    for (const p of pairs) if (!p.got.equals(p.expected)) differ.add(p.row);
    return differ;
  }
  // This thread's part: the first half of the bytes; the thread's: the rest.
  const mine: [Buffer, Buffer, number][] = [];
  const theirs: Segment[] = [];
  let left = Math.floor(total / 2);
  for (const p of pairs) {
    const here = Math.min(left, p.got.length);
    left -= here;
    if (here > 0) mine.push([p.got.subarray(0, here), p.expected.subarray(0, here), p.row]);
    if (here < p.got.length) {
      theirs.push([
        shared(p.got)!,
        p.got.byteOffset + here,
        shared(p.expected)!,
        p.expected.byteOffset + here,
        p.got.length - here,
        p.row,
      ]);
    }
  }
  const asked = thread!.rowsThatDiffer(theirs);
  for (const [got, expected, row] of mine) if (!got.equals(expected)) differ.add(row);
  const answered = await asked;
  if (answered) {
    for (const row of answered) differ.add(row);
  } else {
    // The thread failed: its part is compared here, as it would have been without it.
    for (const [got, gotOffset, expected, expectedOffset, length, row] of theirs) {
      if (!Buffer.from(got, gotOffset, length).equals(Buffer.from(expected, expectedOffset, length)))
        differ.add(row);
    }
  }
  return differ;
}
