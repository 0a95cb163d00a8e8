// delete: Delete Blob (a DELETE) per item through our transport; to a plain server (WebDAV) a plain
// DELETE. What it deletes it first makes itself, before the barrier and untimed (a PUT of the item's
// content through the put kind), so that every DELETE removes an object that is there and a run
// leaves the names as it found them. Checked after every worker is done: each name must then be
// gone (a HEAD answered 404). ops/s.
import type { WorkItem } from '../plan/items.js';
import type { OpRecord } from '../metrics/records.js';
import type { RecordTable } from '../metrics/record-table.js';
import type { Verification } from '../results/record.js';
import { traitsOf } from '../storage/target-info.js';
import { inLanes } from '../transport/lanes.js';
import { outcomeOf, requestWithRetries } from '../transport/retry.js';
import { failedRequests } from '../verify/failed.js';
import type { KindContext, KindRun, RequestKind, VerifyInput } from './kind.js';
import { kind as put } from './put.js';
import { clientOf, toRecord, urlOf } from './requests.js';

export const kind: RequestKind = {
  name: 'delete',
  unit: () => 'ops/s',
  transport: true,
  async setup(ctx: KindContext): Promise<KindRun> {
    await makeTargets(ctx);
    return {
      run: (item, _lane, queuedAt) => runDelete(ctx, item, queuedAt),
      check: (records, signal) => checkGone(ctx, records, signal),
      close: async () => {},
    };
  },
  verify: verifyDeletes,
};

/** Each item's object, PUT before the barrier: a failure here fails the run before it starts. */
async function makeTargets(ctx: KindContext): Promise<void> {
  if (!ctx.items.length) return;
  const puts = await put.setup(ctx);
  try {
    await inLanes(ctx.items, ctx.job.maxSockets, async (item, n) => {
      const made = (await puts.run(item, n % ctx.lanes, undefined)) as OpRecord;
      if (made.error) throw new Error(`making ${item.blob} to delete it: ${made.error}`);
    });
  } finally {
    await puts.close();
  }
}

async function runDelete(ctx: KindContext, item: WorkItem, queuedAt?: number): Promise<OpRecord> {
  const { job, signer, signal } = ctx;
  const client = clientOf(ctx);
  const url = urlOf(ctx, item);
  const retried = await requestWithRetries(
    async (n) =>
      outcomeOf(
        await client.request({
          url,
          method: 'DELETE',
          headers: signer.headers('DELETE', url),
          timeoutMs: job.timeoutMs,
          trace: job.trace,
          expectStatus: traitsOf(job.target).deleteStatuses,
          signal,
          queuedAt: n === 0 ? queuedAt : undefined,
        }),
      ),
    {
      maxRetries: job.maxRetries,
      label: `${job.strategy} DELETE ${item.blob} #${item.index}`,
      signal,
      queuedAt,
    },
  );
  return toRecord(job, item, retried, 0);
}

/** After every worker is done: a HEAD of each name deleted must find nothing. */
async function checkGone(ctx: KindContext, records: RecordTable, signal: AbortSignal): Promise<void> {
  const client = clientOf(ctx);
  await inLanes(ctx.items, ctx.job.maxSockets, async (item, n) => {
    if (records.error(n) !== undefined || signal.aborted) return;
    const url = urlOf(ctx, item);
    const r = await client.request({
      url,
      method: 'HEAD',
      headers: ctx.signer.headers('HEAD', url),
      timeoutMs: ctx.job.timeoutMs,
      trace: false,
      expectStatus: [404],
      signal,
    });
    if (r.status !== 404)
      records.setReadBackError(n, `${item.blob} still there (HEAD ${r.status || r.error})`);
  });
}

/** Failed DELETEs fail the run; then any name still there afterwards. */
export async function verifyDeletes(v: VerifyInput): Promise<Verification> {
  const failed = failedRequests(v.records);
  if (failed) return failed;
  let left = 0;
  let first: string | undefined;
  let checked = 0;
  for (let row = 0; row < v.records.length; row++) {
    const error = v.records.readBackError(row);
    checked++;
    if (error === undefined) continue;
    left++;
    first ??= error;
  }
  if (checked < v.items.length)
    return { verified: false, verification: `${v.items.length - checked} DELETE(s) without an answer` };
  if (first) return { verified: false, verification: `${left} name(s) not deleted: ${first}` };
  return { verified: true, verification: `${checked} DELETE(s): each name gone afterwards (HEAD 404)` };
}
