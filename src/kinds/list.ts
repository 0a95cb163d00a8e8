// list: List Blobs page by page through our transport (each page one record: a listing is as fast
// as its pages); its names hashed in order so the coordinator checks every one. ops/s.
import { nodeCrypto } from '../startup/lazy.js';
import { log } from '../log/logger.js';
import type { WorkItem } from '../plan/items.js';
import type { OpRecord } from '../metrics/records.js';
import { listPageUrl, parseListPage } from '../storage/list-blobs.js';
import { outcomeOf, requestWithRetries, type RetriedResult } from '../transport/retry.js';
import type { HttpClient } from '../transport/http-client.js';
import type { KindContext, KindRun, RequestKind } from './kind.js';
import { clientOf, toRecord } from './requests.js';
import { verifyListings } from '../verify/many.js';
import { blobServiceOf } from '../storage/target-info.js';

export const kind: RequestKind = {
  name: 'list',
  unit: () => 'ops/s',
  transport: true,
  async setup(ctx: KindContext): Promise<KindRun> {
    return { run: (item, _lane, queuedAt) => runList(ctx, item, queuedAt), close: async () => {} };
  },
  verify: verifyListings,
};

/** One stream of pages over the item's prefix, each page a request of its own. */
async function runList(ctx: KindContext, item: WorkItem, queuedAt?: number): Promise<OpRecord[]> {
  const { job } = ctx;
  const info = blobServiceOf(job.target);
  if (!info || !item.list) throw new Error(`${job.strategy} lists a blob container`);
  const spec = item.list;
  const client = clientOf(ctx);
  const records: OpRecord[] = [];
  const hash = nodeCrypto().createHash('md5');
  let marker: string | undefined;
  do {
    const { retried, bytes, page } = await listPage(ctx, client, listPageUrl(info, spec, marker), {
      label: `${job.strategy} LIST ${spec.prefix} page ${records.length + 1}`,
      queuedAt: records.length === 0 ? queuedAt : undefined,
    });
    const record = toRecord(job, item, retried, bytes);
    records.push(record);
    if (retried.error || !page) break;
    for (const name of [...page.names, ...page.prefixes]) hash.update(`${name}\n`);
    record.objects = page.names.length + page.prefixes.length;
    marker = page.nextMarker;
    if (log.isDebugEnabled())
      log.debug(
        `${job.strategy} ${spec.prefix}: page ${records.length}, ` +
          `${record.objects} name(s)${marker ? '' : ', last'}`,
      );
  } while (marker);
  const last = records.at(-1)!;
  if (!last.error) last.md5 = hash.digest('base64');
  return records;
}

/**
 * One page, with its retries: the outcome, the bytes of the last try's body, and the page as parsed
 * (absent where no try's body parsed). `queuedAt` only for the stream's first page.
 */
async function listPage(
  ctx: KindContext,
  client: HttpClient,
  url: URL,
  { label, queuedAt }: { label: string; queuedAt: number | undefined },
): Promise<{ retried: RetriedResult; bytes: number; page: ListPage | undefined }> {
  const { job, signer, signal } = ctx;
  let body: Buffer[] = [];
  let page: ListPage | undefined;
  const retried = await requestWithRetries(
    async (n) => {
      body = [];
      const headers = signer.headers('GET', url);
      // The raw client's chunks are views of its socket buffer: copied.
      const result = await client.request({
        url,
        headers,
        timeoutMs: job.timeoutMs,
        trace: job.trace,
        expectStatus: [200],
        signal,
        onData: (c) => void body.push(Buffer.from(c)),
        queuedAt: n === 0 ? queuedAt : undefined,
      });
      if (result.error) return outcomeOf(result);
      try {
        page = parseListPage(Buffer.concat(body).toString('utf8'));
      } catch (err) {
        return { result, error: `LIST_BODY: ${(err as Error).message}`, retryable: true };
      }
      return outcomeOf(result);
    },
    { maxRetries: job.maxRetries, label, signal, queuedAt },
  );
  return { retried, bytes: body.reduce((s, b) => s + b.length, 0), page };
}

type ListPage = ReturnType<typeof parseListPage>;
