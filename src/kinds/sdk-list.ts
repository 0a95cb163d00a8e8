// sdk-list: the SDK's listBlobsFlat().byPage({ maxPageSize }) over the same prefixes: a baseline.
// ops/s; its names checked as our listing's are.
import { nodeCrypto } from '../startup/lazy.js';
import type { ContainerClient } from '@azure/storage-blob';
import type { WorkItem } from '../plan/items.js';
import type { OpRecord } from '../metrics/records.js';
import type { KindJob } from './job.js';
import type { KindContext, KindRun, RequestKind } from './kind.js';
import { timed } from './requests.js';
import { sdkClients } from './sdk-clients.js';
import { verifyListings } from '../verify/many.js';

export const kind: RequestKind = {
  name: 'sdk-list',
  unit: () => 'ops/s',
  transport: false,
  async setup(ctx: KindContext): Promise<KindRun> {
    const sdk = await sdkClients(ctx.job, ctx.items, ctx.sdkAgent);
    return {
      agent: sdk.agent,
      run: (item) => runSdkList(ctx.job, sdk.container, item),
      close: async () => sdk.agent.destroy(),
    };
  },
  verify: verifyListings,
};

/**
 * The SDK's listBlobsFlat().byPage({ maxPageSize }): each page timed from asking for it to having
 * it (the SDK gives no per-request phases and no body size).
 */
async function runSdkList(job: KindJob, container: ContainerClient, item: WorkItem): Promise<OpRecord[]> {
  const spec = item.list!;
  const pages = container.listBlobsFlat({ prefix: spec.prefix }).byPage({ maxPageSize: spec.pageSize });
  const records: OpRecord[] = [];
  const hash = nodeCrypto().createHash('md5');
  for (;;) {
    const rec = await timed(item, job.workerIndex, 0, () => pages.next());
    const { value, ...record } = rec;
    const step = value as IteratorResult<{ segment: { blobItems: { name: string }[] } }> | undefined;
    if (!record.error && step?.done) break;
    records.push(record);
    if (record.error || !step) break;
    for (const b of step.value.segment.blobItems) hash.update(`${b.name}\n`);
    record.objects = step.value.segment.blobItems.length;
  }
  const last = records.at(-1);
  if (last && !last.error) last.md5 = hash.digest('base64');
  return records;
}
