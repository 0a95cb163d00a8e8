// list: List Blobs page by page through our transport (each page one record: a listing is as fast
// as its pages); its names hashed in order so the coordinator checks every one. ops/s.
import { nodeCrypto } from '../startup/lazy.js';
import { log } from '../log/logger.js';
import type { WorkItem } from '../plan/items.js';
import type { OpRecord } from '../metrics/records.js';
import { listPageUrl, parseListPage } from '../storage/list-blobs.js';
import { outcomeOf, requestWithRetries } from '../transport/retry.js';
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
  const { job, signer, signal } = ctx;
  const info = blobServiceOf(job.target);
  if (!info || !item.list) throw new Error(`${job.strategy} lists a blob container`);
  const spec = item.list;
  const client = clientOf(ctx);
  const records: OpRecord[] = [];
  const hash = nodeCrypto().createHash('md5');
  let marker: string | undefined;
  do {
    const url = listPageUrl(info, spec, marker);
    let body: Buffer[] = [];
    let page: ReturnType<typeof parseListPage> | undefined;
    const first = records.length === 0;
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
          queuedAt: n === 0 && first ? queuedAt : undefined,
        });
        if (result.error) return outcomeOf(result);
        try {
          page = parseListPage(Buffer.concat(body).toString('utf8'));
        } catch (err) {
          return { result, error: `LIST_BODY: ${(err as Error).message}`, retryable: true };
        }
        return outcomeOf(result);
      },
      {
        maxRetries: job.maxRetries,
        label: `${job.strategy} LIST ${spec.prefix} page ${records.length + 1}`,
        signal,
        queuedAt: first ? queuedAt : undefined,
      },
    );
    const record = toRecord(
      job,
      item,
      retried,
      body.reduce((s, b) => s + b.length, 0),
    );
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
