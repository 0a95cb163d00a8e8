// A training job's read pattern in one worker, which stands for one accelerator: each epoch reads the
// worker's samples in a seeded shuffled order, in batches; a simulated accelerator takes the batches
// one by one and holds each for the compute time (a timer, not CPU work), while the reader keeps up to
// `prefetch` batches beyond the one in compute loading, its requests through the job's lanes. Every
// request is counted as it ends (the records keep each sample's last read); the accelerator's compute
// and wall time per epoch and its wait for each batch are what the run is judged by.
import type * as Hdr from 'hdr-histogram-js';
import { encodeHistogram, newHistogram, PhaseHistograms, sumEncoded } from '../metrics/histograms.js';
import type { OpRecord } from '../metrics/records.js';
import { addTotals, countInto, emptyTotals, type SteadyTotals } from '../metrics/totals.js';
import { epochOrder } from '../plan/shuffle.js';
import type { TrainRecord } from '../results/schema.js';
import type { TrainEpoch, TrainJob, TrainWorkerResult } from './protocol.js';

const epochNow = () => performance.timeOrigin + performance.now();

/** What one worker's accelerator and reader counted over a run. */
export class TrainMeter {
  readonly histograms = new PhaseHistograms();
  private readonly totals = emptyTotals();
  private readonly wait: Hdr.Histogram = newHistogram();
  readonly epochs: TrainEpoch[] = [];
  private batches = 0;
  private firstMs = Infinity;
  private lastMs = -Infinity;

  add(r: OpRecord): void {
    countInto(this.totals, r);
    const epoch = this.epochs.at(-1);
    if (epoch) {
      epoch.samples++;
      epoch.bytes += r.bytes;
    }
    if (!r.error) this.histograms.record(r.phases, r.totalMs);
  }

  startEpoch(): void {
    this.epochs.push({ computeMs: 0, wallMs: 0, samples: 0, bytes: 0, batches: 0 });
  }

  /** One batch taken by the accelerator after waiting `waitMs` for it, then held `computeMs`. */
  batch(waitMs: number, computeMs: number): void {
    this.batches++;
    const epoch = this.epochs.at(-1)!;
    epoch.batches++;
    epoch.computeMs += computeMs;
    this.wait.recordValue(Math.max(0, Math.round(waitMs * 1000)));
  }

  endEpoch(startMs: number, endMs: number): void {
    this.epochs.at(-1)!.wallMs = endMs - startMs;
    this.firstMs = Math.min(this.firstMs, startMs);
    this.lastMs = Math.max(this.lastMs, endMs);
  }

  result(): TrainWorkerResult {
    const origin = performance.timeOrigin;
    const spanned = this.firstMs <= this.lastMs;
    return {
      epochs: this.epochs,
      batches: this.batches,
      waitUs: encodeHistogram(this.wait),
      totals: this.totals,
      startEpochMs: spanned ? origin + this.firstMs : epochNow(),
      endEpochMs: spanned ? origin + this.lastMs : epochNow(),
    };
  }
}

/** How one sample is read: the lane loop's start, as job-run gives it. */
export type StartSample<R> = (
  n: number,
  lane: number,
  done: (got: R) => void,
  fail: (err: unknown) => void,
) => void;

/** The worker's part of a training run: `items` samples, `lanes` requests at most in flight. */
export interface TrainRun<R> {
  job: TrainJob;
  reader: number;
  items: number;
  lanes: number;
  meter: TrainMeter;
  signal: AbortSignal;
  start: StartSample<R>;
  settle: (n: number, got: R) => void;
}

/** Every epoch in turn; resolves with the requests issued, rejects with the first failure to start one. */
export async function runTrain<R>(run: TrainRun<R>): Promise<number> {
  let issued = 0;
  for (let epoch = 0; epoch < run.job.epochs && !run.signal.aborted; epoch++) {
    issued += await new Epoch(run, epoch).read();
  }
  return issued;
}

/** One epoch: the reader's batches ahead of the accelerator, the accelerator behind them. */
class Epoch<R> {
  private readonly r: TrainRun<R>;
  private readonly order: Uint32Array;
  private readonly batchCount: number;
  /** Samples still unanswered in each batch. */
  private readonly left: number[];
  /** When each batch's last sample was answered (performance.now()). */
  private readonly readyAt: number[];
  private nextSample = 0;
  private inFlight = 0;
  private issued = 0;
  /** Batches whose compute has ended: the reader may load up to batch `computed + prefetch`. */
  private computed = 0;
  /** The accelerator waits for this batch (undefined: computing, or done). */
  private waiting?: { batch: number; sinceMs: number };
  private free: number[] = [];
  private finish!: (issued: number) => void;
  private fail!: (err: unknown) => void;
  private startMs = 0;

  constructor(run: TrainRun<R>, epoch: number) {
    this.r = run;
    this.order = epochOrder(run.items, run.job.seed, epoch, run.reader);
    this.batchCount = Math.ceil(run.items / run.job.batchSize);
    this.left = Array.from({ length: this.batchCount }, (_, b) =>
      Math.min(run.job.batchSize, run.items - b * run.job.batchSize),
    );
    this.readyAt = new Array<number>(this.batchCount).fill(Number.NaN);
    this.free = Array.from({ length: Math.max(1, run.lanes) }, (_, l) => l);
  }

  read(): Promise<number> {
    return new Promise((resolve, reject) => {
      this.finish = resolve;
      this.fail = reject;
      this.startMs = performance.now();
      this.r.meter.startEpoch();
      if (!this.batchCount) return this.end();
      this.ask(0);
      this.pump();
    });
  }

  private batchOf(position: number): number {
    return Math.floor(position / this.r.job.batchSize);
  }

  /** Issues samples in order while a lane is free and their batch is within the prefetch depth. */
  private pump(): void {
    const limit = this.computed + this.r.job.prefetch;
    while (this.free.length && this.nextSample < this.r.items && !this.r.signal.aborted) {
      const position = this.nextSample;
      const batch = this.batchOf(position);
      if (batch > limit) return;
      this.nextSample++;
      const lane = this.free.pop()!;
      this.inFlight++;
      this.issued++;
      const n = this.order[position]!;
      try {
        this.r.start(n, lane, (got) => this.answered(n, lane, batch, got), this.fail);
      } catch (err) {
        this.fail(err);
        return;
      }
    }
    if (this.r.signal.aborted && !this.inFlight) this.end();
  }

  private answered(n: number, lane: number, batch: number, got: R): void {
    this.inFlight--;
    this.free.push(lane);
    try {
      this.r.settle(n, got);
    } catch (err) {
      this.fail(err);
      return;
    }
    if (--this.left[batch]! === 0) {
      this.readyAt[batch] = performance.now();
      if (this.waiting?.batch === batch) this.compute(batch);
    }
    // Deferred: a sample answered inside start() (a stop ends every item at once) must not nest.
    queueMicrotask(() => this.pump());
  }

  /** The accelerator asks for `batch`: it computes now if the batch is in, else it waits for it. */
  private ask(batch: number): void {
    if (batch >= this.batchCount || this.r.signal.aborted) return this.end();
    if (!Number.isNaN(this.readyAt[batch]!)) return this.compute(batch, 0);
    this.waiting = { batch, sinceMs: performance.now() };
  }

  private compute(batch: number, waitMs?: number): void {
    const waited = waitMs ?? performance.now() - this.waiting!.sinceMs;
    this.waiting = undefined;
    // The accelerator is busy for the compute time, not for what the timer took: a timer that fires
    // late (an event loop kept busy by the reads) is time the accelerator stood idle.
    setTimeout(() => {
      this.r.meter.batch(waited, this.r.job.computeMs);
      this.computed = batch + 1;
      this.pump();
      this.ask(batch + 1);
    }, this.r.job.computeMs);
  }

  private ended = false;

  private end(): void {
    if (this.ended) return;
    // After a stop the epoch ends once what is in flight has answered.
    if (this.inFlight) return;
    this.ended = true;
    this.r.meter.endEpoch(this.startMs, performance.now());
    this.finish(this.issued);
  }
}

/** Every accelerator's run, added: epochs by index, waits as one histogram, reads as one total. */
export interface MergedTrain {
  record: TrainRecord;
  totals: SteadyTotals;
  /** The first accelerator's start and the last one's end. */
  startEpochMs: number;
  endEpochMs: number;
}

export function mergeTrain(job: TrainJob, parts: readonly TrainWorkerResult[]): MergedTrain {
  const epochs: TrainEpoch[] = [];
  for (const part of parts) {
    part.epochs.forEach((e, i) => {
      const sum = (epochs[i] ??= { computeMs: 0, wallMs: 0, samples: 0, bytes: 0, batches: 0 });
      sum.computeMs += e.computeMs;
      sum.wallMs += e.wallMs;
      sum.samples += e.samples;
      sum.bytes += e.bytes;
      sum.batches += e.batches;
    });
  }
  const wait = sumEncoded(parts.map((p) => p.waitUs)) ?? newHistogram();
  return {
    record: {
      epochs,
      batchSize: job.batchSize,
      computeMs: job.computeMs,
      prefetch: job.prefetch,
      accelerators: parts.length,
      waitUs: encodeHistogram(wait),
      passMark: job.passMark,
      ...(job.preset ? { preset: job.preset } : {}),
    },
    totals: addTotals(parts.map((p) => p.totals)),
    startEpochMs: Math.min(...parts.map((p) => p.startEpochMs)),
    endEpochMs: Math.max(...parts.map((p) => p.endEpochMs)),
  };
}
