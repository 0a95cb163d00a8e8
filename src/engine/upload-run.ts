// One upload run of one contender: its plan under the run's own prefix, its job, the commit of
// staged blocks, and the check and deletion after it.
import type { UploadConfig } from '../config/load.js';
import { loadKind } from '../kinds/index.js';
import { log } from '../log/logger.js';
import { keepItems, totalBytes, type Items } from '../plan/items.js';
import { shardItems } from '../scaleout/shard.js';
import type { UploadStore } from '../storage/blob-store.js';
import { commitBlockList } from '../storage/blob-requests.js';
import { traitsOf, type TargetInfo } from '../storage/target-info.js';
import { workloadOf } from '../strategies/index.js';
import type { UploadPlanInput, UploadStrategy } from '../strategies/strategy.js';
import { NOT_SENT_ERROR } from '../transport/http-client.js';
import type { MergedRun } from '../workers/pool.js';
import { buildJob } from './job.js';
import type { CleanupContext, PreparedRun } from './session.js';
import { cutAt } from './stop-grace.js';

/** What every run of an upload session shares. */
export interface UploadRunContext {
  config: UploadConfig;
  store: UploadStore;
  /** Every blob name of this session starts with it. */
  prefix: string;
  /** The session's stop: the commit after the workers follows it. */
  signal: AbortSignal;
}

export async function prepareUploadRun(
  ctx: UploadRunContext,
  info: TargetInfo,
  strategy: UploadStrategy,
  run: number,
): Promise<PreparedRun> {
  const { config, store } = ctx;
  const kind = await loadKind(strategy.kind);
  const input = planInput(config, `${ctx.prefix}/${strategy.name}/${run}`);
  const planned = strategy.plan(input);
  const commit = strategy.commit?.(input, planned);
  const items = shareOf(config, strategy, planned, commit !== undefined);
  const bytes = totalBytes(items);
  const workload = workloadOf(strategy);
  const settings = { sizeBytes: config.fileSizeBytes };
  const own = ownJob(config, info);
  const job = buildJob({
    config,
    strategy,
    workload,
    target: info,
    items,
    objectSizeBytes: bytes,
    settings,
    own,
  });
  const bounds = { timeoutMs: config.timeoutMs, maxRetries: config.maxRetries, signal: ctx.signal };
  return {
    items,
    objectSizeBytes: bytes,
    unit: kind.unit(workload.shape),
    job,
    // Put Block List goes out as soon as every worker's last block is in: it is part of the duration.
    after: commit ? () => commitBlockList(info, commit.blob, commit.blockIds, bounds) : undefined,
    // Failed requests fail the run as they are; otherwise the records or the store say what was stored.
    verify: (merged) =>
      kind.verify({
        workload,
        items,
        records: merged.records,
        tally: merged.summary?.tally,
        target: info,
        expectedBytes: bytes,
        whole: true,
        store,
      }),
    cleanup: (_verified, merged, c) =>
      removeUploads(ctx, info, `${strategy.name} run ${run + 1}`, input.prefix, {
        items,
        merged,
        c,
      }),
  };
}

/** What an upload job has of its own: its blocks, and a read-back where the target keeps no MD5. */
function ownJob(config: UploadConfig, info: TargetInfo) {
  return {
    sink: 'discard' as const,
    // Our raw client reads only the answers to PUTs here: small heads and error bodies.
    bufferSizeBytes: 16 * 1024,
    blockSizeBytes: config.blockSizeBytes,
    thresholdBytes: config.thresholdBytes,
    // A plain server says nothing of what it stored: the workers read every file back after the timed
    // section.
    ...(traitsOf(info).storesMd5 ? {} : { readBack: true }),
  };
}

function planInput(config: UploadConfig, prefix: string): UploadPlanInput {
  return {
    prefix,
    fileCount: config.fileCount,
    fileSizeBytes: config.fileSizeBytes,
    ...(config.fileSizes ? { fileSizes: config.fileSizes } : {}),
    blobSizeBytes: config.blobSizeBytes,
    blockSizeBytes: config.blockSizeBytes,
    thresholdBytes: config.thresholdBytes,
  };
}

/** A scale-out client takes its share of the plan: files i, i+K, … (all of them on one machine). */
function shareOf(config: UploadConfig, strategy: UploadStrategy, planned: Items, committed: boolean): Items {
  const shard = config.scaleout?.shard;
  if (shard && shard.count > 1 && (committed || planned.length < shard.count)) {
    const what = committed ? 'one blob, committed once' : `${planned.length} request(s)`;
    throw new Error(
      `${strategy.name} cannot be shared by --parallelism ${shard.count} clients (${what}); use small-files`,
    );
  }
  return shardItems(planned, shard);
}

/** Deletes what a run uploaded (unless --keep); resolves true when it said itself what it left. */
async function removeUploads(
  { config, store }: UploadRunContext,
  info: TargetInfo,
  which: string,
  prefix: string,
  { items, merged, c }: { items: Items; merged: MergedRun | undefined; c: CleanupContext },
): Promise<boolean | void> {
  if (config.keep) return;
  const ephemeral = traitsOf(info).ephemeral;
  if (ephemeral && c.stopped) {
    const why = "the embedded Azurite's blobs end with its process";
    log.verbose(`${which}: nothing deleted after the stop: ${why}`);
    return;
  }
  // A run cut short by a stop: what never left was never written (200,000 planned files would
  // otherwise mean 200,000 DELETEs before the process may exit).
  const neverSent = new Set(
    merged?.records
      .failed()
      .filter((r) => r.error === NOT_SENT_ERROR)
      .map((r) => r.item),
  );
  const maybeSent = merged?.maybeSent;
  const sent = keepItems(items, (i) => !neverSent.has(i.index) && (!maybeSent || maybeSent.has(i.index)));
  const { left } = await store.remove(prefix, sent, { signal: c.signal, progress: c.progress });
  // The embedded Azurite's blobs end with it: nothing to name.
  if (!c.signal.aborted || left === 0 || ephemeral) return ephemeral;
  log.warn(`${cutAt(c.graceMs)}: ${store.leftBehind(prefix, left)}`);
  return true;
}
