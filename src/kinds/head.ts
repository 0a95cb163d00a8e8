// head: Get Blob Properties (a HEAD) per blob through our transport: its Content-Length must be the
// file's, its Content-MD5 (where sent) is kept and checked. ops/s.
import type { WorkItem } from '../plan/items.js';
import type { OpRecord } from '../metrics/records.js';
import { outcomeOf, requestWithRetries } from '../transport/retry.js';
import type { KindContext, KindRun, RequestKind } from './kind.js';
import { clientOf, toRecord, urlOf } from './requests.js';
import { verifyHeads } from '../verify/many.js';

export const kind: RequestKind = {
  name: 'head',
  unit: () => 'ops/s',
  transport: true,
  async setup(ctx: KindContext): Promise<KindRun> {
    return { run: (item, _lane, queuedAt) => runHead(ctx, item, queuedAt), close: async () => {} };
  },
  verify: verifyHeads,
};

/**
 * Get Blob Properties (a HEAD): its Content-Length must be the file's; its Content-MD5, where sent, is kept.
 */
async function runHead(ctx: KindContext, item: WorkItem, queuedAt?: number): Promise<OpRecord> {
  const { job, signer, signal } = ctx;
  const client = clientOf(ctx);
  const url = urlOf(ctx, item);
  let md5: string | undefined;
  const retried = await requestWithRetries(
    async (n) => {
      const result = await client.request({
        url,
        method: 'HEAD',
        headers: signer.headers('HEAD', url),
        timeoutMs: job.timeoutMs,
        trace: job.trace,
        expectStatus: [200],
        signal,
        queuedAt: n === 0 ? queuedAt : undefined,
      });
      if (result.error) return outcomeOf(result);
      const length = Number(result.headers['content-length']);
      if (length !== item.lengthBytes)
        return {
          result,
          error: `CONTENT_LENGTH: ${result.headers['content-length']} where ${item.lengthBytes} was expected`,
          retryable: false,
        };
      const sent = result.headers['content-md5'];
      md5 = typeof sent === 'string' ? sent : undefined;
      return outcomeOf(result);
    },
    {
      maxRetries: job.maxRetries,
      label: `${job.strategy} HEAD ${item.blob} #${item.index}`,
      signal,
      queuedAt,
    },
  );
  const record = toRecord(job, item, retried, 0);
  if (md5 && !record.error) record.md5 = md5;
  return record;
}
