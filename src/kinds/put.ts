// put: Put Blob (or Put Block for an item with a block id) through our transport; to a plain server a
// plain PUT, read back after every worker is done. Counted in MiB/s, or in ops/s for many small files
// (the workload says which); checked by the MD5 the service answered with, or of what was read back.
import { performance } from 'node:perf_hooks';
import { log } from '../log/logger.js';
import { contentMd5, FIXTURE_SEED } from '../payload/content.js';
import type { WorkItem } from '../plan/items.js';
import type { OpRecord } from '../metrics/records.js';
import { readBackMd5 } from '../storage/url-store.js';
import { inLanes } from '../transport/lanes.js';
import type { Answered, HttpRequest, TracedResult } from '../transport/http-client.js';
import { wireHead } from '../transport/raw-client.js';
import { firstTry, outcomeOf, retryFrom, type Labelled, type RetriedResult } from '../transport/retry.js';
import { contentUnit, type KindContext, type KindRun, type RequestKind } from './kind.js';
import { Payloads } from '../kept/payloads.js';
import { clientOf, toRecord, urlOf } from './requests.js';
import { verifyUploads } from '../verify/upload.js';
import { traitsOf } from '../storage/target-info.js';

export const kind: RequestKind = {
  name: 'put',
  unit: contentUnit,
  transport: true,
  async setup(ctx: KindContext): Promise<KindRun> {
    const payloads = await Payloads.of(ctx.items, ctx.kept);
    const prepared = preparePuts(ctx, payloads);
    const send: KindRun['send'] = (item, _lane, queuedAt, done, fail) =>
      new PutCall(
        ctx,
        item,
        prepared?.get(item.index) ?? putOf(ctx, item, payloads.of(item)),
        queuedAt,
        done,
        fail,
      ).start();
    return {
      run: (item, lane, queuedAt) =>
        new Promise((resolve, reject) => send(item, lane, queuedAt, resolve, reject)),
      send,
      // Uploads to a plain server are read back here, in every worker at once, over the sockets of the run.
      ...(ctx.job.readBack
        ? ({
            check: (records, signal) =>
              inLanes(ctx.items, ctx.job.maxSockets, async (item, n) => {
                if (records.error(n) !== undefined || signal.aborted) return;
                const back = await readBack(ctx, item, payloads.of(item));
                if (back.md5) records.setMd5(n, back.md5);
                else records.setReadBackError(n, back.error ?? 'no answer');
              }),
          } satisfies Partial<KindRun>)
        : {}),
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
  /**
   * The whole request, its head on the wire included, where nothing in it ever changes: made once, before the
   * barrier.
   */
  fixed?: HttpRequest;
}

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
  } else Object.assign(extra, traitsOf(ctx.job.target).putHeaders);
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
 * One item's PUT: answered 201 by a blob service; to a plain URL 200, 201 (created) or 204
 * (overwritten). Its record (`bytes` counts what was sent) goes to `done`, maybe before start()
 * returns; `fail` takes a throw. One object a request, answered by the client through its method:
 * a first try that succeeds, nearly every one, makes no promise or closure on its way.
 */
class PutCall implements Answered, Labelled {
  private readonly ctx: KindContext;
  private readonly item: WorkItem;
  private readonly put: PutRequest;
  private readonly queuedAt: number | undefined;
  private readonly done: (r: OpRecord) => void;
  private readonly fail: (err: unknown) => void;
  /** The first try's start, or the queue's (performance.now() clock). */
  private readonly started: number;

  constructor(
    ctx: KindContext,
    item: WorkItem,
    put: PutRequest,
    queuedAt: number | undefined,
    done: (r: OpRecord) => void,
    fail: (err: unknown) => void,
  ) {
    this.ctx = ctx;
    this.item = item;
    this.put = put;
    this.queuedAt = queuedAt;
    this.done = done;
    this.fail = fail;
    this.started = queuedAt ?? performance.now();
  }

  start(): void {
    clientOf(this.ctx).send(this.request(0), this);
  }

  /** Try `n`'s request: the one made before the barrier where there is one. */
  private request(n: number): HttpRequest {
    const { ctx, put } = this;
    const q = n === 0 ? this.queuedAt : undefined;
    const fixed = put.fixed;
    const request = fixed
      ? q === undefined
        ? fixed
        : { ...fixed, queuedAt: q }
      : requestOf(ctx, put, ctx.signer.headers('PUT', put.url, { ...put.extra }), q);
    if (log.isSillyEnabled()) log.silly(`PUT ${put.url.toString()} ${JSON.stringify(request.headers)}`);
    return request;
  }

  label(): string {
    return `${this.ctx.job.strategy} PUT ${this.item.blob} #${this.item.index}`;
  }

  answered(result: TracedResult): void {
    let record: OpRecord | undefined;
    try {
      const first = firstTry(result, this.started, this);
      record = first && this.record(first);
    } catch (err) {
      // Called from inside a socket's read: a throw goes to the lane (the run fails), not up the socket.
      return this.fail(err);
    }
    if (record) return this.done(record);
    const { ctx } = this;
    const client = clientOf(ctx);
    retryFrom(
      result,
      (n) => client.request(this.request(n)).then(outcomeOf),
      { maxRetries: ctx.job.maxRetries, label: this, signal: ctx.signal, queuedAt: this.queuedAt },
      this.started,
    )
      .then((retried) => this.record(retried))
      .then(this.done, this.fail);
  }

  /**
   * Put Blob's answer carries the MD5 the service computed of what it stored: verification needs no
   * read-back.
   */
  private record(retried: RetriedResult): OpRecord {
    const { job } = this.ctx;
    const item = this.item;
    const record = toRecord(job, item, retried, retried.error ? 0 : this.put.payload.length);
    if (!retried.error && traitsOf(job.target).storesMd5 && !item.blockId) {
      const md5 = retried.headers['content-md5'];
      if (typeof md5 === 'string') record.md5 = md5;
    }
    return record;
  }
}

/**
 * The request for `put` with these (signed) headers, issued at `queuedAt` where it waited in a queue of ours.
 */
function requestOf(
  ctx: KindContext,
  put: PutRequest,
  headers: Record<string, string>,
  queuedAt?: number,
): HttpRequest {
  const { job, signal } = ctx;
  const expectStatus = traitsOf(job.target).putStatuses;
  return {
    url: put.url,
    method: 'PUT',
    body: put.payload,
    headers,
    timeoutMs: job.timeoutMs,
    expectStatus,
    trace: job.trace,
    signal,
    queuedAt,
  };
}

/**
 * An upload to a plain server, read back after the timed section over this worker's own sockets and
 * compared with `payload`, what was sent: the MD5 of what came back (or undefined when the GET
 * failed, with the reason in `error`).
 */
function readBack(
  ctx: KindContext,
  item: WorkItem,
  payload: Buffer,
): Promise<{ md5?: string; error?: string }> {
  const expected = { bytes: payload, md5: contentMd5(FIXTURE_SEED, item.destOffsetBytes, item.lengthBytes) };
  return readBackMd5(clientOf(ctx), ctx.signer, urlOf(ctx, item), item, ctx.job.timeoutMs, expected);
}
