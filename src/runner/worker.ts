// A worker process: one strategy, one capped agent pool, one tracer per request. It prepares before
// the barrier, runs on 'go', and sends back raw records and encoded histograms.
import { createHash } from 'node:crypto';
import { performance, monitorEventLoopDelay } from 'node:perf_hooks';
import { PhaseHistograms } from '../aggregate/histograms.js';
import { log, setLogLevel } from '../log.js';
import type { WorkItem } from '../strategies/strategy.js';
import { containerClient, RequestSigner } from '../target/target.js';
import { createAgent, tracedRequest } from '../transport/request.js';
import type { FromWorker, OpRecord, ToWorker, WorkerJob, WorkerResult } from './protocol.js';
import { openSink, type Sink } from './sinks.js';

const send = (msg: FromWorker) => process.send!(msg);
const epochNow = () => performance.timeOrigin + performance.now();

async function runHttpItem(job: WorkerJob, item: WorkItem, signer: RequestSigner, agent: ReturnType<typeof createAgent>, sink: Sink): Promise<OpRecord> {
  const url = signer.blobUrl(item.blob);
  const extra: Record<string, string> = {};
  if (item.range) {
    const last = item.range.offsetBytes + item.range.lengthBytes - 1;
    extra[job.target.kind === 'blob' ? 'x-ms-range' : 'range'] = `bytes=${item.range.offsetBytes}-${last}`;
  }
  const writer = sink.writer(item);
  const r = await tracedRequest({
    url, method: 'GET', headers: signer.headers('GET', url, extra), agent,
    highWaterMark: job.bufferSizeBytes, onData: (chunk) => writer.onData(chunk),
  });
  await writer.done();
  let error = r.error;
  if (!error && r.bytes !== item.lengthBytes) {
    error = item.range && r.status === 200
      ? `server ignored the Range header (HTTP 200, ${r.bytes} bytes for a ${item.lengthBytes}-byte range)`
      : `expected ${item.lengthBytes} bytes, got ${r.bytes}`;
  }
  log.debug(`${job.strategy} item ${item.index} ${item.blob ?? ''} ${r.status} ${r.bytes}B ${r.totalMs.toFixed(1)}ms reused=${r.reused}`);
  return {
    worker: job.workerIndex, item: item.index, blob: item.blob, offsetBytes: item.destOffsetBytes, bytes: r.bytes,
    status: r.status, startEpochMs: r.startEpochMs, totalMs: r.totalMs, phases: r.phases, reused: r.reused, retries: 0, error,
  };
}

async function runSdkItem(job: WorkerJob, item: WorkItem): Promise<{ record: OpRecord; md5?: string }> {
  if (job.target.kind !== 'blob') throw new Error('the sdk strategy needs a blob target');
  const client = containerClient(job.target).getBlobClient(item.blob!);
  const blockSize = Math.max(1, Math.ceil(item.lengthBytes / job.concurrency));
  const start = performance.now();
  const startEpochMs = epochNow();
  let buffer: Buffer | undefined;
  let error: string | undefined;
  try {
    buffer = item.lengthBytes === 0 ? Buffer.alloc(0) : await client.downloadToBuffer(0, item.lengthBytes, { blockSize, concurrency: job.concurrency, maxRetryRequestsPerBlock: 0 });
  } catch (err) {
    error = (err as Error).message.split('\n')[0];
  }
  const totalMs = performance.now() - start;
  const md5 = buffer ? createHash('md5').update(buffer).digest('base64') : undefined;
  return {
    record: {
      worker: job.workerIndex, item: item.index, blob: item.blob, offsetBytes: 0, bytes: buffer?.length ?? 0,
      status: error ? 0 : 200, startEpochMs, totalMs, phases: {}, reused: false, retries: 0, md5, error,
    },
    md5,
  };
}

async function prepare(job: WorkerJob): Promise<() => Promise<WorkerResult>> {
  setLogLevel(job.logLevel);
  const signer = new RequestSigner(job.target);
  const agent = createAgent(signer.blobUrl(job.items[0]?.blob ?? 'x'), job.maxSockets);
  const sink = job.executor === 'http' && job.items.length ? await openSink(job.sink, job.items, job.objectSizeBytes, job.outPath) : undefined;
  return async () => {
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    loopDelay.enable();
    const cpu0 = process.cpuUsage();
    const startEpochMs = epochNow();
    let records: OpRecord[];
    if (job.executor === 'sdk') {
      records = (await Promise.all(job.items.map((i) => runSdkItem(job, i)))).map((r) => r.record);
    } else {
      // Every item is issued at once; the agent's socket cap queues the rest (the `wait` phase).
      records = await Promise.all(job.items.map((i) => runHttpItem(job, i, signer, agent, sink!)));
    }
    const endEpochMs = epochNow();
    const cpu = process.cpuUsage(cpu0);
    loopDelay.disable();
    // Verification happens after the timed section, except for discard which hashes as it goes.
    if (sink) {
      for (const [n, item] of job.items.entries()) if (!records[n]!.error) records[n]!.md5 = await sink.md5Of(item);
      await sink.close();
    }
    agent.destroy();
    const histograms = new PhaseHistograms();
    for (const r of records) if (!r.error) histograms.record(r.phases, r.totalMs);
    return {
      workerIndex: job.workerIndex, records, histograms: histograms.encode(), startEpochMs, endEpochMs,
      cpuUserMs: cpu.user / 1000, cpuSystemMs: cpu.system / 1000, peakRssBytes: process.resourceUsage().maxRSS * 1024,
    };
  };
}

let run: (() => Promise<WorkerResult>) | undefined;
process.on('message', (msg: ToWorker) => {
  if (msg.type === 'job') {
    prepare(msg.job).then(
      (r) => {
        run = r;
        send({ type: 'ready' });
      },
      (err: Error) => send({ type: 'failed', message: err.message }),
    );
  } else if (msg.type === 'go') {
    run!().then(
      (result) => send({ type: 'done', result }),
      (err: Error) => send({ type: 'failed', message: err.message }),
    );
  }
});
process.on('disconnect', () => process.exit(0));
