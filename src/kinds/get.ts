// get: a GET of an item's bytes (a whole object or a range) through our transport, into the job's
// sink; a retry resumes where the body broke. MiB/s for one object, ops/s for many files; checked by MD5.
import { log } from '../log/logger.js';
import type { WorkItem } from '../plan/items.js';
import type { OpRecord } from '../metrics/records.js';
import { bodyOverrun, rangeMismatch } from '../transport/ranged-body.js';
import { outcomeOf, requestWithRetries } from '../transport/retry.js';
import { contentUnit, type KindContext, type KindRun, type RequestKind } from './kind.js';
import { hedgePolicy } from '../hedge/for-job.js';
import type { GetWatch } from '../hedge/policy.js';
import { clientOf, toRecord, urlOf } from './requests.js';
import { openJobSink, sinkCheck } from '../sinks/check.js';
import type { Sink } from '../sinks/sinks.js';
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
  const { job, signer } = ctx;
  const signal = watch?.signal ?? ctx.signal;
  const client = clientOf(ctx);
  const url = urlOf(ctx, item);
  const writer = sink.writer(item);
  const first = item.range?.offsetBytes ?? 0;
  let received = 0;
  const label = `${job.strategy} GET ${item.blob ?? url.host} #${item.index}`;
  const retried = await requestWithRetries(
    async (n) => {
      // A retry resumes where the body broke: only the bytes not yet delivered are asked for.
      const extra: Record<string, string> = {};
      const ranged = item.range !== undefined || received > 0;
      if (ranged)
        extra[traitsOf(job.target).rangeHeader] = `bytes=${first + received}-${first + item.lengthBytes - 1}`;
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
        if (watch?.onFirstByte && received === 0 && chunk.length > 0) watch.onFirstByte();
        received += chunk.length;
        return writer.onData(chunk);
      };
      const expectStatus = ranged ? [206] : [200];
      const result = await client.request({
        url,
        headers,
        timeoutMs: job.timeoutMs,
        trace: job.trace,
        expectStatus,
        onData,
        signal,
        queuedAt: n === 0 ? queuedAt : undefined,
        watch: watch?.sent,
      });
      result.bytes = received - before;
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
      if (!result.error && received < item.lengthBytes) {
        return { result, error: `SHORT_BODY: ${received} of ${item.lengthBytes} bytes`, retryable: true };
      }
      return outcomeOf(result);
    },
    { maxRetries: job.maxRetries, label, signal, queuedAt },
  );
  const md5 = await writer.done();
  const record = toRecord(job, item, retried, received);
  if (md5 && !record.error) record.md5 = md5;
  return record;
}
