// The download workload: what is direction-specific about downloads (target size, fixtures, sinks
// and output files, MD5 checks); the loop that runs it is engine/session.ts.
// Takes a typed config; never sees argv or the environment.
import { open, rm } from 'node:fs/promises';
import { moveIntoPlace, OUT_OPTION } from '../results/output-path.js';
import type { ContainerClient } from '@azure/storage-blob';
import type { DownloadConfig, HedgeConfig } from '../config/load.js';
import type { HedgeJob } from '../kinds/job.js';
import { log } from '../log/logger.js';
import { FIXTURE_SEED } from '../payload/content.js';
import { ensureFixtures, removeFixtures, type FixtureState } from '../payload/fixtures.js';
import { makeScratchDir, type ScratchDir } from '../payload/scratch.js';
import type { MeasuredRun } from '../results/record.js';
import { loadKind } from '../kinds/index.js';
import { preflightContainer, preflightUrl, removeCreatedContainer } from '../storage/preflight.js';
import {
  coordinatorClient,
  forRun,
  openTarget,
  setupFailure,
  tokenOf,
  whileAlive,
  type TargetInfo,
} from '../storage/target.js';
import { ensureUrlFixtures, removeUrlFixtures } from '../payload/url-fixtures.js';
import { selectStrategies, workloadOf } from '../strategies/index.js';
import { FileSet, totalBytes, type Items } from '../plan/items.js';
import { drawnParams } from './size-params.js';
import type { DownloadStrategy, PlanInput } from '../strategies/strategy.js';
import { shardItems } from '../scaleout/shard.js';
import { checkDownloadFits, checkUploadFits } from './limits.js';
import { EMBEDDED_BLOB_LIMIT } from './upload.js';
import { summaryFor } from './summary.js';
import {
  runSession,
  sessionCell,
  type Contender,
  type OpenWorkload,
  type PreparedRun,
  type SessionOptions,
  type Workload,
} from './session.js';

export interface DownloadWorkload extends Workload {
  /** Filled in when opened: which fixtures this run created and which it found. */
  fixtures: FixtureState;
}

/** The download workload of a typed config: the loader gave every field its value, defaults included. */
export function downloadWorkload(config: DownloadConfig): DownloadWorkload {
  const workload: DownloadWorkload = {
    fixtures: { created: [], reused: 0 },
    async open(session): Promise<OpenWorkload> {
      const target = await openTarget(config.credentials, config.container, session);
      // Set-up ends at once if the target's process dies (the embedded Azurite, OOM-killed by a fixture).
      const signal = whileAlive(target, session);
      try {
        log.info(`target: ${target.label}`);
        const strategies = selectStrategies(config.sourceMethod, target.info.kind === 'url');
        // A many-blob workload: a set of FILE_COUNT files, on a plain URL as paths below it.
        const many = strategies.some((s) => workloadOf(s) !== 'blob');
        const info: TargetInfo =
          many && target.info.kind === 'url' ? { ...target.info, folder: true } : target.info;
        const drawn = many ? config.fileSizes : undefined;
        // Drawn sizes: each file its own; `size` is the largest the set holds, what a file can need.
        const set = drawn && FileSet.of('', config.fileCount, config.fileSizeBytes, 'set', drawn);
        const size =
          info.kind === 'url' && !many
            ? await preflightUrl(info.url, { timeoutMs: config.timeoutMs, signal })
            : set
              ? set.spec.sizeBytes
              : config.fileSizeBytes;
        const input: PlanInput = {
          sizeBytes: size,
          concurrency: config.concurrency,
          rangeSizeBytes: config.rangeSizeBytes,
          urlTarget: info.kind === 'url',
          ...(many
            ? {
                fileCount: config.fileCount,
                pageSize: config.pageSize,
                lanes: config.processes * config.maxSockets,
              }
            : {}),
          ...(drawn ? { fileSizes: drawn } : {}),
        };
        checkDownloadFits(strategies, input, {
          sink: config.sink,
          embedded: info.kind === 'blob' && info.embedded,
        });
        // A set's files cost what uploaded small files do while a run holds them (plan, URL, record).
        checkUploadFits(config.fileCount, many);
        if (many && info.kind === 'blob' && info.embedded && config.fileCount > EMBEDDED_BLOB_LIMIT) {
          log.warn(
            `${config.fileCount} files are more than the embedded Azurite handles in reasonable time (it slows superlinearly); use a real account (--account, STORAGE_*) or --url`,
          );
        }
        const specs = strategies.flatMap((s) => (s.fixtures ? [s.fixtures(input)] : []));
        // One coordinator client for the fixtures and their cleanup (with a CA, each client has an agent of
        // its own).
        let container: ContainerClient | undefined;
        // A container this run created goes with --cleanup too; a scale-out client's may hold the others'
        // markers.
        let createdContainer = false;
        if (info.kind === 'blob') {
          container = await coordinatorClient(target);
          const readOnly = !info.key && !info.sas && !info.bearer;
          if (!readOnly)
            createdContainer =
              (
                await preflightContainer(container, target.label, info.bearer ? 'entra' : 'secret', {
                  timeoutMs: config.timeoutMs,
                  signal,
                })
              ).created && !config.scaleout;
          workload.fixtures = await ensureFixtures(container, specs, signal, { readOnly });
        } else if (many) {
          const { timeoutMs, maxRetries } = config;
          workload.fixtures = await ensureUrlFixtures(info, specs, { timeoutMs, maxRetries, signal });
        }
        // What a run delivers: the one object, or the set's files end to end (listings and HEADs deliver no
        // content).
        const setBytes = set ? totalBytes(set) : config.fileCount * size;
        const deliveredBy = (s: DownloadStrategy) =>
          !many ? size : workloadOf(s) === 'files' ? setBytes : 0;
        const deliveredBytes = Math.max(...strategies.map(deliveredBy));
        // Output files without --out go to a directory of our own, never to a predictable name.
        const scratch =
          config.sink === 'discard' || config.sink === 'memory' ? undefined : await makeScratchDir();
        const contenders = strategies.map(
          (s): Contender => ({
            // Each run's job carries the target as it is then: an Entra ID token is renewed between runs.
            strategy: s.name,
            description: s.description,
            prepare: async (run) =>
              prepareRun(config, await forRun(target, info, session), s, input, deliveredBy(s), scratch, run),
          }),
        );
        const listing = strategies.some((s) => workloadOf(s) === 'list');
        return {
          target: target.label,
          objectSizeBytes: deliveredBytes,
          contenders,
          serverClock: target.serverClock,
          ...tokenOf(target),
          ...(target.lost ? { lost: target.lost } : {}),
          params: {
            processes: config.processes,
            maxSockets: config.maxSockets,
            concurrency: config.concurrency,
            blockSizeBytes: config.rangeSizeBytes,
            ...(many ? { fileCount: config.fileCount, fileSizeBytes: size } : {}),
            ...(listing ? { pageSize: config.pageSize } : {}),
            ...(drawn ? drawnParams(drawn, config.fileCount) : {}),
          },
          async close(interrupted) {
            await scratch?.remove();
            // Interrupted runs clean up the fixtures they created, as --cleanup would; the embedded
            // Azurite's end with its process (in memory), so nothing is deleted from it.
            const ephemeral = info.kind === 'blob' && info.embedded;
            const created = ephemeral ? [] : workload.fixtures.created;
            if ((config.cleanup || interrupted) && created.length) {
              if (container) await removeFixtures(container, created);
              else if (info.kind === 'url') await removeUrlFixtures(info, created, config.timeoutMs);
              log.info(`cleanup: removed ${created.length} fixture(s) this run created`);
            }
            const removeContainer = (config.cleanup || interrupted) && createdContainer && !ephemeral;
            if (removeContainer && container) await removeCreatedContainer(container);
          },
          stop: () => target.stop(),
        };
      } catch (err) {
        await target.stop();
        throw setupFailure(err, signal);
      }
    },
  };
  return workload;
}

async function prepareRun(
  config: DownloadConfig,
  info: TargetInfo,
  strategy: DownloadStrategy,
  input: PlanInput,
  size: number,
  scratch: ScratchDir | undefined,
  run: number,
): Promise<PreparedRun> {
  const kind = await loadKind(strategy.kind);
  // A scale-out client takes its share of the plan: items i, i+K, … (all of them on one machine).
  const shard = config.scaleout?.shard;
  const items = shardItems(strategy.plan(input), shard);
  if (!items.length)
    throw new Error(
      `${strategy.name} plans fewer requests than --parallelism ${shard?.count}: client ${shard?.index} has none; raise --concurrency or lower --parallelism`,
    );
  const shareBytes = shard && shard.count > 1 ? totalBytes(items) : size;
  const workload = workloadOf(strategy);
  // Only a kind that writes into the sink makes an output file (the SDK's downloadToBuffer fills its own
  // buffer).
  const writesFile = kind.writesSink === true && (config.sink === 'file' || config.sink === 'sparse-file');
  // A file given with --out is written under a temporary name and renamed only once verified.
  const outPath = !writesFile
    ? undefined
    : config.outPath
      ? `${config.outPath}.partial`
      : scratch!.path(`${strategy.name}-${run}.out`);
  if (config.sink === 'sparse-file' && outPath) {
    const fh = await open(outPath, 'w');
    await fh.truncate(size);
    await fh.close();
  }
  const many = workload !== 'blob';
  return {
    items,
    objectSizeBytes: shareBytes,
    unit: kind.unit(workload === 'files' ? 'files' : 'object'),
    job: {
      strategy: strategy.name,
      kind: strategy.kind,
      target: info,
      objectSizeBytes: size,
      concurrency: config.concurrency,
      maxSockets: config.maxSockets,
      sink: config.sink,
      outPath,
      bufferSizeBytes: config.bufferSizeBytes,
      httpClient: config.httpClient,
      logLevel: config.logLevel,
      // A plain URL has no source MD5 to compare with, except a many-blob set's files, whose content
      // is ours. Other sinks hash after the timed section (the records keep each range's MD5);
      // discard would have to hash inside it, so it drops bytes unseen.
      hashRanges: many || info.kind === 'blob' || config.sink !== 'discard',
      // One object of ours: a worker that keeps the bytes in memory compares them with the fixture itself.
      ...(!many && info.kind === 'blob' ? { fixtureSeed: FIXTURE_SEED } : {}),
      // Fixed-size ranges: --concurrency of them in flight over all processes (the rest wait their turn
      // unissued); equal ranges: all issued at once. The SDK baseline uses the same block size.
      inFlight:
        !many && config.rangeSizeBytes
          ? Math.max(1, Math.floor(config.concurrency / config.processes))
          : undefined,
      blockSizeBytes: config.rangeSizeBytes,
      maxRetries: config.maxRetries,
      timeoutMs: config.timeoutMs,
      trace: config.trace,
      ...strategy.jobOptions?.({
        processes: config.processes,
        maxSockets: config.maxSockets,
        concurrency: config.concurrency,
        sizeBytes: input.sizeBytes,
        rangeSizeBytes: config.rangeSizeBytes,
      }),
      ...(workload === 'files' || workload === 'head' ? summaryFor(items, workload, config.processes) : {}),
      ...(workload === 'files' ? { objectPerItem: true } : workload === 'blob' ? { wholeObject: true } : {}),
      ...(config.hedge ? { hedge: hedgeJob(config.hedge, many ? [] : items) } : {}),
    },
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
        outPath: config.sink === 'file' || config.sink === 'sparse-file' ? outPath : undefined,
      }),
    async cleanup(verified) {
      if (!outPath) return;
      if (config.outPath === undefined) await rm(outPath, { force: true });
      else if (verified) await moveIntoPlace(outPath, config.outPath, OUT_OPTION);
      else log.warn(`${strategy.name}: output left as ${outPath} (not verified)`);
    },
  };
}

/**
 * --hedge as a job carries it (`oneObject`: the plan of a one-object workload, else none). An object read
 * from several blobs (round-robin's copies) hedges to the next copy: the copies are the blobs its plan names,
 * in order.
 */
function hedgeJob(hedge: HedgeConfig, oneObject: Items): HedgeJob {
  const blobs = [...new Set([...oneObject].map((i) => i.blob).filter((b) => b !== undefined))];
  return {
    on: hedge.on,
    ...('ms' in hedge.after ? { afterMs: hedge.after.ms } : { percentile: hedge.after.percentile }),
    ...(blobs.length > 1 ? { copies: blobs } : {}),
  };
}

export interface DownloadRunResult {
  target: string;
  objectSizeBytes: number;
  results: MeasuredRun[];
  fixtures: FixtureState;
  interrupted: boolean;
}

/** One download session, its runs as the engine holds them (every raw request kept). */
export async function runDownload(
  config: DownloadConfig,
  opts: SessionOptions = {},
): Promise<DownloadRunResult> {
  const workload = downloadWorkload(config);
  const out = await runSession([sessionCell(config, workload)], opts);
  return {
    target: out.target,
    objectSizeBytes: out.objectSizeBytes ?? config.fileSizeBytes,
    results: out.runs,
    fixtures: workload.fixtures,
    interrupted: out.interrupted,
  };
}
