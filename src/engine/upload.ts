// The upload workload: what is direction-specific about uploads (a per-run blob prefix, the store
// that checks and deletes what was written, the commit of staged blocks); the loop that runs it is
// engine/session.ts. Runs never collide: every blob name starts with the run's prefix, and the
// run's blobs are deleted unless --keep. A plain HTTP(S) server (--url) takes the same names as
// paths below its URL.
import { nodeCrypto } from '../transport/node-http.js';
import type { UploadConfig } from '../config/load.js';
import { log } from '../log/logger.js';
import type { MeasuredRun } from '../results/record.js';
import { blobStore, type UploadStore } from '../storage/blob-store.js';
import { preflightContainer, preflightUrlUpload } from '../storage/preflight.js';
import {
  coordinatorClient,
  forRun,
  openTarget,
  setupFailure,
  tokenOf,
  whileAlive,
  RequestSigner,
  type Target,
  type TargetInfo,
} from '../storage/target.js';
import { urlStore } from '../storage/url-store.js';
import { selectUploadStrategies, UPLOAD_STRATEGIES, workloadOf } from '../strategies/index.js';
import type { UploadPlanInput, UploadStrategy } from '../strategies/strategy.js';
import { loadKind } from '../kinds/index.js';
import { commitBlockList } from '../storage/blob-requests.js';
import { NOT_SENT_ERROR } from '../transport/http-client.js';
import { shardItems } from '../scaleout/shard.js';
import { checkUploadFits } from './limits.js';
import { summaryFor } from './summary.js';
import { FileSet, keepItems, totalBytes } from '../plan/items.js';
import { cutAt } from './stop-grace.js';
import { drawnParams } from './size-params.js';
import {
  runSession,
  sessionCell,
  type Contender,
  type OpenWorkload,
  type PreparedRun,
  type SessionOptions,
  type Workload,
} from './session.js';

export function runPrefix(): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
  return `run-${stamp}-${nodeCrypto().randomBytes(3).toString('hex')}`;
}

/**
 * Past this many blobs per run the embedded Azurite's time grows superlinearly (README, "Embedded target").
 */
export const EMBEDDED_BLOB_LIMIT = 2_500;

export interface UploadWorkload extends Workload {
  /** Every blob name of this session starts with it. */
  prefix: string;
}

export function uploadWorkload(config: UploadConfig): UploadWorkload {
  const prefix = runPrefix();
  return {
    prefix,
    async open(session): Promise<OpenWorkload> {
      const target = await openTarget(config.credentials, config.container, session);
      // Set-up ends at once if the target's process dies; the runs follow its death through `lost`.
      const signal = whileAlive(target, session);
      try {
        const plain = target.info.kind === 'url';
        log.info(`target: ${target.label}; ${plain ? 'path' : 'blob'} prefix ${prefix}/`);
        const strategies = selectUploadStrategies(config.uploadMethod, plain);
        if (plain && config.uploadMethod === 'all') {
          const skipped = UPLOAD_STRATEGIES.filter((s) => !strategies.includes(s)).map((s) => s.name);
          log.info(
            `--url is a plain server: running ${strategies.map((s) => s.name).join(', ')} only (${skipped.join(', ')} need a blob service)`,
          );
        }
        const manyBlobs = strategies.some((s) => workloadOf(s) === 'files');
        checkUploadFits(config.fileCount, manyBlobs);
        if (
          target.info.kind === 'blob' &&
          target.info.embedded &&
          manyBlobs &&
          config.fileCount > EMBEDDED_BLOB_LIMIT
        ) {
          log.warn(
            `${config.fileCount} files per run is more than the embedded Azurite handles in reasonable time (it slows superlinearly: ` +
              `2,400 files took 20 s and 5,000 took 108 s of wall time on a 2-core machine); ` +
              'measure against a local nginx (--url http://127.0.0.1:PORT/dav/) or a real account (--account, STORAGE_*) instead',
          );
        }
        const { info, store } = await openStore(config, target, prefix, signal);
        // The embedded Azurite's blobs live in its memory and end with it: after a stop nothing is
        // deleted from it (its runs' blobs are deleted as they go, to keep its memory for the next).
        const ephemeral = target.info.kind === 'blob' && target.info.embedded;
        const contenders = strategies.map(
          (s): Contender => ({
            // Each run's job carries the target as it is then: an Entra ID token is renewed between runs.
            strategy: s.name,
            description: s.description,
            prepare: async (run) =>
              prepareRun(
                config,
                await forRun(target, info, session),
                store,
                s,
                prefix,
                run,
                session,
                ephemeral,
              ),
          }),
        );
        return {
          target: target.label,
          contenders,
          serverClock: target.serverClock,
          ...tokenOf(target),
          ...(target.lost ? { lost: target.lost } : {}),
          params: {
            processes: config.processes,
            maxSockets: config.maxSockets,
            concurrency: config.concurrency,
            blockSizeBytes: config.blockSizeBytes,
            thresholdBytes: config.thresholdBytes,
            ...(config.fileSizes ? drawnParams(config.fileSizes, config.fileCount) : {}),
          },
          // After a stop the runs' lines have named what is left; the folders go with those files.
          async close(_interrupted, ctx) {
            if (!config.keep && !ephemeral && !ctx.stopped) await store.close?.();
            return true;
          },
          stop: () => target.stop(),
        };
      } catch (err) {
        await target.stop();
        throw setupFailure(err, signal);
      }
    },
  };
}

async function prepareRun(
  config: UploadConfig,
  info: TargetInfo,
  store: UploadStore,
  strategy: UploadStrategy,
  prefix: string,
  run: number,
  signal: AbortSignal,
  ephemeral: boolean,
): Promise<PreparedRun> {
  const kind = await loadKind(strategy.kind);
  const input: UploadPlanInput = {
    prefix: `${prefix}/${strategy.name}/${run}`,
    fileCount: config.fileCount,
    fileSizeBytes: config.fileSizeBytes,
    ...(config.fileSizes ? { fileSizes: config.fileSizes } : {}),
    blobSizeBytes: config.blobSizeBytes,
    blockSizeBytes: config.blockSizeBytes,
    thresholdBytes: config.thresholdBytes,
  };
  // A scale-out client takes its share of the plan: files i, i+K, … (all of them on one machine).
  const shard = config.scaleout?.shard;
  const planned = strategy.plan(input);
  const commit = strategy.commit?.(input, planned);
  if (shard && shard.count > 1 && (commit || planned.length < shard.count)) {
    throw new Error(
      `${strategy.name} cannot be shared by --parallelism ${shard.count} clients (${commit ? 'one blob, committed once' : `${planned.length} request(s)`}); use small-files`,
    );
  }
  const items = shardItems(planned, shard);
  const bytes = totalBytes(items);
  return {
    items,
    objectSizeBytes: bytes,
    unit: kind.unit(workloadOf(strategy) === 'files' ? 'files' : 'object'),
    job: {
      strategy: strategy.name,
      kind: strategy.kind,
      target: info,
      objectSizeBytes: bytes,
      concurrency: config.concurrency,
      maxSockets: config.maxSockets,
      sink: 'discard',
      httpClient: config.httpClient,
      // Our raw client reads only the answers to PUTs here: small heads and error bodies.
      bufferSizeBytes: 16 * 1024,
      logLevel: config.logLevel,
      blockSizeBytes: config.blockSizeBytes,
      thresholdBytes: config.thresholdBytes,
      // A plain server says nothing of what it stored: the workers read every file back after the timed
      // section.
      ...(info.kind === 'url' ? { readBack: true } : {}),
      ...(items instanceof FileSet ? summaryFor(items, 'upload', config.processes) : {}),
      ...(workloadOf(strategy) === 'files' ? { objectPerItem: true } : {}),
      maxRetries: config.maxRetries,
      timeoutMs: config.timeoutMs,
      trace: config.trace,
      ...strategy.jobOptions?.({
        processes: config.processes,
        maxSockets: config.maxSockets,
        concurrency: config.concurrency,
        sizeBytes: config.fileSizeBytes,
      }),
    },
    // Put Block List goes out as soon as every worker's last block is in: it is part of the duration.
    after: commit
      ? () =>
          commitBlockList(info, commit.blob, commit.blockIds, {
            timeoutMs: config.timeoutMs,
            maxRetries: config.maxRetries,
            signal,
          })
      : undefined,
    // Failed requests fail the run as they are; otherwise the records or the store say what was stored.
    verify: (merged) =>
      kind.verify({
        workload: 'upload',
        items,
        records: merged.records,
        tally: merged.summary?.tally,
        target: info,
        expectedBytes: bytes,
        whole: true,
        store,
      }),
    async cleanup(_verified, merged, ctx) {
      if (config.keep) return;
      if (ephemeral && ctx.stopped) {
        const why = "the embedded Azurite's blobs end with its process";
        log.verbose(`${strategy.name} run ${run + 1}: nothing deleted after the stop: ${why}`);
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
      const { left } = await store.remove(input.prefix, sent, { signal: ctx.signal, progress: ctx.progress });
      // The embedded Azurite's blobs end with it: nothing to name.
      if (!ctx.signal.aborted || left === 0 || ephemeral) return ephemeral;
      log.warn(`${cutAt(ctx.graceMs)}: ${store.leftBehind(input.prefix, left)}`);
      return true;
    },
  };
}

/**
 * Checks the target and returns where uploads go and how they are checked. A plain URL becomes a
 * folder (each blob name a path below it) and is probed with one PUT and DELETE, outside any timing.
 */
export async function openStore(
  config: UploadConfig,
  target: Target,
  prefix: string,
  signal: AbortSignal,
): Promise<{ info: TargetInfo; store: UploadStore }> {
  const info = target.info;
  if (info.kind === 'blob') {
    const container = await coordinatorClient(target);
    await preflightContainer(container, target.label, info.bearer ? 'entra' : 'secret', {
      timeoutMs: config.timeoutMs,
      signal,
    });
    return { info, store: blobStore(container) };
  }
  const folder: TargetInfo = { ...info, folder: true };
  const probe = `${prefix}/probe`;
  const { deleteRefused } = await preflightUrlUpload(info.url, new RequestSigner(folder).blobUrl(probe), {
    timeoutMs: config.timeoutMs,
    signal,
  });
  if (deleteRefused && config.keep)
    log.verbose(`${probe} stays on the server: DELETE failed (${deleteRefused})`);
  const store = urlStore(info, {
    prefix,
    timeoutMs: config.timeoutMs,
    deleteRefused: config.keep ? undefined : deleteRefused,
  });
  return { info: folder, store };
}

export interface UploadRunResult {
  target: string;
  prefix: string;
  results: MeasuredRun[];
  interrupted: boolean;
}

/** One upload session, its runs as the engine holds them (every raw request kept). */
export async function runUpload(config: UploadConfig, opts: SessionOptions = {}): Promise<UploadRunResult> {
  const workload = uploadWorkload(config);
  const out = await runSession([sessionCell(config, workload)], opts);
  return { target: out.target, prefix: workload.prefix, results: out.runs, interrupted: out.interrupted };
}
