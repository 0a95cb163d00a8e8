// A worker process: jobs one after another (it stays warm across a session's runs), each with one
// capped connection pool of its own and one tracer per request. It prepares (sinks, payloads, URLs,
// SDK clients) before the barrier, runs on 'go', and sends back raw records and encoded histograms.
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { PhaseHistograms } from '../metrics/histograms.js';
import { contentBuffer, FIXTURE_SEED } from '../payload/content.js';
import { registerSecret, setLogLevel } from '../log/logger.js';
import { removeScratchOf } from '../payload/scratch.js';
import { decodeItems, largestBytes } from '../strategies/items.js';
import type { WorkItem } from '../strategies/strategy.js';
import { RequestSigner } from '../storage/target.js';
import { RawPool } from '../transport/raw-client.js';
import { NOT_SENT_ERROR } from '../transport/http-client.js';
import { inLanes } from '../transport/lanes.js';
import { createAgent } from '../transport/request.js';
import { readBack, runGet, runPut, runSdkDownload, runSdkSmallFile, runSdkUpload, sdkClients, warmConnections, type ExecContext } from './executors.js';
import { runHead, runList, runSdkHead, runSdkList } from './metadata-executors.js';
import type { FromWorker, OpRecord, ToWorker, WorkerJob, WorkerResult, WorkerSummaryOfRecords } from './protocol.js';
import { openSink, type Sink } from './sinks.js';
import { countInto, emptyTotals, SteadyMeter } from './steady.js';
import { tallyRecords } from '../metrics/record-checks.js';
import { RecordTable } from '../metrics/record-table.js';

// A coordinator that is gone (killed, even with SIGKILL) ends the worker quietly: no EPIPE traces.
const send = (msg: FromWorker) => {
  if (!process.connected) return orphaned();
  process.send!(msg, undefined, {}, (err: Error | null) => {
    if (err) orphaned();
  });
};
/** The coordinator gone: nothing of it ran to clean up, so its scratch goes with this worker. */
function orphaned(): void {
  void removeScratchOf(current?.outPath).finally(() => process.exit(0));
}
const yieldToEvents = () => new Promise<void>((resolve) => setImmediate(resolve));
/** The job once the barrier released it, and how many of its items have settled. */
let released: { job: WorkerJob; items: number; settled: () => number } | undefined;
const epochNow = () => performance.timeOrigin + performance.now();
/** Items of a job whose URLs are made before the barrier (4.5 MiB of them). */
const PREBUILT_URLS = 10_000;

async function prepare(job: WorkerJob): Promise<(goEpochMs: number) => Promise<WorkerResult>> {
  setLogLevel(job.logLevel);
  const signer = new RequestSigner(job.target);
  // Items are made from their index as they are needed when the share is a file set.
  const items = decodeItems(job.items);
  const origin = signer.blobUrl(items.at(0)?.blob ?? 'x');
  const ca = job.target.kind === 'blob' ? job.target.ca : undefined;
  const agent = createAgent(origin, job.maxSockets, ca);
  const viaHttp = job.executor === 'http' || job.executor === 'put' || job.executor === 'list' || job.executor === 'head';
  const pool = viaHttp && job.httpClient !== 'node' ? new RawPool(origin, job.maxSockets, job.bufferSizeBytes, ca ? { ca } : undefined) : undefined;
  // Up to PREBUILT_URLS items, each URL is made here, before the barrier; past that, as its request
  // goes out (~2 µs): a URL object is ~450 B, most of a file's state at 100,000 files per worker.
  let urls: Map<number, URL> | undefined;
  if (viaHttp && items.length <= PREBUILT_URLS) {
    urls = new Map();
    for (const i of items) urls.set(i.index, signer.blobUrl(i.blob));
  }
  const ctx: ExecContext = { job, signer, agent, pool, urls, signal: stop.signal };
  // The SDK's downloads land where ours do with the memory sink: each item at its place in one
  // buffer, hashed after the timed section (hashing each file in its lane, between requests, put
  // ~0.2 ms of MD5 per 100 KiB file inside the SDK's span and not ours). Other sinks: a buffer per
  // lane, each file hashed as it ends, as ours hash as the bytes come.
  const sdkIntoSink = job.executor === 'sdk' && job.sink === 'memory';
  const sink: Sink | undefined = (job.executor === 'http' || sdkIntoSink) && items.length
    ? await openSink(job.sink, items, job.objectSizeBytes, job.outPath, job.hashRanges !== false)
    : undefined;
  // Upload payloads are generated before the barrier: generation never counts as upload time.
  const uploads = job.executor === 'put' || job.executor === 'sdk-upload' || job.executor === 'sdk-small-files';
  // One buffer per distinct content (its place in the seed's stream and its length), made here:
  // files that share a content share a buffer, and a request finds its own by the item's content.
  const payloads = new Map<string, Buffer>();
  const contentKey = (i: WorkItem) => `${i.destOffsetBytes}:${i.lengthBytes}`;
  const sdk = job.executor.startsWith('sdk') ? await sdkClients(job) : undefined;
  // Connections opened now are outside the timed span: the run measures requests on open sockets.
  const warmSockets = job.connections === 'warm' && items.length ? await warmConnections(ctx, origin, job.maxSockets, sdk?.agent) : undefined;
  if (uploads) {
    let sinceYield = 0;
    for (const i of items) {
      const key = contentKey(i);
      if (payloads.has(key)) continue;
      payloads.set(key, contentBuffer(FIXTURE_SEED, i.destOffsetBytes, i.lengthBytes));
      // Generation can take seconds: let a disconnect (the coordinator gone) or a stop get through.
      sinceYield += i.lengthBytes + 1024;
      if (sinceYield >= 16 * 1024 * 1024) {
        sinceYield = 0;
        await yieldToEvents();
      }
    }
  }

  // Items go through this many lanes (see the run below); the SDK's downloads get a buffer each.
  const lanes = Math.max(1, Math.min(items.length, job.inFlight ?? (viaHttp ? job.maxSockets : items.length)));
  const largest = largestBytes(items);
  const sdkBuffers = job.executor === 'sdk' && !sdkIntoSink ? Array.from({ length: lanes }, () => Buffer.allocUnsafeSlow(largest)) : [];

  // `queuedAt`: when the item counts as issued, so that waiting for a socket shows as `wait`.
  // A listing is one item of many pages: a record per page.
  const runItem = (n: number, queuedAt: number | undefined, lane: number): Promise<OpRecord | OpRecord[]> => {
    const item = items.at(n)!;
    if (stop.signal.aborted) return Promise.resolve(cancelled(job, item));
    switch (job.executor) {
      case 'http': return runGet(ctx, item, sink!, queuedAt);
      case 'sdk': return runSdkDownload(job, sdk!.clients.get(item.index)!, item, sdkIntoSink ? sink!.slot!(item) : sdkBuffers[lane]!, !sdkIntoSink);
      case 'list': return runList(ctx, item, queuedAt);
      case 'sdk-list': return runSdkList(job, sdk!.container, item);
      case 'head': return runHead(ctx, item, queuedAt);
      case 'sdk-head': return runSdkHead(job, sdk!.clients.get(item.index)!, item);
      case 'put': return runPut(ctx, item, payloads.get(contentKey(item))!, queuedAt);
      case 'sdk-upload': return runSdkUpload(job, sdk!.clients.get(item.index)!, item, payloads.get(contentKey(item))!);
      case 'sdk-small-files': return runSdkSmallFile(job, sdk!.clients.get(item.index)!, item, payloads.get(contentKey(item))!);
    }
  };

  return async (goEpochMs: number) => {
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    const cpu0 = process.cpuUsage();
    const startEpochMs = epochNow();
    // Progress for a live display: finished items and their bytes, a few times a second.
    const done = { ops: 0, bytes: 0, errors: 0, retries: 0 };
    released = { job, items: items.length, settled: () => done.ops };
    const ticker = setInterval(() => send({ type: 'progress', ...done }), 250);
    const steady = job.steady;
    const meter = steady ? new SteadyMeter(goEpochMs, steady.intervalMs) : undefined;
    // Every request is counted once, as it settles: progress, and a steady run's meter.
    const count = (r: OpRecord) => {
      done.ops++;
      done.bytes += r.bytes;
      done.retries += r.retries;
      if (r.error) done.errors++;
      meter?.add(r);
    };
    const counted = (p: Promise<OpRecord | OpRecord[]>) => p.then((got) => {
      if (Array.isArray(got)) got.forEach(count);
      else count(got);
      return got;
    });
    // Items go out in order through a fixed number of lanes, never queued in bulk: memory stays flat
    // in the item count (issuing 1,000,000 requests at once held them all). Without an in-flight
    // limit there is a lane per socket, and every item counts as issued at the start, as if all had
    // been sent at once to wait for a socket: `wait` keeps that meaning.
    // A steady run (--duration) goes round its items until the deadline or a 'finish': each lane
    // takes the next item when its last one ends, so there is no queue to wait in; records keep
    // each item's last request (what verification and cleanup need), the meter counts every one.
    // One row per item (a steady run writes each item's latest request over its last), as columns:
    // ~110 bytes a request where an object was ~400. A listing's pages are kept apart, then appended.
    const table = new RecordTable(items.length);
    const pages: OpRecord[][] = [];
    const settle = (n: number, got: OpRecord | OpRecord[]) => {
      if (Array.isArray(got)) pages[n] = got;
      else table.set(n, got);
    };
    const deadlineEpochMs = steady ? goEpochMs + steady.durationMs : Infinity;
    let stoppedEpochMs = Infinity;
    const more = (k: number) => {
      if (!steady) return k < items.length;
      if (stop.signal.aborted || finishing || epochNow() >= deadlineEpochMs) {
        stoppedEpochMs = Math.min(stoppedEpochMs, epochNow());
        return false;
      }
      return true;
    };
    const issuedAt = job.inFlight || steady ? undefined : performance.now();
    let next = 0;
    await Promise.all(Array.from({ length: items.length ? lanes : 0 }, async (_, lane) => {
      while (more(next)) {
        const n = next++ % items.length;
        settle(n, await counted(runItem(n, issuedAt, lane)));
      }
    }));
    clearInterval(ticker);
    const endEpochMs = epochNow();
    // A steady run stopped before its first lap ended: the items never sent count as such.
    for (let n = 0; n < items.length; n++) if (!table.has(n) && !pages[n]) settle(n, cancelled(job, items.at(n)!));
    const records = pages.length ? RecordTable.from(pages.flatMap((got, n) => got ?? [table.at(n)!])) : table;
    // Checking waits for the coordinator's word that every worker is done (or a stop).
    const checks = (sink !== undefined && job.hashRanges !== false) || job.readBack === true;
    const mayCheck = checks ? new Promise<void>((resolve) => { allDone = resolve; }) : undefined;
    // At once, so that a step after all workers (an upload's commit) does not wait on results packing.
    send({ type: 'finished', failedItems: records.failedRows().length });
    const cpu = process.cpuUsage(cpu0);
    loopDelay.disable();
    if (mayCheck && !stop.signal.aborted) await mayCheck;
    allDone = undefined;
    // Verification happens after the timed section, except for discard which hashes as it goes.
    const verifyStart = performance.now();
    if (sink) {
      // A sink is for GETs, ours and the SDK's: one record per item.
      // A sink that hashed as the bytes came (discard) gave each record its MD5 as it settled.
      if (job.hashRanges !== false && !sink.hashesAsItGoes) for (let n = 0; n < items.length; n++) if (records.error(n) === undefined) records.setMd5(n, await sink.md5Of(items.at(n)!));
      await sink.close();
    }
    // Uploads to a plain server are read back here, in every worker at once, over the sockets of the run.
    if (job.readBack && !stop.signal.aborted) {
      await inLanes(items, job.maxSockets, async (item, n) => {
        if (records.error(n) !== undefined || stop.signal.aborted) return;
        const back = await readBack(ctx, item, payloads.get(contentKey(item))!);
        if (back.md5) records.setMd5(n, back.md5);
        else records.setReadBackError(n, back.error ?? 'no answer');
      });
    }
    const verifyMs = performance.now() - verifyStart;
    agent.destroy();
    pool?.destroy();
    sdk?.agent.destroy();
    const histograms = meter?.histograms ?? new PhaseHistograms();
    if (!meter) records.recordInto(histograms);
    // Many files: what the coordinator needs of all the records is made here, and it gets a sample.
    let summary: WorkerSummaryOfRecords | undefined;
    let sent = records;
    if (job.summary && !meter) {
      const totals = emptyTotals();
      for (const r of records) countInto(totals, r);
      const span = records.span();
      const tally = tallyRecords(job.summary.check, items, records, job.readBack === true);
      summary = { requests: records.length, totals, firstStartEpochMs: span.startEpochMs, lastEndEpochMs: span.endEpochMs, tally };
      sent = records.pick(records.sampledRows(job.summary.keepRecords, true));
    }
    return {
      workerIndex: job.workerIndex, records: sent.encode(), ...(summary ? { summary } : {}), histograms: histograms.encode(), startEpochMs, endEpochMs,
      cpuUserMs: cpu.user / 1000, cpuSystemMs: cpu.system / 1000, peakRssBytes: process.resourceUsage().maxRSS * 1024,
      eventLoopDelayP99Ms: loopDelay.percentile(99) / 1e6,
      ...(warmSockets === undefined ? {} : { warmSockets }),
      ...(verifyMs >= 0.5 ? { verifyMs } : {}),
      ...(meter ? { steady: meter.result(Math.floor(next / Math.max(1, items.length)), Math.min(stoppedEpochMs, endEpochMs)) } : {}),
    };
  };
}

/** An item never started because a stop was requested: counted as failed, never as measured. */
function cancelled(job: WorkerJob, item: WorkItem): OpRecord {
  return {
    worker: job.workerIndex, item: item.index, offsetBytes: item.destOffsetBytes, bytes: 0, status: 0,
    startEpochMs: epochNow(), totalMs: 0, phases: {}, reused: false, retries: 0, throttled: 0, backoffMs: 0,
    error: NOT_SENT_ERROR,
  };
}

// A stop from the coordinator: nothing new starts, and requests in flight are aborted.
const stop = new AbortController();
// Ctrl-C reaches the whole process group: the coordinator decides, workers finish what is in flight.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => {});
// A closed terminal hangs up the whole group too: the coordinator stops the run as on SIGTERM.
process.on('SIGHUP', () => {});

let run: ((goEpochMs: number) => Promise<WorkerResult>) | undefined;
/** A steady run is told to end now (--autoterm): nothing new is issued. */
let finishing = false;
/** The job this worker holds: a renewed token is put into its target. */
let current: WorkerJob | undefined;
/** Resolves the wait for every worker to be done before checking (the coordinator's 'verify', or a stop). */
let allDone: (() => void) | undefined;
process.on('message', (msg: ToWorker) => {
  if (msg.type === 'job') {
    released = undefined;
    current = msg.job;
    finishing = false;
    prepare(msg.job).then(
      (r) => {
        run = r;
        send({ type: 'ready' });
      },
      (err: Error) => send({ type: 'failed', message: err.message }),
    );
  } else if (msg.type === 'stop') {
    stop.abort();
    allDone?.();
    // Items are issued in order and at most a socket cap (or the in-flight limit) are out at once:
    // everything past the settled ones plus that cap was never sent.
    const sentBefore = released ? Math.min(released.items, released.settled() + Math.max(released.job.maxSockets, released.job.inFlight ?? 0)) : 0;
    send({ type: 'stopping', sentBefore });
  } else if (msg.type === 'finish') {
    finishing = true;
  } else if (msg.type === 'verify') {
    allDone?.();
  } else if (msg.type === 'token') {
    // The signer and the SDK's credential read the job's target on every request: the new token goes there.
    registerSecret(msg.bearer.token);
    if (current?.target.kind === 'blob') current.target.bearer = msg.bearer;
  } else if (msg.type === 'go') {
    run!(msg.epochMs).then(
      (result) => send({ type: 'done', result }),
      (err: Error) => send({ type: 'failed', message: err.message }),
    );
  }
});
process.on('disconnect', orphaned);
