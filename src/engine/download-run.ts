// One download run of one contender: its share of the plan, its output file, its job, and the
// check and cleanup after it.
import { open, rm } from 'node:fs/promises';
import type { DownloadConfig, HedgeConfig } from '../config/load.js';
import type { HedgeJob } from '../kinds/job.js';
import { loadKind } from '../kinds/index.js';
import { log } from '../log/logger.js';
import { FIXTURE_SEED } from '../payload/content.js';
import type { ScratchDir } from '../payload/scratch.js';
import { totalBytes, type Items } from '../plan/items.js';
import { moveIntoPlace, OUT_OPTION } from '../results/output-path.js';
import { shardItems } from '../scaleout/shard.js';
import { traitsOf, type TargetInfo } from '../storage/target-info.js';
import { workloadOf } from '../strategies/index.js';
import type { DownloadStrategy, PlanInput } from '../strategies/strategy.js';
import { buildJob } from './job.js';
import type { PreparedRun } from './session.js';

/** What every run of a download session shares. */
export interface DownloadRunContext {
  config: DownloadConfig;
  input: PlanInput;
  scratch: ScratchDir | undefined;
}

export async function prepareDownloadRun(
  { config, input, scratch }: DownloadRunContext,
  info: TargetInfo,
  strategy: DownloadStrategy,
  size: number,
  run: number,
): Promise<PreparedRun> {
  const kind = await loadKind(strategy.kind);
  const items = shardOf(config, strategy, input);
  const shareBytes = config.scaleout?.shard && config.scaleout.shard.count > 1 ? totalBytes(items) : size;
  const workload = workloadOf(strategy);
  const outPath = await outputFile(
    config,
    kind.writesSink === true,
    scratch,
    `${strategy.name}-${run}`,
    size,
  );
  const own = ownJob(config, info, items, outPath, !workload.many);
  const settings = { sizeBytes: input.sizeBytes, rangeSizeBytes: config.rangeSizeBytes };
  const job = buildJob({
    config,
    strategy,
    workload,
    target: info,
    items,
    objectSizeBytes: size,
    settings,
    own,
  });
  const filed = config.sink === 'file' || config.sink === 'sparse-file';
  return {
    items,
    objectSizeBytes: shareBytes,
    unit: kind.unit(workload.shape),
    job,
    verify: (merged) =>
      kind.verify({
        workload,
        items,
        records: merged.records,
        tally: merged.summary?.tally,
        target: info,
        expectedBytes: shareBytes,
        whole: shareBytes === size,
        equalToFixture: new Set(merged.workers.flatMap((w) => w.equalToFixture ?? [])),
        outPath: filed ? outPath : undefined,
      }),
    cleanup: (verified) => keepOrRemove(config, strategy, outPath, verified),
  };
}

/** What a download job has of its own: its sink, how it checks bytes, its ranges in flight, hedging. */
function ownJob(
  config: DownloadConfig,
  info: TargetInfo,
  items: Items,
  outPath: string | undefined,
  one: boolean,
) {
  return {
    sink: config.sink,
    outPath,
    bufferSizeBytes: config.bufferSizeBytes,
    // A plain URL has no source MD5 to compare with, except a many-blob set's files, whose content
    // is ours. Other sinks hash after the timed section (the records keep each range's MD5);
    // discard would have to hash inside it, so it drops bytes unseen.
    hashRanges: !one || traitsOf(info).objectIsFixture || config.sink !== 'discard',
    // One object of ours: a worker that keeps the bytes in memory compares them with the fixture itself.
    ...(one && traitsOf(info).objectIsFixture ? { fixtureSeed: FIXTURE_SEED } : {}),
    // Fixed-size ranges: --concurrency of them in flight over all processes (the rest wait their turn
    // unissued); equal ranges: all issued at once. The SDK baseline uses the same block size.
    inFlight:
      one && config.rangeSizeBytes
        ? Math.max(1, Math.floor(config.concurrency / config.processes))
        : undefined,
    blockSizeBytes: config.rangeSizeBytes,
    ...(config.hedge ? { hedge: hedgeJob(config.hedge, one ? items : []) } : {}),
  };
}

/** A scale-out client takes its share of the plan: items i, i+K, … (all of them on one machine). */
function shardOf(config: DownloadConfig, strategy: DownloadStrategy, input: PlanInput): Items {
  const shard = config.scaleout?.shard;
  const items = shardItems(strategy.plan(input), shard);
  if (!items.length)
    throw new Error(
      `${strategy.name} plans fewer requests than --parallelism ${shard?.count}: ` +
        `client ${shard?.index} has none; raise --concurrency or lower --parallelism`,
    );
  return items;
}

/**
 * The run's output file, where its kind writes into the sink (the SDK's downloadToBuffer fills its
 * own buffer) and the sink is a file: a file given with --out is written under a temporary name and
 * renamed only once verified; otherwise one in our scratch directory, never a predictable name.
 */
async function outputFile(
  config: DownloadConfig,
  writesSink: boolean,
  scratch: ScratchDir | undefined,
  name: string,
  size: number,
): Promise<string | undefined> {
  if (!writesSink || (config.sink !== 'file' && config.sink !== 'sparse-file')) return undefined;
  const outPath = config.outPath ? `${config.outPath}.partial` : scratch!.path(`${name}.out`);
  if (config.sink === 'sparse-file') {
    const fh = await open(outPath, 'w');
    await fh.truncate(size);
    await fh.close();
  }
  return outPath;
}

async function keepOrRemove(
  config: DownloadConfig,
  strategy: DownloadStrategy,
  outPath: string | undefined,
  verified: boolean,
): Promise<void> {
  if (!outPath) return;
  if (config.outPath === undefined) await rm(outPath, { force: true });
  else if (verified) await moveIntoPlace(outPath, config.outPath, OUT_OPTION);
  else log.warn(`${strategy.name}: output left as ${outPath} (not verified)`);
}

/**
 * --hedge as a job carries it (`oneObject`: the plan of a one-object workload, else none). An object
 * read from several blobs (round-robin's copies) hedges to the next copy: the copies are the blobs its
 * plan names, in order.
 */
function hedgeJob(hedge: HedgeConfig, oneObject: Items): HedgeJob {
  const blobs = [...new Set([...oneObject].map((i) => i.blob).filter((b) => b !== undefined))];
  return {
    on: hedge.on,
    ...('ms' in hedge.after ? { afterMs: hedge.after.ms } : { percentile: hedge.after.percentile }),
    ...(blobs.length > 1 ? { copies: blobs } : {}),
  };
}
