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

  /** One request, as it ends (a sample read in ranges is several). */
  add(r: OpRecord): void {
    countInto(this.totals, r);
    if (!r.error) this.histograms.record(r.phases, r.totalMs);
  }

  /** One sample read whole, all its requests answered. */
  sample(bytes: number): void {
    const epoch = this.epochs.at(-1)!;
    epoch.samples++;
    epoch.bytes += bytes;
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

type Got = OpRecord | OpRecord[];

/** Bytes `offsetBytes` .. + `lengthBytes` of a sample: one ranged request of a sample read in parts. */
export interface SamplePart {
  offsetBytes: number;
  lengthBytes: number;
}

/** How one sample (or one part of it) is read: the lane loop's start, as job-run gives it. */
export type StartSample = (
  n: number,
  lane: number,
  done: (got: Got) => void,
  fail: (err: unknown) => void,
  part?: SamplePart,
) => void;

/** The worker's part of a training run: `items` samples, `lanes` requests at most in flight. */
export interface TrainRun {
  job: TrainJob;
  reader: number;
  items: number;
  /** Sample `n`'s size: with `job.rangeBytes`, a larger one is read as ranged requests of that size. */
  sizeOf: (n: number) => number;
  lanes: number;
  meter: TrainMeter;
  signal: AbortSignal;
  start: StartSample;
  /** Each sample once, as one record (a sample read in parts: its parts' record, mergeParts). */
  settle: (n: number, got: Got) => void;
}

/**
 * A sample read in parts, as one record: from its first part's start to its last part's end, their
 * bytes and counts added, the first error; the slowest part's phases. No MD5: a part's would be of
 * its range, and the sink's check hashes the whole sample.
 */
export function mergeParts(parts: readonly OpRecord[]): OpRecord {
  const first = parts.reduce((a, b) => (b.startEpochMs < a.startEpochMs ? b : a));
  const slowest = parts.reduce((a, b) => (b.totalMs > a.totalMs ? b : a));
  const endMs = Math.max(...parts.map((p) => p.startEpochMs + p.totalMs));
  const failed = parts.find((p) => p.error);
  const { md5: _, ...base } = failed ?? slowest;
  return {
    ...base,
    offsetBytes: Math.min(...parts.map((p) => p.offsetBytes)),
    bytes: parts.reduce((a, p) => a + p.bytes, 0),
    startEpochMs: first.startEpochMs,
    totalMs: endMs - first.startEpochMs,
    phases: slowest.phases,
    reused: parts.every((p) => p.reused),
    retries: parts.reduce((a, p) => a + p.retries, 0),
    throttled: parts.reduce((a, p) => a + p.throttled, 0),
    backoffMs: parts.reduce((a, p) => a + p.backoffMs, 0),
  };
}

/** Every epoch in turn; resolves with the requests issued, rejects with the first failure to start one. */
export async function runTrain(run: TrainRun): Promise<number> {
  let issued = 0;
  for (let epoch = 0; epoch < run.job.epochs && !run.signal.aborted; epoch++) {
    issued += await new Epoch(run, epoch).read();
  }
  return issued;
}

/** One epoch: the reader's batches ahead of the accelerator, the accelerator behind them. */
class Epoch {
  private readonly r: TrainRun;
  private readonly order: Uint32Array;
  private readonly batchCount: number;
  /** Samples still unanswered in each batch. */
  private readonly left: number[];
  /** When each batch's last sample was answered (performance.now()). */
  private readonly readyAt: number[];
  private nextSample = 0;
  /** The next part of sample `nextSample` to issue, and each sample's parts' records as they come. */
  private nextPart = 0;
  private readonly parts = new Map<number, OpRecord[]>();
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

  constructor(run: TrainRun, epoch: number) {
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

  /** Sample `n`'s parts: its ranges where it is larger than the range size, else none (one GET). */
  private partsOf(n: number): SamplePart[] | undefined {
    const range = this.r.job.rangeBytes;
    const size = this.r.sizeOf(n);
    if (!range || size <= range) return undefined;
    return Array.from({ length: Math.ceil(size / range) }, (_, p) => ({
      offsetBytes: p * range,
      lengthBytes: Math.min(range, size - p * range),
    }));
  }

  /** Issues requests in order while a lane is free and their batch is within the prefetch depth. */
  private pump(): void {
    const limit = this.computed + this.r.job.prefetch;
    while (this.free.length && this.nextSample < this.r.items && !this.r.signal.aborted) {
      const position = this.nextSample;
      const batch = this.batchOf(position);
      if (batch > limit) return;
      const n = this.order[position]!;
      const parts = this.partsOf(n);
      const part = parts?.[this.nextPart];
      if (!parts || ++this.nextPart === parts.length) {
        this.nextSample++;
        this.nextPart = 0;
      }
      const lane = this.free.pop()!;
      this.inFlight++;
      this.issued++;
      const done = (got: Got) => this.answered(n, lane, batch, got, parts?.length ?? 1);
      try {
        this.r.start(n, lane, done, this.fail, part);
      } catch (err) {
        this.fail(err);
        return;
      }
    }
    if (this.r.signal.aborted && !this.inFlight) this.end();
  }

  /** A request answered: its sample is done once its last part is. */
  private answered(n: number, lane: number, batch: number, got: Got, parts: number): void {
    this.inFlight--;
    this.free.push(lane);
    const records = Array.isArray(got) ? got : [got];
    for (const r of records) this.r.meter.add(r);
    let whole = records;
    if (parts > 1) {
      whole = [...(this.parts.get(n) ?? []), ...records];
      if (whole.length < parts) {
        this.parts.set(n, whole);
        queueMicrotask(() => this.pump());
        return;
      }
      this.parts.delete(n);
    }
    this.r.meter.sample(whole.reduce((a, r) => a + r.bytes, 0));
    try {
      this.r.settle(n, parts > 1 ? mergeParts(whole) : got);
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
