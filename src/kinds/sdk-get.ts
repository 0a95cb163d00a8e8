// sdk-get: the SDK's downloadToBuffer with our block size and concurrency (a baseline: only its
// total time is visible). MiB/s for one object, ops/s for many files; checked as our GETs are.
import { nodeCrypto } from '../startup/lazy.js';
import type { BlockBlobClient } from '@azure/storage-blob';
import { largestBytes, type WorkItem } from '../plan/items.js';
import type { OpRecord } from '../metrics/records.js';
import type { KindJob } from './job.js';
import { contentUnit, type KindContext, type KindRun, type RequestKind } from './kind.js';
import { timed } from './requests.js';
import { sdkClients } from './sdk-clients.js';
import { openJobSink, sinkCheck } from '../sinks/check.js';
import { verifyGets } from '../verify/download.js';

export const kind: RequestKind = {
  name: 'sdk-get',
  unit: contentUnit,
  transport: false,
  async setup(ctx: KindContext): Promise<KindRun> {
    const { job, items } = ctx;
    const sdk = await sdkClients(job, items, ctx.sdkAgent);
    // The SDK's downloads land where ours do with the memory sink: each item at its place in one
    // buffer, checked after the timed section (hashing each file in its lane, between requests, would
    // put the MD5 inside the SDK's span and not ours). Other sinks: a buffer per
    // lane, each file hashed as it ends, as ours hash as the bytes come.
    const sink = job.sink === 'memory' ? await openJobSink(ctx) : undefined;
    const check = sinkCheck(ctx, sink);
    const largest = largestBytes(items);
    const buffers = sink ? [] : Array.from({ length: ctx.lanes }, () => Buffer.allocUnsafeSlow(largest));
    return {
      agent: sdk.agent,
      run: (item, lane) =>
        runSdkDownload(
          job,
          sdk.clients.get(item.index)!,
          item,
          sink ? sink.slot!(item) : buffers[lane]!,
          !sink,
        ),
      ...(check ? { check } : {}),
      close: async () => {
        await sink?.close();
        sdk.agent.destroy();
      },
    };
  },
  verify: verifyGets,
};

/**
 * `into`: a buffer made before the barrier, as our memory sink's is: without one, downloadToBuffer
 * allocates inside its call. With the memory sink it is the item's own place in the sink, its pages
 * touched before the barrier for both alike (`hash` false: checked after the run, as ours are);
 * otherwise its lane's buffer (page faults come with the first writes), and the bytes are hashed
 * before the lane uses it again.
 */
async function runSdkDownload(
  job: KindJob,
  client: BlockBlobClient,
  item: WorkItem,
  into: Buffer,
  hash = true,
): Promise<OpRecord> {
  const blockSize = job.blockSizeBytes ?? Math.max(1, Math.ceil(item.lengthBytes / job.concurrency));
  const buffer = into.subarray(0, item.lengthBytes);
  const rec = await timed(item, job.workerIndex, item.lengthBytes, () =>
    item.lengthBytes === 0
      ? Promise.resolve(Buffer.alloc(0))
      : client.downloadToBuffer(buffer, 0, item.lengthBytes, {
          blockSize,
          concurrency: job.concurrency,
          maxRetryRequestsPerBlock: 0,
        }),
  );
  const { value, ...record } = rec;
  if (hash && value instanceof Buffer)
    record.md5 = nodeCrypto().createHash('md5').update(value).digest('base64');
  return record;
}
