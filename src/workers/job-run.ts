// One job in one worker, as an object with explicit states: idle -> prepared (its kind set up, URLs,
// sockets and payloads made before the barrier) -> running (the lanes, on 'go') -> checking (after
// every worker is done) -> done. Nothing of it lives in module variables: a worker's next job is a
// new JobRun, with its own stop; only what the process keeps for every job (KeptBuffers) outlives it.
import type http from 'node:http';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { loadKind } from '../kinds/index.js';
import { KeptBuffers } from '../kept/buffers.js';
import type { CheckNote, KindContext, KindRun } from '../kinds/kind.js';
import { warmConnections } from '../kinds/requests.js';
import { setLogLevel } from '../log/logger.js';
import { loadHistograms } from '../metrics/histograms.js';
import { RecordTable } from '../metrics/record-table.js';
import { decodeItems, type Items, type WorkItem } from '../plan/items.js';
import type { Bearer } from '../storage/entra.js';
import { RequestSigner } from '../storage/target.js';
import { NOT_SENT_ERROR } from '../transport/http-client.js';
import { RawPool } from '../transport/raw-client.js';
import { createAgent, NodeHttpClient } from '../transport/request.js';
import type { FromWorker, OpRecord, Progress, TrainJob, WorkerJob, WorkerResult } from './protocol.js';
import { packResult, sendsRecordsAlone } from './result.js';
import { OpenLoopMeter, runOpenLoop, Schedule } from './open-loop.js';
import { SendClock } from './send-clock.js';
import {
  IntervalLatency,
  NO_INTERVAL_LATENCY,
  type IntervalLatencyRecorder,
} from '../metrics/interval-latency.js';
import { FixedShape, runLanes, SteadyShape, type Shape } from './shape.js';
import { caOf, renewBearer } from '../storage/target-info.js';
import { runTrain, TrainMeter, type SamplePart, type StartSample } from './train.js';

/** Bytes of an item, as an item of their own: a ranged GET written at their place in the sink. */
const partOf = (item: WorkItem, part: SamplePart): WorkItem => ({
  ...item,
  range: { offsetBytes: (item.range?.offsetBytes ?? 0) + part.offsetBytes, lengthBytes: part.lengthBytes },
  destOffsetBytes: item.destOffsetBytes + part.offsetBytes,
  lengthBytes: part.lengthBytes,
  ...(item.contentOffsetBytes === undefined
    ? {}
    : { contentOffsetBytes: item.contentOffsetBytes + part.offsetBytes }),
});

/** What the timed section hands the loop it runs. */
interface Loop {
  items: number;
  itemOf: (n: number) => WorkItem;
  kindRun: KindRun;
  lanes: number;
  shape: Shape;
  start: (
    n: number,
    lane: number,
    done: (got: OpRecord | OpRecord[]) => void,
    fail: (err: unknown) => void,
  ) => void;
  counted: (n: number, got: OpRecord | OpRecord[]) => void;
  open?: { meter: OpenLoopMeter; schedule: Schedule; clock: SendClock | undefined };
}

/**
 * A lane per socket through our transport; the SDK's calls all at once unless the job says. An open
 * loop: its share of --max-in-flight (a send past it is skipped, not queued); a steady one may have
 * one item in flight more than once (one 1 KiB object at 5,000 GETs/s).
 */
function lanesOf(job: WorkerJob, items: number, ownTransport: boolean): number {
  const perWorker = job.openLoop && Math.ceil(job.openLoop.maxInFlight / Math.max(1, job.workers ?? 1));
  const closedLanes = job.inFlight ?? (ownTransport ? job.maxSockets : items);
  return Math.max(1, perWorker && job.steady ? perWorker : Math.min(items, perWorker || closedLanes));
}

export type JobState = 'idle' | 'prepared' | 'running' | 'checking' | 'done';

/** Items of a job whose URLs are made before the barrier (a few hundred bytes each). */
const PREBUILT_URLS = 10_000;
const epochNow = () => performance.timeOrigin + performance.now();

interface Prepared {
  items: Items;
  kindRun: KindRun;
  lanes: number;
  /** node:http's agent, where one was made (closed with the job). */
  agent: () => http.Agent | undefined;
  pool?: RawPool;
  warmSockets?: number;
  clock: SendClock | undefined;
}

export class JobRun {
  readonly job: WorkerJob;
  private stateNow: JobState = 'idle';
  private readonly send: (msg: FromWorker) => void;
  /** A stop from the coordinator: nothing new starts, requests in flight are aborted. */
  private readonly stop = new AbortController();
  /** A steady run is told to end now (--autoterm): nothing new is issued. */
  private finishing = false;
  /** Every worker is done (the coordinator's 'verify'), or a stop: checking may start. */
  private everyoneDone!: () => void;
  private readonly everyoneDoneNow = new Promise<void>((resolve) => {
    this.everyoneDone = resolve;
  });
  private prepared?: Prepared;
  private readonly done: Progress = { ops: 0, bytes: 0, errors: 0, retries: 0 };
  /** What succeeded since the last progress, where this job makes histograms (none for a few records). */
  private live: IntervalLatencyRecorder = NO_INTERVAL_LATENCY;
  /** Requests that failed while the stop was on: the run was cut short, not failed by the target. */
  private stopped = 0;

  /** A training job's settings and its accelerator's meter. */
  private readonly train?: { job: TrainJob; meter: TrainMeter };

  /** The process's state, kept from job to job (the entry makes it once: kept/buffers.ts). */
  private readonly kept: KeptBuffers;

  constructor(job: WorkerJob, send: (msg: FromWorker) => void, kept = new KeptBuffers()) {
    this.job = job;
    this.send = send;
    this.kept = kept;
    if (job.train) this.train = { job: job.train, meter: new TrainMeter() };
  }

  get state(): JobState {
    return this.stateNow;
  }

  private moveTo(from: JobState, to: JobState): void {
    if (this.stateNow !== from)
      throw new Error(`worker job: ${to} asked while ${this.stateNow}, not ${from}`);
    this.stateNow = to;
  }

  /** Everything before the barrier: the kind's set-up, the transport, warm sockets. */
  async prepare(): Promise<void> {
    const { job } = this;
    setLogLevel(job.logLevel);
    const kind = await loadKind(job.kind);
    // Items are made from their index as they are needed when the share is a file set.
    const items = decodeItems(job.items);
    // The histogram code, where this job will make histograms: loaded now, not after its requests.
    if (!sendsRecordsAlone(job, items.length)) {
      loadHistograms();
      this.live = new IntervalLatency();
    } else this.live = NO_INTERVAL_LATENCY;
    const signer = new RequestSigner(job.target);
    const origin = signer.blobUrl(items.at(0)?.blob ?? 'x');
    const ca = caOf(job.target);
    let made: http.Agent | undefined;
    const agent = () => (made ??= createAgent(origin, job.maxSockets, ca));
    const pool =
      kind.transport && job.httpClient !== 'node'
        ? new RawPool(origin, job.maxSockets, job.bufferSizeBytes, ca ? { ca } : undefined)
        : undefined;
    let nodeClient: NodeHttpClient | undefined;
    const client = () => pool ?? (nodeClient ??= new NodeHttpClient(agent(), job.bufferSizeBytes));
    // Up to PREBUILT_URLS items, each URL is made here, before the barrier; past that, as its request
    // goes out: a URL object is most of a file's state at 100,000 files per worker.
    let urls: Map<number, URL> | undefined;
    if (kind.transport && items.length <= PREBUILT_URLS) {
      urls = new Map();
      for (const i of items) urls.set(i.index, signer.blobUrl(i.blob));
    }
    const lanes = lanesOf(job, items.length, kind.transport);
    const ctx: KindContext = {
      job,
      items,
      signer,
      agent,
      client,
      pool,
      urls,
      signal: this.stop.signal,
      lanes,
      kept: this.kept,
    };
    const kindRun = await kind.setup(ctx);
    // Connections opened now are outside the timed span: the run measures requests on open sockets.
    const warmSockets =
      job.connections === 'warm' && items.length
        ? await warmConnections(ctx, origin, job.maxSockets, kindRun.agent)
        : undefined;
    // The open loop's sub-millisecond alarm: its thread started now, not at the release.
    const clock = job.openLoop ? await SendClock.start() : undefined;
    this.prepared = { items, kindRun, lanes, agent: () => made, pool, warmSockets, clock };
    this.moveTo('idle', 'prepared');
  }

  /** From the barrier's release (`goEpochMs`, which steady runs count intervals from) to the result. */
  async run(goEpochMs: number): Promise<WorkerResult> {
    this.moveTo('prepared', 'running');
    const { items, kindRun, lanes } = this.prepared!;
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    const cpu0 = process.cpuUsage();
    const startEpochMs = epochNow();
    // Progress for a live display: finished items and their bytes, a few times a second.
    const ticker = setInterval(() => {
      const latency = this.live.take();
      this.send({ type: 'progress', ...this.done, ...(latency ? { latency } : {}) });
    }, 250);
    const shape: Shape = this.job.steady
      ? new SteadyShape(goEpochMs, this.job.steady, () => this.stop.signal.aborted || this.finishing)
      : new FixedShape(items.length);
    if (shape instanceof SteadyShape) {
      shape.startReports((index, counts) => this.send({ type: 'interval', index, ...counts }));
    }
    const open = this.openLoop(goEpochMs);
    const { records, issued } = await this.timed(items, kindRun, lanes, shape, open).finally(() => {
      clearInterval(ticker);
      if (shape instanceof SteadyShape) shape.stopReports();
    });
    const endEpochMs = epochNow();
    // At once, so that a step after all workers (an upload's commit) does not wait on results packing.
    this.send({ type: 'finished', failedItems: records.failedRows().length });
    const cpu = process.cpuUsage(cpu0);
    loopDelay.disable();
    const { verifyMs, note } = await this.check(records);
    await this.close();
    this.stateNow = 'done';
    return packResult(
      this.job,
      items,
      records,
      {
        startEpochMs,
        endEpochMs,
        cpu,
        eventLoopDelayP99Ms: loopDelay.percentile(99) / 1e6,
        verifyMs,
        stopped: this.stopped,
        equalToFixture: note?.equalToFixture,
        warmSockets: this.prepared!.warmSockets,
        steady:
          shape instanceof SteadyShape
            ? { meter: shape.meter, result: shape.result(issued, items.length, endEpochMs) }
            : undefined,
        ...(open ? { openLoop: open.meter.result(goEpochMs) } : {}),
        ...(this.train ? { train: this.train.meter } : {}),
      },
      this.kept,
    );
  }

  /** An open loop's meter and schedule (--rate), its arrivals counted from the barrier's release. */
  private openLoop(
    goEpochMs: number,
  ): { meter: OpenLoopMeter; schedule: Schedule; clock: SendClock | undefined } | undefined {
    const { openLoop, workerIndex, workers } = this.job;
    if (!openLoop) return undefined;
    return {
      meter: new OpenLoopMeter(),
      schedule: new Schedule(
        goEpochMs - performance.timeOrigin,
        openLoop.ratePerSecond,
        openLoop.arrival,
        workerIndex,
        workers ?? 1,
        openLoop.client,
      ),
      clock: this.prepared!.clock,
    };
  }

  /**
   * The timed section. Without an in-flight limit every item counts as issued at the start, as if
   * all had been sent at once to wait for a socket: `wait` keeps that meaning. Records: one row per
   * item (a steady run writes each item's latest request over its last), as columns; a listing's
   * pages are kept apart, then appended.
   */
  private async timed(
    items: Items,
    kindRun: KindRun,
    lanes: number,
    shape: Shape,
    open?: { meter: OpenLoopMeter; schedule: Schedule; clock: SendClock | undefined },
  ): Promise<{ records: RecordTable; issued: number }> {
    const table = new RecordTable(items.length);
    const pages: OpRecord[][] = [];
    const settle = (n: number, got: OpRecord | OpRecord[]) => {
      if (Array.isArray(got)) pages[n] = got;
      else table.set(n, got);
    };
    const count = (r: OpRecord) => this.count(r, shape);
    // A training run issues its reads as batches allow, epoch after epoch: no read was queued at the start.
    const issuedAt =
      this.job.inFlight || this.train || shape.kind === 'steady' ? undefined : performance.now();
    // A steady run asks for each item again at every lap: kept from its first (up to PREBUILT_URLS
    // items), not a new item and name every request.
    const made: (WorkItem | undefined)[] | undefined =
      shape.kind === 'steady' && items.length <= PREBUILT_URLS ? new Array(items.length) : undefined;
    const counted = (n: number, got: OpRecord | OpRecord[]) => {
      if (Array.isArray(got)) got.forEach(count);
      else count(got);
      settle(n, got);
    };
    const itemOf = (n: number) => (made ? (made[n] ??= items.at(n)!) : items.at(n)!);
    const start = (
      n: number,
      lane: number,
      done: (got: OpRecord | OpRecord[]) => void,
      fail: (err: unknown) => void,
    ) => {
      const item = itemOf(n);
      if (this.stop.signal.aborted) done(this.notSent(item));
      // A kind that answers through a callback makes no promise a request.
      else if (kindRun.send) kindRun.send(item, lane, issuedAt, done, fail);
      else kindRun.run(item, lane, issuedAt).then(done, fail);
    };
    const issued = await this.loop({
      items: items.length,
      itemOf,
      kindRun,
      lanes,
      shape,
      start,
      counted,
      open,
    });
    // A steady run stopped before its first lap ended: the items never sent count as such.
    for (let n = 0; n < items.length; n++) {
      if (table.has(n) || pages[n]) continue;
      settle(n, this.notSent(items.at(n)!));
      if (this.stop.signal.aborted) this.stopped++;
    }
    const records = pages.length ? RecordTable.from(pages.flatMap((got, n) => got ?? [table.at(n)!])) : table;
    return { records, issued };
  }

  /** A request's record, counted as it ends: for progress, the live latency and the run's shape. */
  private count(r: OpRecord, shape: Shape): void {
    this.done.ops++;
    this.done.bytes += r.bytes;
    this.done.retries += r.retries;
    if (r.error) {
      this.done.errors++;
      if (this.stop.signal.aborted) this.stopped++;
    } else this.live.record(r.totalMs);
    shape.count(r);
  }

  /**
   * The loop a job asks for: an open loop (its own schedule), a training run (epochs of batches
   * behind a simulated accelerator), or the closed lanes; none takes a branch for the others.
   */
  private loop(l: Loop): Promise<number> {
    const { items, itemOf, kindRun, lanes, shape, start, counted, open } = l;
    const { signal } = this.stop;
    if (this.train) {
      const { job, meter } = this.train;
      const sizeOf = (n: number) => itemOf(n).lengthBytes;
      // A sample read in parts: each part a ranged GET of its bytes, written where they belong.
      const startPart: StartSample = (n, lane, done, fail, part) =>
        part ? this.sendItem(kindRun, partOf(itemOf(n), part), lane, done, fail) : start(n, lane, done, fail);
      const reader = this.job.workerIndex;
      const run = { job, reader, items, sizeOf, lanes, meter, signal, start: startPart, settle: counted };
      return runTrain(run);
    }
    if (!open) return runLanes<OpRecord | OpRecord[]>(items, lanes, shape, start, counted);
    return runOpenLoop<OpRecord | OpRecord[]>(
      items,
      lanes,
      shape,
      open.schedule,
      open.meter,
      signal,
      (n, lane, intendedMs, done, fail) => {
        const item = itemOf(n);
        if (signal.aborted) done(this.notSent(item));
        else if (kindRun.send) kindRun.send(item, lane, intendedMs, done, fail);
        else kindRun.run(item, lane, intendedMs).then(done, fail);
      },
      counted,
      open.clock,
    );
  }

  /** One item's request through the kind: by callback where it has one, else its promise. */
  private sendItem(
    kindRun: KindRun,
    item: WorkItem,
    lane: number,
    done: (got: OpRecord | OpRecord[]) => void,
    fail: (err: unknown) => void,
  ): void {
    if (this.stop.signal.aborted) done(this.notSent(item));
    else if (kindRun.send) kindRun.send(item, lane, undefined, done, fail);
    else kindRun.run(item, lane, undefined).then(done, fail);
  }

  /** The kind's check, once every worker is done (or a stop): what it spent, in ms, and what it noted. */
  private async check(records: RecordTable): Promise<{ verifyMs: number; note?: CheckNote }> {
    this.moveTo('running', 'checking');
    const { kindRun } = this.prepared!;
    if (!kindRun.check) return { verifyMs: 0 };
    if (!this.stop.signal.aborted) await this.everyoneDoneNow;
    // After a stop the kind decides what is still worth checking (hashing what landed is; reading back is
    // not).
    const start = performance.now();
    const note = await kindRun.check(records, this.stop.signal);
    return { verifyMs: performance.now() - start, ...(note ? { note } : {}) };
  }

  /** Before the result goes: an output file is complete when the coordinator reads it. */
  private async close(): Promise<void> {
    const { kindRun, agent, pool, clock } = this.prepared!;
    await clock?.close();
    await kindRun.close();
    agent()?.destroy();
    pool?.destroy();
  }

  /** An item never started because a stop was requested: counted as failed, never as measured. */
  private notSent(item: WorkItem): OpRecord {
    return {
      worker: this.job.workerIndex,
      item: item.index,
      offsetBytes: item.destOffsetBytes,
      bytes: 0,
      status: 0,
      startEpochMs: epochNow(),
      totalMs: 0,
      phases: {},
      reused: false,
      retries: 0,
      throttled: 0,
      backoffMs: 0,
      error: NOT_SENT_ERROR,
    };
  }

  /**
   * A stop: nothing new starts, requests in flight are aborted, checking does not wait. Items are
   * issued in order and at most a socket cap (or the in-flight limit) are out at once: everything
   * past the settled ones plus that cap was never sent. Returns that bound.
   */
  stopNow(): number {
    this.stop.abort();
    this.everyoneDone();
    if (this.stateNow === 'idle' || this.stateNow === 'prepared') return 0;
    const items = this.prepared!.items.length;
    // An open loop's lanes (its share of --max-in-flight) may be more than its sockets.
    const cap = Math.max(this.job.maxSockets, this.job.inFlight ?? 0, this.prepared!.lanes);
    return Math.min(items, this.done.ops + cap);
  }

  /** --autoterm: a steady run ends now. */
  finish(): void {
    this.finishing = true;
  }

  /** Every worker has finished: checking competes with no one's timed requests. */
  allDone(): void {
    this.everyoneDone();
  }

  /**
   * The signer and the SDK's credential read the job's target on every request: a renewed token goes there.
   */
  renew(bearer: Bearer): void {
    renewBearer(this.job.target, bearer);
  }
}
