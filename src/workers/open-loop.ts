// Open-loop load (--rate): each send has an intended start from a schedule fixed at the release, and
// goes out then whatever the earlier ones are doing; one that finds --max-in-flight reached is
// skipped, never delayed. A request's latency counts from its intended start (no coordinated
// omission); the time from its actual send is kept beside it, and the send's lateness (send time
// minus intended start: this process's own scheduling error) on its own.
import type * as Hdr from 'hdr-histogram-js';
import type { Arrival } from '../vocabulary/choices.js';
import { encodeHistogram, newHistogram, sumEncoded } from '../metrics/histograms.js';
import type { OpenLoopRecord } from '../results/schema.js';
import type { OpRecord } from '../metrics/records.js';
import type { OpenLoopJob, OpenLoopWorkerResult } from './protocol.js';
import type { SendClock } from './send-clock.js';
import type { Shape } from './shape.js';

/** The schedule's draw: a fixed seed per worker, so every run of a contender meets the same arrivals. */
const POISSON_SEED = 0x9e3779b9;
/** The longest a worker sleeps between looks at its schedule and its shape. */
const RECHECK_MS = 100;

/**
 * A worker's intended starts, on its performance.now() clock. The rate is the total over `workers`
 * processes: uniform sends are interleaved (worker w of W takes every W-th slot of one grid), Poisson
 * sends are W independent processes of rate/W each, whose sum is a Poisson process of the rate. A
 * scale-out client (`client`, its rate its share of the whole) is one block of W streams among K
 * clients': its workers take their own slots of the K x W grid and draw their own seeds.
 */
export class Schedule {
  private readonly gapMs: number;
  private readonly poisson: boolean;
  private nextMs: number;
  private state: number;

  constructor(
    goMs: number,
    ratePerSecond: number,
    arrival: Arrival,
    workerIndex: number,
    workers: number,
    client: { index: number; count: number } = { index: 0, count: 1 },
  ) {
    const perClient = Math.max(1, workers);
    const stream = client.index * perClient + workerIndex;
    this.gapMs = (1000 * perClient) / ratePerSecond;
    this.poisson = arrival === 'poisson';
    this.state = (POISSON_SEED ^ Math.imul(stream + 1, 0x85ebca6b)) >>> 0;
    const totalPerSecond = ratePerSecond * Math.max(1, client.count);
    this.nextMs = this.poisson ? goMs + this.draw() : goMs + (stream * 1000) / totalPerSecond;
  }

  /** The next intended start, not yet taken. */
  peek(): number {
    return this.nextMs;
  }

  take(): number {
    const at = this.nextMs;
    this.nextMs += this.poisson ? this.draw() : this.gapMs;
    return at;
  }

  /** An exponential gap of mean gapMs, from mulberry32. */
  private draw(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const u = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    return -Math.log(1 - u) * this.gapMs;
  }
}

/** What one worker's open loop counted: every slot offered, sent or skipped, and three latencies. */
export class OpenLoopMeter {
  offered = 0;
  sent = 0;
  skipped = 0;
  succeeded = 0;
  private lastOfferedMs = -Infinity;
  private lastEndMs = -Infinity;
  private readonly fromIntended: Hdr.Histogram = newHistogram();
  private readonly fromSend: Hdr.Histogram = newHistogram();
  private readonly lateness: Hdr.Histogram = newHistogram();

  offer(intendedMs: number): void {
    this.offered++;
    this.lastOfferedMs = intendedMs;
  }

  /** A request that went out at `sentMs`, meant for `intendedMs`, and ended as `r` says. */
  settled(r: OpRecord, intendedMs: number, sentMs: number): void {
    const lateMs = Math.max(0, sentMs - intendedMs);
    this.lateness.recordValue(Math.round(lateMs * 1000));
    this.lastEndMs = Math.max(this.lastEndMs, intendedMs + r.totalMs);
    if (r.error) return;
    this.succeeded++;
    this.fromIntended.recordValue(Math.max(0, Math.round(r.totalMs * 1000)));
    this.fromSend.recordValue(Math.max(0, Math.round((r.totalMs - lateMs) * 1000)));
  }

  result(goEpochMs: number): OpenLoopWorkerResult {
    const since = (ms: number) =>
      Number.isFinite(ms) ? Math.max(0, performance.timeOrigin + ms - goEpochMs) : 0;
    return {
      offered: this.offered,
      sent: this.sent,
      skipped: this.skipped,
      succeeded: this.succeeded,
      lastOfferedMs: since(this.lastOfferedMs),
      lastEndMs: since(this.lastEndMs),
      fromIntended: encodeHistogram(this.fromIntended),
      fromSend: encodeHistogram(this.fromSend),
      lateness: encodeHistogram(this.lateness),
    };
  }
}

/** A request as the open loop starts it: item `n` on `lane`, timed from `intendedMs`. */
export type StartSend<R> = (
  n: number,
  lane: number,
  intendedMs: number,
  done: (got: R) => void,
  fail: (err: unknown) => void,
) => void;

/**
 * The open loop: at each intended start (a timer for the next one, and a look at the schedule as
 * each answer arrives), the slot's send goes out on a free lane, or is skipped when all `lanes`
 * (this worker's --max-in-flight) are busy. A skipped slot takes no item: the next sent slot takes
 * it, so a fixed run still sends every item once. The shape says when the schedule ends (its items
 * all sent, the deadline, a finish); a stop (`signal`) ends it at once. `start` gets the intended
 * start as the time the request counts from. Resolves with how many went, once the last has ended.
 */
export function runOpenLoop<R extends OpRecord | OpRecord[]>(
  items: number,
  lanes: number,
  shape: Shape,
  schedule: Schedule,
  meter: OpenLoopMeter,
  signal: AbortSignal,
  start: StartSend<R>,
  settle: (n: number, got: R) => void,
  clock?: SendClock,
): Promise<number> {
  if (!items || lanes < 1) return Promise.resolve(0);
  return new Promise((resolve, reject) => {
    const parts = { items, lanes, shape, schedule, meter, signal, start, settle, clock, resolve, reject };
    new OpenLoop<R>(parts).tick();
  });
}

interface OpenLoopParts<R> {
  items: number;
  lanes: number;
  shape: Shape;
  schedule: Schedule;
  meter: OpenLoopMeter;
  signal: AbortSignal;
  start: StartSend<R>;
  settle: (n: number, got: R) => void;
  /** The sub-millisecond alarm for the next slot; without it, a millisecond timer. */
  clock: SendClock | undefined;
  resolve: (sent: number) => void;
  reject: (err: unknown) => void;
}

/** One run of the open loop: its lanes, what is in flight, and how it wakes. */
class OpenLoop<R extends OpRecord | OpRecord[]> {
  private readonly p: OpenLoopParts<R>;
  private readonly free: number[];
  /** Per lane, when its request in flight went out (performance.now()). */
  private readonly sentAtMs: Float64Array;
  private inFlight = 0;
  private ended = false;
  private draining = false;
  private failed = false;
  private timer: NodeJS.Timeout | undefined;
  private timerForMs = Number.NaN;
  private immediate: NodeJS.Immediate | undefined;
  /** Inside a turn's check phase: every answer that had arrived has been read. */
  private afterPoll = false;

  constructor(p: OpenLoopParts<R>) {
    this.p = p;
    this.free = Array.from({ length: p.lanes }, (_, i) => p.lanes - 1 - i);
    this.sentAtMs = new Float64Array(p.lanes);
    p.signal.addEventListener('abort', this.end);
    if (p.clock) p.clock.onDue = this.onClock;
  }

  private readonly fail = (err: unknown): void => {
    if (this.failed) return;
    this.failed = true;
    this.end();
    this.p.reject(err);
  };

  private readonly end = (): void => {
    this.ended = true;
    clearTimeout(this.timer);
    clearImmediate(this.immediate);
    if (this.p.clock) this.p.clock.onDue = undefined;
    this.p.signal.removeEventListener('abort', this.end);
    if (this.inFlight === 0 && !this.failed) this.p.resolve(this.p.meter.sent);
  };

  private readonly onTimer = (): void => {
    this.timerForMs = Number.NaN;
    this.tick();
  };

  private readonly onClock = (): void => {
    this.tick();
  };

  private readonly onImmediate = (): void => {
    this.immediate = undefined;
    this.afterPoll = true;
    try {
      this.tick();
    } finally {
      this.afterPoll = false;
    }
  };

  /**
   * Every slot now due goes out (or is skipped) in order; then a wake for the next. Answers that
   * arrive inside start() (a stop ends requests at once) come back here, not into a nested loop.
   */
  tick(): void {
    if (this.draining || this.ended) return;
    this.draining = true;
    try {
      for (;;) {
        const dueMs = this.p.schedule.peek();
        if (this.p.signal.aborted || !this.p.shape.more(this.p.meter.sent, dueMs)) {
          this.end();
          return;
        }
        const now = performance.now();
        if (dueMs > now) {
          this.wake(dueMs, now);
          return;
        }
        if (this.inFlight >= this.p.lanes && !this.mustSkip(dueMs)) return;
        this.p.schedule.take();
        this.p.meter.offer(dueMs);
        if (this.inFlight >= this.p.lanes) this.p.meter.skipped++;
        else this.send(dueMs);
      }
    } catch (err) {
      this.fail(err);
    } finally {
      this.draining = false;
    }
  }

  /**
   * Every lane is busy at a slot's time: whether it is skipped. Answers that arrived while this
   * process was busy are read first (the check phase, after the poll), so a stall of its own does
   * not fill lanes that the target had freed. Then the slot is skipped only if every lane holds a
   * request sent before it was due: lanes taken by sends that went out late, after this slot's
   * time, were free at it, and the slot goes out, late, as soon as one frees. False: not yet.
   */
  private mustSkip(dueMs: number): boolean {
    if (!this.afterPoll) {
      this.immediate ??= setImmediate(this.onImmediate);
      return false;
    }
    for (let lane = 0; lane < this.p.lanes; lane++) {
      if (this.sentAtMs[lane]! > dueMs) return false;
    }
    return true;
  }

  /**
   * A wake for the next slot (answers look at the schedule too). With the send clock, its alarm,
   * which a helper thread sounds within a fraction of a millisecond of the slot, and a RECHECK_MS
   * timer behind it. Without, one timer for the slot, kept while it is for that slot, which wakes on
   * whole milliseconds. Either way a slow schedule is looked at every RECHECK_MS, for a finish
   * (--autoterm) meanwhile. Looking at every turn of the event loop instead would keep a core busy at
   * any rate over a few hundred a second, taken from the target and from the answers.
   */
  private wake(dueMs: number, now: number): void {
    const { clock } = this.p;
    if (clock?.running && dueMs - now < RECHECK_MS) {
      clock.arm(dueMs);
      // A backstop for the shape's look and in case the helper thread is gone: every wait bounded.
      if (Number.isNaN(this.timerForMs)) {
        this.timerForMs = Number.POSITIVE_INFINITY;
        this.timer = setTimeout(this.onTimer, RECHECK_MS);
      }
      return;
    }
    if (this.timerForMs === dueMs) return;
    clearTimeout(this.timer);
    this.timerForMs = dueMs;
    this.timer = setTimeout(this.onTimer, Math.min(Math.max(1, Math.ceil(dueMs - now)), RECHECK_MS));
  }

  private send(intendedMs: number): void {
    const lane = this.free.pop()!;
    this.inFlight++;
    const n = this.p.meter.sent++ % this.p.items;
    const sentMs = performance.now();
    this.sentAtMs[lane] = sentMs;
    this.p.start(n, lane, intendedMs, (got) => this.answered(lane, n, got, intendedMs, sentMs), this.fail);
  }

  private answered(lane: number, n: number, got: R, intendedMs: number, sentMs: number): void {
    this.inFlight--;
    this.free.push(lane);
    try {
      if (Array.isArray(got)) for (const r of got) this.p.meter.settled(r, intendedMs, sentMs);
      else this.p.meter.settled(got as OpRecord, intendedMs, sentMs);
      this.p.settle(n, got);
    } catch (err) {
      this.fail(err);
      return;
    }
    if (!this.ended) this.tick();
    else if (this.inFlight === 0 && !this.failed) this.p.resolve(this.p.meter.sent);
  }
}

/** Every worker's open loop as one: counts and histograms added, the longest spans, the job's settings. */
export function mergeOpenLoop(
  job: OpenLoopJob,
  parts: readonly OpenLoopWorkerResult[],
): OpenLoopRecord | undefined {
  if (!parts.length) return undefined;
  const sum = (f: (p: OpenLoopWorkerResult) => number) => parts.reduce((a, p) => a + f(p), 0);
  const added = (f: (p: OpenLoopWorkerResult) => string) => {
    const h = sumEncoded(parts.map(f));
    return h ? encodeHistogram(h) : f(parts[0]!);
  };
  return {
    ratePerSecond: job.ratePerSecond,
    arrival: job.arrival,
    maxInFlight: job.maxInFlight,
    offered: sum((p) => p.offered),
    sent: sum((p) => p.sent),
    skipped: sum((p) => p.skipped),
    succeeded: sum((p) => p.succeeded),
    lastOfferedMs: Math.max(...parts.map((p) => p.lastOfferedMs)),
    lastEndMs: Math.max(...parts.map((p) => p.lastEndMs)),
    histograms: {
      fromIntended: added((p) => p.fromIntended),
      fromSend: added((p) => p.fromSend),
      lateness: added((p) => p.lateness),
    },
  };
}
