// sdk-put: the SDK's uploadData with our block size, concurrency and threshold (maxSingleShotSize): a
// baseline. MiB/s; checked as our uploads are.
import type { BlockBlobClient } from '@azure/storage-blob';
import type { WorkItem } from '../plan/items.js';
import type { OpRecord } from '../metrics/records.js';
import type { KindJob } from './job.js';
import { contentUnit, type RequestKind } from './kind.js';
import { timed } from './requests.js';
import { sdkUploads } from './sdk-clients.js';
import { verifyUploads } from '../verify/upload.js';

export const kind: RequestKind = {
  name: 'sdk-put',
  unit: contentUnit,
  transport: false,
  setup: (ctx) => sdkUploads(ctx, runSdkUpload),
  verify: verifyUploads,
};

async function runSdkUpload(
  job: KindJob,
  client: BlockBlobClient,
  item: WorkItem,
  payload: Buffer,
): Promise<OpRecord> {
  const { value: _, ...record } = await timed(item, job.workerIndex, payload.length, () =>
    client.uploadData(payload, {
      blockSize: job.blockSizeBytes,
      concurrency: job.concurrency,
      maxSingleShotSize: job.thresholdBytes,
    }),
  );
  return record;
}
