// What every kind's requests share: an item's URL, the client they go through (our raw pool or
// node:http), a record from a retried request or a timed SDK call, and --connections warm's HEADs.
import type http from 'node:http';
import { performance } from 'node:perf_hooks';
import type { WorkItem } from '../plan/items.js';
import type { OpRecord } from '../metrics/records.js';
import type { HttpClient } from '../transport/http-client.js';
import { NodeHttpClient } from '../transport/request.js';
import type { RetriedResult } from '../transport/retry.js';
import type { KindContext } from './kind.js';
import type { RequestJob } from './job.js';

export function urlOf(ctx: KindContext, item: WorkItem): URL {
  return ctx.urls?.get(item.index) ?? ctx.signer.blobUrl(item.blob);
}

/** Our raw pool when there is one, else node:http through the context's agent (KindContext.client). */
export const clientOf = (ctx: Pick<KindContext, 'pool' | 'client'>): HttpClient => ctx.pool ?? ctx.client();

/**
 * --connections warm: `count` connections opened before the barrier, by as many HEAD requests at
 * once to the first item's URL (any answer leaves a keep-alive socket; 404 for an upload not made
 * yet is fine). Through `agent` for the SDK's own agent, else through this worker's client.
 * Returns how many got an answer: the sockets that are open and idle when the run starts.
 */
export async function warmConnections(
  ctx: Pick<KindContext, 'job' | 'signer' | 'pool' | 'client'>,
  url: URL,
  count: number,
  agent?: http.Agent,
): Promise<number> {
  const client = agent ? new NodeHttpClient(agent) : clientOf(ctx);
  const answers = await Promise.all(
    Array.from({ length: count }, () =>
      client.request({
        url,
        method: 'HEAD',
        headers: ctx.signer.headers('HEAD', url),
        timeoutMs: ctx.job.timeoutMs,
        trace: false,
        expectStatus: [],
      }),
    ),
  );
  return answers.filter((a) => a.status > 0).length;
}

/** `bytes`: what the item moved, which for a GET resumed by retries is more than the last try's. */
export function toRecord(job: RequestJob, item: WorkItem, r: RetriedResult, bytes: number): OpRecord {
  const record: OpRecord = {
    worker: job.workerIndex,
    item: item.index,
    offsetBytes: item.destOffsetBytes,
    bytes,
    status: r.status,
    startEpochMs: r.startEpochMs,
    totalMs: r.totalMs,
    phases: r.phases,
    reused: r.reused,
    retries: r.retries,
    throttled: r.throttled,
    backoffMs: r.backoffMs,
    error: r.error,
  };
  // Set only where there is one: a spread of an empty object is a second object for every request.
  if (r.throttledBy) record.throttledBy = r.throttledBy;
  if (r.faults) record.faults = r.faults;
  return record;
}

/** Times an SDK call as one operation. */
export async function timed(
  job: WorkItem,
  worker: number,
  bytes: number,
  call: () => Promise<unknown>,
): Promise<OpRecord & { value?: unknown }> {
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
    worker,
    item: job.index,
    offsetBytes: job.destOffsetBytes,
    bytes: error ? 0 : bytes,
    status: error ? 0 : 200,
    startEpochMs,
    totalMs,
    phases: {},
    reused: false,
    retries: 0,
    throttled: 0,
    backoffMs: 0,
    error,
    value,
  };
}
