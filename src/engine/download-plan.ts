// What a download session's contenders plan from, once its target is open: the contenders the
// target can serve, their workload, the object's or the set's sizes, and what a run delivers;
// refused here, before any fixture, where it cannot fit.
import type { DownloadConfig } from '../config/load.js';
import { log } from '../log/logger.js';
import { FileSet, totalBytes } from '../plan/items.js';
import type { PreflightOptions } from '../storage/preflight.js';
import type { Target, TargetInfo } from '../storage/target.js';
import { DOWNLOAD_WORKLOADS } from '../plan/workload.js';
import { selectStrategies, workloadOf } from '../strategies/index.js';
import type { DownloadStrategy, PlanInput } from '../strategies/strategy.js';
import type { RunParams } from '../results/schema.js';
import { checkDownloadFits, checkUploadFits } from './limits.js';
import { drawnParams } from './size-params.js';

export interface DownloadPlan {
  strategies: DownloadStrategy[];
  /** A many-blob set of FILE_COUNT files (on a plain URL: paths below it); otherwise one object. */
  many: boolean;
  /** The target as each run's job carries it. */
  info: TargetInfo;
  input: PlanInput;
  /** The bytes a run of `s` delivers: the one object, or the set's files end to end (0: listings, HEADs). */
  deliveredBy(s: DownloadStrategy): number;
  params: RunParams;
}

export async function downloadPlan(
  config: DownloadConfig,
  target: Target,
  signal: AbortSignal,
): Promise<DownloadPlan> {
  const strategies = selectStrategies(config.sourceMethod, !target.traits.blobService);
  const many = strategies.some((s) => workloadOf(s).many);
  const drawn = many ? config.fileSizes : undefined;
  // Drawn sizes: each file its own; `size` is the largest the set holds, what a file can need.
  const set = drawn && FileSet.of('', config.fileCount, config.fileSizeBytes, 'set', drawn);
  const bounds: PreflightOptions = { timeoutMs: config.timeoutMs, signal };
  const size =
    (many ? undefined : await target.objectSizeBytes(bounds)) ??
    (set ? set.spec.sizeBytes : config.fileSizeBytes);
  const input: PlanInput = {
    sizeBytes: size,
    concurrency: config.concurrency,
    rangeSizeBytes: config.rangeSizeBytes,
    urlTarget: !target.traits.blobService,
    ...(many
      ? {
          fileCount: config.fileCount,
          pageSize: config.pageSize,
          lanes: config.processes * config.maxSockets,
        }
      : {}),
    ...(drawn ? { fileSizes: drawn } : {}),
  };
  checkDownloadFits(strategies, input, { sink: config.sink, embedded: target.traits.ephemeral });
  // A set's files cost what uploaded small files do while a run holds them (plan, URL, record).
  checkUploadFits(config.fileCount, many);
  const limit = target.traits.blobLimit;
  if (many && limit !== undefined && config.fileCount > limit) {
    log.warn(
      `${config.fileCount} files are more than the embedded Azurite handles in reasonable time ` +
        '(it slows superlinearly); use a real account (--account, STORAGE_*) or --url',
    );
  }
  const setBytes = set ? totalBytes(set) : config.fileCount * size;
  const deliveredBy = (s: DownloadStrategy) =>
    !many ? size : workloadOf(s) === DOWNLOAD_WORKLOADS.files ? setBytes : 0;
  const listing = strategies.some((s) => workloadOf(s) === DOWNLOAD_WORKLOADS.list);
  const params: RunParams = {
    processes: config.processes,
    maxSockets: config.maxSockets,
    concurrency: config.concurrency,
    blockSizeBytes: config.rangeSizeBytes,
    ...(many ? { fileCount: config.fileCount, fileSizeBytes: size } : {}),
    ...(listing ? { pageSize: config.pageSize } : {}),
    ...(drawn ? drawnParams(drawn, config.fileCount) : {}),
  };
  return { strategies, many, info: target.forDownloads(many), input, deliveredBy, params };
}
