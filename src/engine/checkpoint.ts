// The checkpoint workload (MLPerf Storage's pattern): K ranks, one worker process each, released
// together on the barrier, each write a shard at once; then each reads its shard back in ranges. A
// run is timed from the barrier to the last shard's commit (the time to a consistent checkpoint);
// the read-back is its verification, measured too, and both phases' per-rank times go beside the
// run (results/checkpoint.ts). The contenders are the ways a shard is written (staged blocks and
// Put Block List, or one Put Blob), interleaved run by run as every session's are.
import type { CheckpointConfig } from '../config/checkpoint.js';
import { log } from '../log/logger.js';
import type { CheckpointRecord } from '../results/checkpoint.js';
import type { MeasuredRun, Verification } from '../results/record.js';
import type { UploadStore } from '../storage/blob-store.js';
import { forRun, tokenOf, type Target, type TargetInfo } from '../storage/target.js';
import { bearerOf, traitsOf } from '../storage/target-info.js';
import { shardWrites, type ShardPlanInput, type ShardWrite } from '../strategies/checkpoint.js';
import { failedRequests } from '../verify/failed.js';
import { verifyFromRecords } from '../verify/upload.js';
import { WorkerPool, type JobSpec, type MergedRun } from '../workers/pool.js';
import { commitShards } from './checkpoint-commit.js';
import { buildJob } from './job.js';
import { firstStart, rankSpans, readBack } from './checkpoint-read.js';
import { cutAt } from './stop-grace.js';
import {
  runSession,
  sessionCell,
  type CellSetup,
  type Contender,
  type OpenWorkload,
  type PreparedRun,
  type SessionOptions,
} from './session.js';
import { runPrefix } from './upload.js';
import { openOnTarget, type OpenedOn } from './target-cell.js';

/** What every run of one cell shares: the target as opened, its store, the readers' pool. */
interface CheckpointCell {
  config: CheckpointConfig;
  store: UploadStore;
  /** The read-back's own processes, kept warm across runs as the writers' are. */
  readers: WorkerPool;
  /** The embedded Azurite: its blobs end with it, so nothing is deleted after a stop. */
  ephemeral: boolean;
  signal: AbortSignal;
  token: OpenWorkload['token'];
}

export function checkpointSetup(config: CheckpointConfig): CellSetup & { prefix: string } {
  const prefix = runPrefix();
  return {
    prefix,
    open: (session) =>
      openOnTarget(
        config,
        session,
        (target, signal) => openCheckpoint(config, target, prefix, signal, session),
        (target) => `target: ${target.label}; shards under ${prefix}/`,
      ),
  };
}

async function openCheckpoint(
  config: CheckpointConfig,
  target: Target,
  prefix: string,
  signal: AbortSignal,
  session: AbortSignal,
): Promise<OpenedOn> {
  const plain = !traitsOf(target.info).blobService;
  const fits = config.shardSizeBytes <= config.thresholdBytes;
  const writes = shardWrites(config.shardWrite, !plain, fits);
  log.info(`written as ${writes.map((w) => w.name).join(', ')}`);
  if (plain) log.info('--url is a plain server: one PUT per shard, no blocks and no commit');
  const { timeoutMs } = config;
  const { info, store } = await target.openUploads(prefix, { timeoutMs, keep: config.keep, signal });
  const { token } = tokenOf(target);
  const cell: CheckpointCell = {
    config,
    store,
    readers: new WorkerPool(),
    ephemeral: traitsOf(target.info).ephemeral,
    signal: session,
    token,
  };
  const contenders = writes.map(
    (write): Contender => ({
      strategy: write.name,
      description: write.description,
      prepare: async (run) =>
        prepareCheckpoint(cell, await forRun(target, info, session), write, `${prefix}/${write.name}/${run}`),
    }),
  );
  return {
    contenders,
    params: {
      processes: config.processes,
      maxSockets: config.maxSockets,
      concurrency: config.concurrency,
      blockSizeBytes: config.blockSizeBytes,
      thresholdBytes: config.thresholdBytes,
    },
    async close(_interrupted, ctx) {
      cell.readers.close();
      if (!config.keep && !cell.ephemeral && !ctx.stopped) await store.close?.();
      return true;
    },
  };
}

/** The ranks' job: every rank PUTs its own shard's blocks (or the shard whole), its sockets all busy. */
function shardJob(
  config: CheckpointConfig,
  write: ShardWrite,
  info: TargetInfo,
  items: PreparedRun['items'],
  bytes: number,
): JobSpec {
  return buildJob({
    config,
    strategy: { name: write.name, kind: 'put' },
    target: info,
    items,
    objectSizeBytes: bytes,
    settings: { sizeBytes: config.shardSizeBytes },
    own: {
      sink: 'discard',
      // Our raw client reads only the answers to PUTs here: small heads and error bodies.
      bufferSizeBytes: 16 * 1024,
      blockSizeBytes: config.blockSizeBytes,
      thresholdBytes: config.thresholdBytes,
      // Each rank keeps every one of its sockets busy with its own blocks.
      inFlight: config.maxSockets,
    },
  });
}

/** One checkpoint: the ranks' writes (the job), the commits (after them), the read-back (its check). */
function prepareCheckpoint(
  cell: CheckpointCell,
  info: TargetInfo,
  write: ShardWrite,
  prefix: string,
): PreparedRun {
  const { config } = cell;
  const plan: ShardPlanInput = {
    prefix,
    ranks: config.processes,
    shardSizeBytes: config.shardSizeBytes,
    blockSizeBytes: config.blockSizeBytes,
  };
  const items = write.plan(plan);
  const commits = traitsOf(info).blobService ? write.commits?.(plan) : undefined;
  const bytes = plan.ranks * plan.shardSizeBytes;
  let annex: CheckpointRecord | undefined;
  const requestOpts = { timeoutMs: config.timeoutMs, maxRetries: config.maxRetries, signal: cell.signal };
  return {
    items,
    objectSizeBytes: bytes,
    unit: 'MiB/s',
    job: shardJob(config, write, info, items, bytes),
    // Each shard's Put Block List goes out once every rank's blocks are in: part of the timed span.
    after: commits ? () => commitShards(info, commits, requestOpts) : undefined,
    async verify(merged) {
      const origin = firstStart(merged.records);
      const spans = rankSpans(merged.records, plan.ranks, origin);
      annex = {
        shardSizeBytes: plan.shardSizeBytes,
        ...(commits ? { blockSizeBytes: plan.blockSizeBytes } : {}),
        write: spans,
        consistentMs: merged.wallMs,
      };
      const written = writeCheck(merged, info, items);
      if (written) return written;
      const read = await readBack({
        config,
        info,
        plan,
        label: `${write.name} read-back`,
        pool: cell.readers,
        signal: cell.signal,
        ...(cell.token ? { token: cell.token } : {}),
      });
      // A stop during the read-back cut the run short: left out, as any run a stop cuts is.
      if (cell.signal.aborted) throw new Error('the stop cut the read-back short');
      annex = { ...annex, read };
      return { verified: read.verified, verification: read.verification };
    },
    annex: () => (annex ? { checkpoint: annex } : {}),
    cleanup: (_verified, _merged, ctx) => removeShards(cell, prefix, items, ctx),
  };
}

/** The write's own check: failed requests fail it; a Put Blob's Content-MD5 must be what was sent. */
function writeCheck(
  merged: MergedRun,
  info: TargetInfo,
  items: PreparedRun['items'],
): Verification | undefined {
  if (merged.failures.length) return { verified: false, verification: merged.failures.join('; ') };
  const failed = failedRequests(merged.records, bearerOf(info) !== undefined);
  if (failed) return failed;
  // Staged blocks and plain PUTs carry no MD5 of the whole: the read-back checks every byte of them.
  const whole = [...items].every((i) => i.blockId === undefined) && traitsOf(info).storesMd5;
  const v = whole ? verifyFromRecords(items, merged.records, false) : undefined;
  return v && !v.verified ? v : undefined;
}

async function removeShards(
  cell: CheckpointCell,
  prefix: string,
  items: PreparedRun['items'],
  ctx: Parameters<PreparedRun['cleanup']>[2],
): Promise<boolean | void> {
  if (cell.config.keep) return;
  if (cell.ephemeral && ctx.stopped) return true;
  const { left } = await cell.store.remove(prefix, items, { signal: ctx.signal, progress: ctx.progress });
  if (!ctx.signal.aborted || left === 0 || cell.ephemeral) return cell.ephemeral;
  log.warn(`${cutAt(ctx.graceMs)}: ${cell.store.leftBehind(prefix, left)}`);
  return true;
}

/** One checkpoint session as a library call, its runs as the engine holds them. */
export async function runCheckpoint(
  config: CheckpointConfig,
  opts: SessionOptions = {},
): Promise<{ target: string; prefix: string; results: MeasuredRun[]; interrupted: boolean }> {
  const setup = checkpointSetup(config);
  const out = await runSession([sessionCell(config, setup)], opts);
  return { target: out.target, prefix: setup.prefix, results: out.runs, interrupted: out.interrupted };
}
