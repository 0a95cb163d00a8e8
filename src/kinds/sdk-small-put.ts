// sdk-small-put: the SDK's BlockBlobClient.upload per small file (one Put Blob each): a baseline. ops/s;
// checked by the MD5 the service answered with, as our Put Blob is.
import type { BlockBlobClient } from '@azure/storage-blob';
import type { WorkItem } from '../plan/items.js';
import type { OpRecord } from '../metrics/records.js';
import type { KindJob } from './job.js';
import type { RequestKind } from './kind.js';
import { timed } from './requests.js';
import { sdkUploads } from './sdk-clients.js';
import { verifyUploads } from '../verify/upload.js';

export const kind: RequestKind = {
  name: 'sdk-small-put',
  unit: () => 'ops/s',
  transport: false,
  setup: (ctx) => sdkUploads(ctx, runSdkSmallFile),
  verify: verifyUploads,
};

async function runSdkSmallFile(
  job: KindJob,
  client: BlockBlobClient,
  item: WorkItem,
  payload: Buffer,
): Promise<OpRecord> {
  const { value, ...record } = await timed(item, job.workerIndex, payload.length, () =>
    client.upload(payload, payload.length),
  );
  // The service's own MD5 of what it stored, as for our Put Blob.
  const md5 = (value as { contentMD5?: Uint8Array } | undefined)?.contentMD5;
  if (!record.error && md5) record.md5 = Buffer.from(md5).toString('base64');
  return record;
}
