// sdk-delete: the SDK's BlockBlobClient.delete() per blob: a baseline of our delete. What it
// deletes it first makes itself, before the barrier and untimed (the SDK's upload of the item's
// content), and after every worker is done each name must be gone (exists() false). ops/s;
// verified as our DELETEs are.
import type { BlockBlobClient } from '@azure/storage-blob';
import type { OpRecord } from '../metrics/records.js';
import type { RecordTable } from '../metrics/record-table.js';
import { inLanes } from '../transport/lanes.js';
import { verifyDeletes } from './delete.js';
import type { KindContext, KindRun, RequestKind } from './kind.js';
import { timed } from './requests.js';
import { sdkClients } from './sdk-clients.js';
import { Payloads } from '../kept/payloads.js';

export const kind: RequestKind = {
  name: 'sdk-delete',
  unit: () => 'ops/s',
  transport: false,
  async setup(ctx: KindContext): Promise<KindRun> {
    const sdk = await sdkClients(ctx.job, ctx.items, ctx.sdkAgent);
    const clientOf = (index: number) => sdk.clients.get(index)!;
    await makeTargets(ctx, clientOf);
    return {
      agent: sdk.agent,
      run: async (item) => {
        const { value: _answer, ...record } = await timed(item, ctx.job.workerIndex, 0, () =>
          clientOf(item.index).delete(),
        );
        return record satisfies OpRecord;
      },
      check: (records, signal) => checkGone(ctx, clientOf, records, signal),
      close: async () => sdk.agent.destroy(),
    };
  },
  verify: verifyDeletes,
};

/** Each item's blob uploaded before the barrier: a failure here fails the run before it starts. */
async function makeTargets(ctx: KindContext, clientOf: (index: number) => BlockBlobClient): Promise<void> {
  const payloads = await Payloads.of(ctx.items, ctx.kept);
  await inLanes(ctx.items, ctx.job.maxSockets, async (item) => {
    const payload = payloads.of(item);
    await clientOf(item.index).upload(payload, payload.length, { abortSignal: ctx.signal });
  });
}

/** After every worker is done: each blob deleted must no longer exist. */
async function checkGone(
  ctx: KindContext,
  clientOf: (index: number) => BlockBlobClient,
  records: RecordTable,
  signal: AbortSignal,
): Promise<void> {
  await inLanes(ctx.items, ctx.job.maxSockets, async (item, n) => {
    if (records.error(n) !== undefined || signal.aborted) return;
    try {
      if (await clientOf(item.index).exists({ abortSignal: signal }))
        records.setReadBackError(n, `${item.blob} still there`);
    } catch (err) {
      records.setReadBackError(n, `${item.blob}: ${(err as Error).message.split('\n')[0]}`);
    }
  });
}
