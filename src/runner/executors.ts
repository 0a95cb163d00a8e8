// How a worker carries out one item: instrumented GET or PUT through the capped agent, or the
// SDK's own transfer calls for the baselines (only their total time is visible).
import { createHash } from 'node:crypto';
import type http from 'node:http';
import { performance } from 'node:perf_hooks';
import { log } from '../log.js';
import type { WorkItem } from '../strategies/strategy.js';
import { containerClient, RequestSigner } from '../target/target.js';
import { tracedRequest, type TracedResult } from '../transport/request.js';
import type { OpRecord, WorkerJob } from './protocol.js';
import type { Sink } from './sinks.js';

export interface ExecContext {
  job: WorkerJob;
  signer: RequestSigner;
  agent: http.Agent;
}

function toRecord(job: WorkerJob, item: WorkItem, r: Pick<TracedResult, 'status' | 'bytes' | 'startEpochMs' | 'totalMs' | 'phases' | 'reused'>, error?: string): OpRecord {
  return {
    worker: job.workerIndex, item: item.index, blob: item.blob, offsetBytes: item.destOffsetBytes, bytes: r.bytes,
    status: r.status, startEpochMs: r.startEpochMs, totalMs: r.totalMs, phases: r.phases, reused: r.reused, retries: 0, error,
  };
}

export async function runGet(ctx: ExecContext, item: WorkItem, sink: Sink): Promise<OpRecord> {
  const { job, signer, agent } = ctx;
  const url = signer.blobUrl(item.blob);
  const extra: Record<string, string> = {};
  if (item.range) {
    const last = item.range.offsetBytes + item.range.lengthBytes - 1;
    extra[job.target.kind === 'blob' ? 'x-ms-range' : 'range'] = `bytes=${item.range.offsetBytes}-${last}`;
  }
  const writer = sink.writer(item);
  const headers = signer.headers('GET', url, extra);
  log.silly(`GET ${url.toString()} ${JSON.stringify(headers)}`);
  const r = await tracedRequest({
    url, method: 'GET', headers, agent,
    highWaterMark: job.bufferSizeBytes, onData: (chunk) => writer.onData(chunk),
  });
  await writer.done();
  let error = r.error;
  if (!error && r.bytes !== item.lengthBytes) {
    error = item.range && r.status === 200
      ? `server ignored the Range header (HTTP 200, ${r.bytes} bytes for a ${item.lengthBytes}-byte range)`
      : `expected ${item.lengthBytes} bytes, got ${r.bytes}`;
  }
  log.debug(`${job.strategy} GET ${item.blob ?? ''} #${item.index} ${r.status} ${r.bytes}B ${r.totalMs.toFixed(1)}ms reused=${r.reused}`);
  return toRecord(job, item, r, error);
}

/** Put Blob, or Put Block when the item has a block id. `bytes` counts what was sent. */
export async function runPut(ctx: ExecContext, item: WorkItem, payload: Buffer): Promise<OpRecord> {
  const { job, signer, agent } = ctx;
  const url = signer.blobUrl(item.blob);
  const extra: Record<string, string> = { 'content-length': String(payload.length) };
  if (item.blockId) {
    url.searchParams.set('comp', 'block');
    url.searchParams.set('blockid', item.blockId);
  } else {
    extra['x-ms-blob-type'] = 'BlockBlob';
    extra['content-type'] = 'application/octet-stream';
  }
  const headers = signer.headers('PUT', url, extra);
  log.silly(`PUT ${url.toString()} ${JSON.stringify(headers)}`);
  const r = await tracedRequest({ url, method: 'PUT', headers, agent, body: payload });
  const error = r.error ?? (r.status === 201 ? undefined : `HTTP ${r.status}`);
  log.debug(`${job.strategy} PUT ${item.blob} #${item.index} ${r.status} ${payload.length}B ${r.totalMs.toFixed(1)}ms reused=${r.reused}`);
  return toRecord(job, item, { ...r, bytes: error ? 0 : payload.length }, error);
}

/** Times an SDK call as one operation. */
async function timed(job: WorkItem, worker: number, bytes: number, call: () => Promise<unknown>): Promise<OpRecord & { value?: unknown }> {
  const start = performance.now();
  const startEpochMs = performance.timeOrigin + start;
  let value: unknown;
  let error: string | undefined;
  try {
    value = await call();
  } catch (err) {
    error = (err as Error).message.split('\n')[0];
  }
  const totalMs = performance.now() - start;
  return {
    worker, item: job.index, blob: job.blob, offsetBytes: job.destOffsetBytes, bytes: error ? 0 : bytes,
    status: error ? 0 : 200, startEpochMs, totalMs, phases: {}, reused: false, retries: 0, error, value,
  };
}

function blobTarget(job: WorkerJob) {
  if (job.target.kind !== 'blob') throw new Error(`${job.strategy} needs a blob target`);
  return job.target;
}

export async function runSdkDownload(job: WorkerJob, item: WorkItem): Promise<OpRecord> {
  const client = containerClient(blobTarget(job)).getBlobClient(item.blob!);
  const blockSize = Math.max(1, Math.ceil(item.lengthBytes / job.concurrency));
  const rec = await timed(item, job.workerIndex, item.lengthBytes, () =>
    item.lengthBytes === 0 ? Promise.resolve(Buffer.alloc(0)) : client.downloadToBuffer(0, item.lengthBytes, { blockSize, concurrency: job.concurrency, maxRetryRequestsPerBlock: 0 }),
  );
  const { value, ...record } = rec;
  if (value instanceof Buffer) record.md5 = createHash('md5').update(value).digest('base64');
  return record;
}

export async function runSdkUpload(job: WorkerJob, item: WorkItem, payload: Buffer): Promise<OpRecord> {
  const client = containerClient(blobTarget(job)).getBlockBlobClient(item.blob!);
  const { value: _, ...record } = await timed(item, job.workerIndex, payload.length, () =>
    client.uploadData(payload, { blockSize: job.blockSizeBytes, concurrency: job.concurrency, maxSingleShotSize: job.thresholdBytes }),
  );
  return record;
}

export async function runSdkSmallFile(job: WorkerJob, item: WorkItem, payload: Buffer): Promise<OpRecord> {
  const client = containerClient(blobTarget(job)).getBlockBlobClient(item.blob!);
  const { value: _, ...record } = await timed(item, job.workerIndex, payload.length, () => client.upload(payload, payload.length));
  return record;
}
