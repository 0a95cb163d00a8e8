// get: a GET of an item's bytes (a whole object or a range) through our transport, into the job's
// sink; a retry resumes where the body broke. MiB/s for one object, ops/s for many files; checked by MD5.
import { log } from '../log/logger.js';
import type { WorkItem } from '../plan/items.js';
import type { OpRecord } from '../metrics/records.js';
import { bodyOverrun, rangeMismatch } from '../transport/ranged-body.js';
import { outcomeOf, requestWithRetries, type TryOutcome } from '../transport/retry.js';
import { contentUnit, type KindContext, type KindRun, type RequestKind } from './kind.js';
import { hedgePolicy } from '../hedge/for-job.js';
import type { GetWatch } from '../hedge/policy.js';
import type { HttpClient, StopSignal } from '../transport/http-client.js';
import { clientOf, toRecord, urlOf } from './requests.js';
import { openJobSink, sinkCheck } from '../sinks/check.js';
import type { ItemWriter, Sink } from '../sinks/sinks.js';
import { verifyGets } from '../verify/download.js';
import { traitsOf } from '../storage/target-info.js';

export const kind: RequestKind = {
  name: 'get',
  unit: contentUnit,
  transport: true,
  writesSink: true,
  async setup(ctx: KindContext): Promise<KindRun> {
    const sink = await openJobSink(ctx);
    const check = sinkCheck(ctx, sink);
    // Each item once, or hedged (--hedge): the policy decides, the kind does not ask which.
    const sending = hedgePolicy(ctx, sink, runGet);
    return {
      run: (item, _lane, queuedAt) => sending.run(item, queuedAt),
      ...(check ? { check } : {}),
      close: async () => {
        sending.close();
        await sink?.close();
      },
    };
  },
  verify: verifyGets,
};

/**
 * `watch`: told when each try is written to its socket, and once when the body's first byte came (--hedge).
 */
export async function runGet(
  ctx: KindContext,
  item: WorkItem,
  sink: Sink,
  queuedAt?: number,
  watch?: GetWatch,
): Promise<OpRecord> {
  const { job } = ctx;
  const signal = watch?.signal ?? ctx.signal;
  const client = clientOf(ctx);
  const url = urlOf(ctx, item);
  const get: OneGet = {
    ctx,
    item,
    client,
    url,
    writer: sink.writer(item),
    signal,
    queuedAt,
    watch,
    received: 0,
  };
  const label = `${job.strategy} GET ${item.blob ?? url.host} #${item.index}`;
  const retried = await requestWithRetries((n) => tryGet(get, n), {
    maxRetries: job.maxRetries,
    label,
    signal,
    queuedAt,
  });
  const md5 = await get.writer.done();
  const record = toRecord(job, item, retried, get.received);
  if (md5 && !record.error) record.md5 = md5;
  return record;
}

/** One item's GET across its tries: what each try needs, and the bytes delivered so far. */
interface OneGet {
  ctx: KindContext;
  item: WorkItem;
  client: HttpClient;
  url: URL;
  writer: ItemWriter;
  signal: StopSignal | undefined;
  queuedAt: number | undefined;
  watch: GetWatch | undefined;
  received: number;
}

/** Try `n` of a GET: a retry resumes where the body broke, asking only for the bytes not yet delivered. */
async function tryGet(get: OneGet, n: number): Promise<TryOutcome> {
  const { ctx, item, url, writer, watch } = get;
  const { job } = ctx;
  const first = item.range?.offsetBytes ?? 0;
  const extra: Record<string, string> = {};
  const ranged = item.range !== undefined || get.received > 0;
  if (ranged) {
    const range = `bytes=${first + get.received}-${first + item.lengthBytes - 1}`;
    extra[traitsOf(job.target).rangeHeader] = range;
  }
  const headers = ctx.signer.headers('GET', url, extra);
  if (log.isSillyEnabled()) log.silly(`GET ${url.toString()} ${JSON.stringify(headers)}`);
  const before = get.received;
  let overrun = false;
  const onData = (chunk: Buffer) => {
    const room = item.lengthBytes - get.received;
    // A byte past what was asked for ends the request (the throw aborts it): an endless body included.
    if (chunk.length > room) {
      overrun = true;
      throw new Error(bodyOverrun(item.lengthBytes));
    }
    if (watch?.onFirstByte && get.received === 0 && chunk.length > 0) watch.onFirstByte();
    get.received += chunk.length;
    return writer.onData(chunk);
  };
  const expectStatus = ranged ? [206] : [200];
  const result = await get.client.request({
    url,
    headers,
    timeoutMs: job.timeoutMs,
    trace: job.trace,
    expectStatus,
    onData,
    signal: get.signal,
    queuedAt: n === 0 ? get.queuedAt : undefined,
    watch: watch?.sent,
  });
  result.bytes = get.received - before;
  if (ranged && result.status === 200) {
    return {
      result,
      error: `server ignored the Range header (HTTP 200 where 206 was expected)`,
      retryable: false,
    };
  }
  const wrong = overrun
    ? bodyOverrun(item.lengthBytes)
    : ranged && result.status === 206
      ? rangeMismatch(result.headers, first + before, first + item.lengthBytes - 1)
      : undefined;
  if (wrong) return { result, error: wrong, retryable: false };
  if (!result.error && get.received < item.lengthBytes) {
    return { result, error: `SHORT_BODY: ${get.received} of ${item.lengthBytes} bytes`, retryable: true };
  }
  return outcomeOf(result);
}
