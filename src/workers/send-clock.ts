// A sub-millisecond alarm for the open loop's sends. Node's timers wake on whole milliseconds (libuv
// keeps its loop time in ms), so a send that no answer wakes the worker for goes out up to ~1 ms after
// its slot. A helper thread sleeps instead, in Atomics.wait with a fractional timeout, and posts one
// message to the worker's event loop when the slot it was asked for is due. The worker's own thread
// never spins: between slots it sleeps in its event loop as before, and the helper sleeps in the
// kernel. Every wait is bounded, the thread is unref'd, and close() ends it.
import { Worker } from 'node:worker_threads';

/** Int32 cells of the shared buffer: the alarm's generation, the helper parked, stop. */
const SEQ = 0;
const PARKED = 1;
const STOP = 2;
/** Byte offset of the Float64 cell that holds the slot's time, in the worker's performance.now() ms. */
const DUE_OFFSET = 16;
const BUFFER_BYTES = 24;
/** The longest the helper sleeps without looking at the buffer again. */
const RECHECK_MS = 100;
/**
 * The least time from one alarm heard, or one look that found the alarm moved on, to the helper's
 * next look. Slots closer than this share a wake: the worker's event loop is woken at most 2,000
 * times a second (each wake costs it tens of µs of CPU), and a slot that no answer sends goes out at
 * most this much (plus the wake's own latency, about 0.1 ms) after its time, inside a millisecond.
 * At a rate whose answers send most slots, the helper too wakes at most this often, not per slot.
 * At lower rates it sleeps to each slot's time.
 */
const LOOK_MS = 0.5;
/** The longest a worker waits for the helper thread to come up before it keeps to its ms timers. */
const START_TIMEOUT_MS = 2000;

/**
 * The helper thread's whole program, started from its source text (so that no file has to be found
 * next to a bundle). It reads the worker's clock as its own performance.now(), shifted by the
 * difference of their origins (none in the Node versions seen: a thread shares the process's origin;
 * process.hrtime is no common ground, as performance.now() drifts from it). One message per alarm
 * set (a generation): a new alarm before it fires replaces it; after it fires the helper parks until
 * the next. It cannot see this module's names: the cells
 * are SEQ 0, PARKED 1, STOP 2 and the slot at DUE_OFFSET 16; its times come in workerData.
 */
function helperThread(): void {
  const wt = process.getBuiltinModule('node:worker_threads');
  const { buffer, originMs, recheckMs, lookMs } = wt.workerData as {
    buffer: SharedArrayBuffer;
    originMs: number;
    recheckMs: number;
    lookMs: number;
  };
  const ctl = new Int32Array(buffer, 0, 3);
  const due = new Float64Array(buffer, 16, 1);
  const shiftMs = performance.timeOrigin - originMs;
  const nowMs = () => performance.now() + shiftMs;
  let fired = 0;
  let nextLookMs = 0;
  while (Atomics.load(ctl, 2) === 0) {
    const seq = Atomics.load(ctl, 0);
    if (seq === fired) {
      Atomics.store(ctl, 1, 1);
      Atomics.wait(ctl, 0, seq, recheckMs);
      Atomics.store(ctl, 1, 0);
      continue;
    }
    const now = nowMs();
    const leftMs = Math.max(due[0]! - now, nextLookMs - now);
    if (leftMs > 0) {
      Atomics.wait(ctl, 0, seq, Math.min(leftMs, recheckMs));
      // Woken to find the alarm moved on (answers sent its slot): the next look waits lookMs.
      if (Atomics.load(ctl, 0) !== seq) nextLookMs = nowMs() + lookMs;
      continue;
    }
    fired = seq;
    nextLookMs = now + lookMs;
    wt.parentPort!.postMessage(seq);
  }
}

/** The worker's side: set an alarm for a slot, hear it as a call of `onDue`. */
export class SendClock {
  /** Called on the worker's event loop when an alarm is due (or a stale one fires: harmless). */
  onDue: (() => void) | undefined;
  /** Alarms heard: one per alarm that came due. */
  fired = 0;
  private readonly ctl: Int32Array;
  private readonly due: Float64Array;
  private readonly thread: Worker;
  private armedMs = Number.NaN;
  private closed = false;

  private constructor(buffer: SharedArrayBuffer, thread: Worker) {
    this.ctl = new Int32Array(buffer, 0, 3);
    this.due = new Float64Array(buffer, DUE_OFFSET, 1);
    this.thread = thread;
    thread.on('message', (seq: number) => {
      this.fired++;
      // One for an alarm since replaced leaves the new one set: the helper sounds that one too.
      if (seq === Atomics.load(this.ctl, SEQ)) this.armedMs = Number.NaN;
      this.onDue?.();
    });
    // A helper thread gone (none is expected to go) is no alarm: the open loop keeps to its timers.
    thread.on('error', () => undefined);
    thread.once('exit', () => {
      this.closed = true;
    });
  }

  /**
   * The helper thread, running; undefined where it cannot start within START_TIMEOUT_MS (then the
   * open loop keeps to its millisecond timers).
   */
  static async start(): Promise<SendClock | undefined> {
    const buffer = new SharedArrayBuffer(BUFFER_BYTES);
    let thread: Worker;
    try {
      thread = new Worker(`(${helperThread.toString()})()`, {
        eval: true,
        workerData: { buffer, originMs: performance.timeOrigin, recheckMs: RECHECK_MS, lookMs: LOOK_MS },
      });
    } catch {
      return undefined;
    }
    thread.unref();
    const up = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), START_TIMEOUT_MS);
      thread.once('online', () => {
        clearTimeout(timer);
        resolve(true);
      });
      thread.once('error', () => {
        clearTimeout(timer);
        resolve(false);
      });
    });
    if (up) return new SendClock(buffer, thread);
    await thread.terminate();
    return undefined;
  }

  /**
   * An alarm at `dueMs` (performance.now()), replacing any not yet fired. The helper is told at once
   * only when it is parked or the new time is earlier than the one it sleeps towards; otherwise it
   * reads the new time when it wakes.
   */
  arm(dueMs: number): void {
    if (dueMs === this.armedMs || this.closed) return;
    const earlier = !(dueMs >= this.armedMs);
    this.armedMs = dueMs;
    this.due[0] = dueMs;
    Atomics.add(this.ctl, SEQ, 1);
    if (earlier || Atomics.load(this.ctl, PARKED) === 1) Atomics.notify(this.ctl, SEQ);
  }

  /** Whether the helper thread is there to sound an alarm. */
  get running(): boolean {
    return !this.closed;
  }

  /** Ends the helper thread: it sees STOP at its next look, woken now. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onDue = undefined;
    Atomics.store(this.ctl, STOP, 1);
    Atomics.notify(this.ctl, SEQ);
    await this.thread.terminate();
  }
}
