// put: Put Blob (or Put Block for an item with a block id) through our transport; to a plain server a
// plain PUT, read back after every worker is done. Counted in MiB/s, or in ops/s for many small files
// (the workload says which); checked by the MD5 the service answered with, or of what was read back.
import { log } from '../log/logger.js';
import { contentMd5, FIXTURE_SEED } from '../payload/content.js';
import type { WorkItem } from '../plan/items.js';
import type { OpRecord } from '../metrics/records.js';
import { PLAIN_PUT_STATUSES } from '../storage/target.js';
import { readBackMd5 } from '../storage/url-store.js';
import { inLanes } from '../transport/lanes.js';
import type { HttpRequest } from '../transport/http-client.js';
import { wireHead } from '../transport/raw-client.js';
import { outcomeOf, requestWithRetries } from '../transport/retry.js';
import { contentUnit, type KindContext, type KindRun, type RequestKind } from './kind.js';
import { Payloads } from './payloads.js';
import { clientOf, toRecord, urlOf } from './requests.js';
import { verifyUploads } from './verify-upload.js';

export const kind: RequestKind = {
  name: 'put',
  unit: contentUnit,
  transport: true,
  async setup(ctx: KindContext): Promise<KindRun> {
    const payloads = await Payloads.of(ctx.items);
    const prepared = preparePuts(ctx, payloads);
    return {
      run: (item, _lane, queuedAt) => runPut(ctx, item, prepared?.get(item.index) ?? putOf(ctx, item, payloads.of(item)), queuedAt),
      // Uploads to a plain server are read back here, in every worker at once, over the sockets of the run.
      ...(ctx.job.readBack ? { check: (records, signal) => inLanes(ctx.items, ctx.job.maxSockets, async (item, n) => {
        if (records.error(n) !== undefined || signal.aborted) return;
        const back = await readBack(ctx, item, payloads.of(item));
        if (back.md5) records.setMd5(n, back.md5);
        else records.setReadBackError(n, back.error ?? 'no answer');
      }) } satisfies Partial<KindRun> : {}),
      close: async () => {},
    };
  },
  verify: verifyUploads,
};

/** One item's PUT: where, what, and the headers before signing. */
interface PutRequest {
  url: URL;
  payload: Buffer;
  /** Content-Length, and for a blob service the blob's type. */
  extra: Record<string, string>;
  /** The whole request, its head on the wire included, where nothing in it ever changes: made once, before the barrier. */
  fixed?: HttpRequest;
}

const BLOB_PUT_STATUSES: readonly number[] = [201];

/**
 * Put Blob, or Put Block when the item has a block id; to a plain URL, a plain PUT with only its
 * Content-Length.
 */
function putOf(ctx: KindContext, item: WorkItem, payload: Buffer): PutRequest {
  const url = urlOf(ctx, item);
  const extra: Record<string, string> = { 'content-length': String(payload.length) };
  if (item.blockId) {
    url.searchParams.set('comp', 'block');
    url.searchParams.set('blockid', item.blockId);
  } else if (ctx.job.target.kind !== 'url') {
    extra['x-ms-blob-type'] = 'BlockBlob';
    extra['content-type'] = 'application/octet-stream';
  }
  return { url, payload, extra };
}

/**
 * Every item's request made before the barrier, its head as bytes: where our raw client sends it,
 * the signer's headers never change (no date signed, no token renewed) and the items' URLs are
 * made before the barrier too (up to a bound on items). Otherwise none: each request is made as it goes.
 */
function preparePuts(ctx: KindContext, payloads: Payloads): Map<number, PutRequest> | undefined {
  if (!ctx.pool || !ctx.urls || !ctx.signer.fixedHeaders) return undefined;
  const prepared = new Map<number, PutRequest>();
  for (const item of ctx.items) {
    const put = putOf(ctx, item, payloads.of(item));
    const headers = ctx.signer.headers('PUT', put.url, { ...put.extra });
    const request = requestOf(ctx, put, headers);
    put.fixed = { ...request, head: wireHead(request) };
    prepared.set(item.index, put);
  }
  return prepared;
}

/**
 * A PUT, answered 201 by a blob service; to a plain URL 200, 201 (created) or 204 (overwritten).
 * `bytes` counts what was sent.
 */
function runPut(ctx: KindContext, item: WorkItem, put: PutRequest, queuedAt?: number): Promise<OpRecord> {
  const { job, signer, signal } = ctx;
  const client = clientOf(ctx);
  const { url, payload, fixed } = put;
  const plain = job.target.kind === 'url';
  // Promises chained, not async functions: each async layer was a few hundred bytes of garbage a request.
  const attempt = (n: number) => {
    const q = n === 0 ? queuedAt : undefined;
    const request = fixed ? (q === undefined ? fixed : { ...fixed, queuedAt: q }) : requestOf(ctx, put, signer.headers('PUT', url, { ...put.extra }), q);
    if (log.isSillyEnabled()) log.silly(`PUT ${url.toString()} ${JSON.stringify(request.headers)}`);
    return client.request(request).then(outcomeOf);
  };
  const label = () => `${job.strategy} PUT ${item.blob} #${item.index}`;
  return requestWithRetries(attempt, { maxRetries: job.maxRetries, label, signal, queuedAt }).then((retried) => {
    const record = toRecord(job, item, retried, retried.error ? 0 : payload.length);
    // Put Blob answers with the MD5 the service computed of what it stored: verification needs no read-back.
    if (!retried.error && !plain && !item.blockId) {
      const md5 = retried.headers['content-md5'];
      if (typeof md5 === 'string') record.md5 = md5;
    }
    return record;
  });
}

/** The request for `put` with these (signed) headers, issued at `queuedAt` where it waited in a queue of ours. */
function requestOf(ctx: KindContext, put: PutRequest, headers: Record<string, string>, queuedAt?: number): HttpRequest {
  const { job, signal } = ctx;
  const expectStatus = job.target.kind === 'url' ? PLAIN_PUT_STATUSES : BLOB_PUT_STATUSES;
  return { url: put.url, method: 'PUT', body: put.payload, headers, timeoutMs: job.timeoutMs, expectStatus, trace: job.trace, signal, queuedAt };
}

/**
 * An upload to a plain server, read back after the timed section over this worker's own sockets and
 * compared with `payload`, what was sent: the MD5 of what came back (or undefined when the GET
 * failed, with the reason in `error`).
 */
function readBack(ctx: KindContext, item: WorkItem, payload: Buffer): Promise<{ md5?: string; error?: string }> {
  const expected = { bytes: payload, md5: contentMd5(FIXTURE_SEED, item.destOffsetBytes, item.lengthBytes) };
  return readBackMd5(clientOf(ctx), ctx.signer, urlOf(ctx, item), item, ctx.job.timeoutMs, expected);
}
