// How a worker carries out one item: instrumented GET or PUT through the capped agent, or the
// SDK's own transfer calls for the baselines (only their total time is visible). The SDK's clients
// are made before the barrier, like our URLs and payloads: only the transfer call is timed.
import { createHash } from 'node:crypto';
import type http from 'node:http';
import type { BlockBlobClient, ContainerClient } from '@azure/storage-blob';
import { performance } from 'node:perf_hooks';
import { log } from '../log/logger.js';
import { contentMd5, FIXTURE_SEED } from '../payload/content.js';
import { decodeItems } from '../strategies/items.js';
import type { WorkItem } from '../strategies/strategy.js';
import { containerClient, PLAIN_PUT_STATUSES, RequestSigner } from '../storage/target.js';
import { readBackMd5 } from '../storage/url-store.js';
import type { HttpClient } from '../transport/http-client.js';
import type { RawPool } from '../transport/raw-client.js';
import { createAgent, NodeHttpClient } from '../transport/request.js';
import { outcomeOf, requestWithRetries, type RetriedResult } from '../transport/retry.js';
import { bodyOverrun, rangeMismatch } from '../transport/ranged-body.js';
import type { OpRecord, WorkerJob } from './protocol.js';
import type { Sink } from './sinks.js';

export interface ExecContext {
  job: WorkerJob;
  signer: RequestSigner;
  agent: http.Agent;
  /** Our raw client's pool; unset: requests go through node:http's agent. */
  pool?: RawPool;
  /** Each item's URL, made before the barrier; unset past a bound on items (then made per request, ~2 µs). */
  urls?: ReadonlyMap<number, URL>;
  /** A stop: aborts requests in flight and retry backoffs. */
  signal?: AbortSignal;
}

export function urlOf(ctx: ExecContext, item: WorkItem): URL {
  return ctx.urls?.get(item.index) ?? ctx.signer.blobUrl(item.blob);
}

/** One node:http client per agent, made on first use. */
const nodeClients = new WeakMap<http.Agent, HttpClient>();

/** Our raw pool when there is one, else node:http through the context's agent. */
export function clientOf(ctx: ExecContext): HttpClient {
  if (ctx.pool) return ctx.pool;
  let client = nodeClients.get(ctx.agent);
  if (!client) nodeClients.set(ctx.agent, (client = new NodeHttpClient(ctx.agent, ctx.job.bufferSizeBytes)));
  return client;
}

/**
 * --connections warm: `count` connections opened before the barrier, by as many HEAD requests at
 * once to the first item's URL (any answer leaves a keep-alive socket; 404 for an upload not made
 * yet is fine). Through `agent` for the SDK's own agent, else through this worker's client.
 * Returns how many got an answer: the sockets that are open and idle when the run starts.
 */
export async function warmConnections(ctx: ExecContext, url: URL, count: number, agent?: http.Agent): Promise<number> {
  const client = agent ? new NodeHttpClient(agent) : clientOf(ctx);
  const answers = await Promise.all(Array.from({ length: count }, () =>
    client.request({ url, method: 'HEAD', headers: ctx.signer.headers('HEAD', url), timeoutMs: ctx.job.timeoutMs, trace: false, expectStatus: [] })));
  return answers.filter((a) => a.status > 0).length;
}

/** `bytes`: what the item moved, which for a GET resumed by retries is more than the last try's. */
export function toRecord(job: WorkerJob, item: WorkItem, r: RetriedResult, bytes: number): OpRecord {
  return {
    worker: job.workerIndex, item: item.index, offsetBytes: item.destOffsetBytes, bytes, status: r.status, startEpochMs: r.startEpochMs,
    totalMs: r.totalMs, phases: r.phases, reused: r.reused, retries: r.retries, throttled: r.throttled, backoffMs: r.backoffMs, error: r.error,
  };
}

export async function runGet(ctx: ExecContext, item: WorkItem, sink: Sink, queuedAt?: number): Promise<OpRecord> {
  const { job, signer, signal } = ctx;
  const client = clientOf(ctx);
  const url = urlOf(ctx, item);
  const writer = sink.writer(item);
  const first = item.range?.offsetBytes ?? 0;
  let received = 0;
  const label = `${job.strategy} GET ${item.blob ?? url.host} #${item.index}`;
  const retried = await requestWithRetries(async (n) => {
    // A retry resumes where the body broke: only the bytes not yet delivered are asked for.
    const extra: Record<string, string> = {};
    const ranged = item.range !== undefined || received > 0;
    if (ranged) extra[job.target.kind === 'blob' ? 'x-ms-range' : 'range'] = `bytes=${first + received}-${first + item.lengthBytes - 1}`;
    const headers = signer.headers('GET', url, extra);
    if (log.isSillyEnabled()) log.silly(`GET ${url.toString()} ${JSON.stringify(headers)}`);
    const before = received;
    let overrun = false;
    const onData = (chunk: Buffer) => {
      const room = item.lengthBytes - received;
      // A byte past what was asked for ends the request (the throw aborts it): an endless body included.
      if (chunk.length > room) {
        overrun = true;
        throw new Error(bodyOverrun(item.lengthBytes));
      }
      received += chunk.length;
      return writer.onData(chunk);
    };
    const expectStatus = ranged ? [206] : [200];
    const result = await client.request({
      url, headers, timeoutMs: job.timeoutMs, trace: job.trace, expectStatus, onData, signal, queuedAt: n === 0 ? queuedAt : undefined,
    });
    result.bytes = received - before;
    if (ranged && result.status === 200) {
      return { result, error: `server ignored the Range header (HTTP 200 where 206 was expected)`, retryable: false };
    }
    const wrong = overrun ? bodyOverrun(item.lengthBytes) : ranged && result.status === 206 ? rangeMismatch(result.headers, first + before, first + item.lengthBytes - 1) : undefined;
    if (wrong) return { result, error: wrong, retryable: false };
    if (!result.error && received < item.lengthBytes) {
      return { result, error: `SHORT_BODY: ${received} of ${item.lengthBytes} bytes`, retryable: true };
    }
    return outcomeOf(result);
  }, { maxRetries: job.maxRetries, label, signal, queuedAt });
  const md5 = await writer.done();
  const record = toRecord(job, item, retried, received);
  if (md5 && !record.error) record.md5 = md5;
  return record;
}

/**
 * Put Blob, or Put Block when the item has a block id; to a plain URL, a plain PUT with only its
 * Content-Length, answered 200, 201 (created) or 204 (overwritten). `bytes` counts what was sent.
 */
export async function runPut(ctx: ExecContext, item: WorkItem, payload: Buffer, queuedAt?: number): Promise<OpRecord> {
  const { job, signer, signal } = ctx;
  const client = clientOf(ctx);
  const url = urlOf(ctx, item);
  const extra: Record<string, string> = { 'content-length': String(payload.length) };
  const plain = job.target.kind === 'url';
  if (item.blockId) {
    url.searchParams.set('comp', 'block');
    url.searchParams.set('blockid', item.blockId);
  } else if (!plain) {
    extra['x-ms-blob-type'] = 'BlockBlob';
    extra['content-type'] = 'application/octet-stream';
  }
  const expectStatus = plain ? PLAIN_PUT_STATUSES : [201];
  const retried = await requestWithRetries(async (n) => {
    const headers = signer.headers('PUT', url, { ...extra });
    if (log.isSillyEnabled()) log.silly(`PUT ${url.toString()} ${JSON.stringify(headers)}`);
    return outcomeOf(await client.request({
      url, method: 'PUT', body: payload, headers, timeoutMs: job.timeoutMs, expectStatus, trace: job.trace, signal, queuedAt: n === 0 ? queuedAt : undefined,
    }));
  }, { maxRetries: job.maxRetries, label: `${job.strategy} PUT ${item.blob} #${item.index}`, signal, queuedAt });
  const record = toRecord(job, item, retried, retried.error ? 0 : payload.length);
  // Put Blob answers with the MD5 the service computed of what it stored: verification needs no read-back.
  const md5 = retried.headers['content-md5'];
  if (!retried.error && !plain && !item.blockId && typeof md5 === 'string') record.md5 = md5;
  return record;
}

/**
 * An upload to a plain server, read back after the timed section over this worker's own sockets and
 * compared with `payload`, what was sent: the MD5 of what came back (or undefined when the GET
 * failed, with the reason in `error`).
 */
export function readBack(ctx: ExecContext, item: WorkItem, payload: Buffer): Promise<{ md5?: string; error?: string }> {
  const expected = { bytes: payload, md5: contentMd5(FIXTURE_SEED, item.destOffsetBytes, item.lengthBytes) };
  return readBackMd5(clientOf(ctx), ctx.signer, urlOf(ctx, item), item, ctx.job.timeoutMs, expected);
}

/** Times an SDK call as one operation. */
export async function timed(job: WorkItem, worker: number, bytes: number, call: () => Promise<unknown>): Promise<OpRecord & { value?: unknown }> {
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
    worker, item: job.index, offsetBytes: job.destOffsetBytes, bytes: error ? 0 : bytes,
    status: error ? 0 : 200, startEpochMs, totalMs, phases: {}, reused: false, retries: 0, throttled: 0, backoffMs: 0, error, value,
  };
}

/**
 * The SDK's client for each item, built before the barrier: imports and construction are setup.
 * They share one agent of this run's own, capped at MAX_SOCKETS like ours, and destroyed after the
 * run, so every run of the baseline opens fresh connections, as ours do.
 */
export interface SdkClients {
  clients: ReadonlyMap<number, BlockBlobClient>;
  container: ContainerClient;
  agent: http.Agent;
}

export async function sdkClients(job: WorkerJob): Promise<SdkClients> {
  if (job.target.kind !== 'blob') throw new Error(`${job.strategy} needs a blob target`);
  const agent = createAgent(new URL(job.target.endpoint), job.maxSockets, job.target.ca);
  const container = await containerClient(job.target, { agent });
  const clients = new Map<number, BlockBlobClient>();
  for (const i of decodeItems(job.items)) clients.set(i.index, container.getBlockBlobClient(i.blob!));
  return { agent, container, clients };
}

/**
 * `into`: a buffer made before the barrier, as our memory sink's is: without one, downloadToBuffer
 * allocates inside its call. The allocation is cheap (calloc: 0.4 ms for 80 MiB; page faults come
 * with the first writes, for both alike), so this is the same boundary for both, not a speed-up: the
 * SDK's span still exceeds the server's by ~30 ms at 80 MiB (BENCHMARKS.md). With the memory sink it
 * is the item's own place in the sink (`hash` false: hashed after the run, as ours are); otherwise
 * its lane's buffer, and the bytes are hashed before the lane uses it again.
 */
export async function runSdkDownload(job: WorkerJob, client: BlockBlobClient, item: WorkItem, into: Buffer, hash = true): Promise<OpRecord> {
  const blockSize = job.blockSizeBytes ?? Math.max(1, Math.ceil(item.lengthBytes / job.concurrency));
  const buffer = into.subarray(0, item.lengthBytes);
  const rec = await timed(item, job.workerIndex, item.lengthBytes, () =>
    item.lengthBytes === 0 ? Promise.resolve(Buffer.alloc(0)) : client.downloadToBuffer(buffer, 0, item.lengthBytes, { blockSize, concurrency: job.concurrency, maxRetryRequestsPerBlock: 0 }),
  );
  const { value, ...record } = rec;
  if (hash && value instanceof Buffer) record.md5 = createHash('md5').update(value).digest('base64');
  return record;
}

export async function runSdkUpload(job: WorkerJob, client: BlockBlobClient, item: WorkItem, payload: Buffer): Promise<OpRecord> {
  const { value: _, ...record } = await timed(item, job.workerIndex, payload.length, () =>
    client.uploadData(payload, { blockSize: job.blockSizeBytes, concurrency: job.concurrency, maxSingleShotSize: job.thresholdBytes }),
  );
  return record;
}

export async function runSdkSmallFile(job: WorkerJob, client: BlockBlobClient, item: WorkItem, payload: Buffer): Promise<OpRecord> {
  const { value, ...record } = await timed(item, job.workerIndex, payload.length, () => client.upload(payload, payload.length));
  // The service's own MD5 of what it stored, as for our Put Blob.
  const md5 = (value as { contentMD5?: Uint8Array } | undefined)?.contentMD5;
  if (!record.error && md5) record.md5 = Buffer.from(md5).toString('base64');
  return record;
}
