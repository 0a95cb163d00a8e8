// sdk-head: the SDK's getProperties() per blob: a baseline. ops/s; checked as our HEADs are.
import type { BlockBlobClient } from '@azure/storage-blob';
import type { WorkItem } from '../plan/items.js';
import type { OpRecord } from '../metrics/records.js';
import type { KindJob } from './job.js';
import type { KindContext, KindRun, RequestKind } from './kind.js';
import { timed } from './requests.js';
import { sdkClients } from './sdk-clients.js';
import { verifyHeads } from '../verify/many.js';

export const kind: RequestKind = {
  name: 'sdk-head',
  unit: () => 'ops/s',
  transport: false,
  async setup(ctx: KindContext): Promise<KindRun> {
    const sdk = await sdkClients(ctx.job, ctx.items, ctx.sdkAgent);
    return {
      agent: sdk.agent,
      run: (item) => runSdkHead(ctx.job, sdk.clients.get(item.index)!, item),
      close: async () => sdk.agent.destroy(),
    };
  },
  verify: verifyHeads,
};

async function runSdkHead(job: KindJob, client: BlockBlobClient, item: WorkItem): Promise<OpRecord> {
  const { value, ...record } = await timed(item, job.workerIndex, 0, () => client.getProperties());
  const props = value as { contentLength?: number; contentMD5?: Uint8Array } | undefined;
  if (record.error || !props) return record;
  if (props.contentLength !== item.lengthBytes)
    return {
      ...record,
      status: 0,
      error: `CONTENT_LENGTH: ${props.contentLength} where ${item.lengthBytes} was expected`,
    };
  if (props.contentMD5) record.md5 = Buffer.from(props.contentMD5).toString('base64');
  return record;
}
