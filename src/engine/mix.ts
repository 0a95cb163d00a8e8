// The mix workload (--mix on download or upload): one sequence of operations drawn from the seed
// over the many-blob set, the same for every contender and run, each operation through its own
// request kind (kinds/mix.ts). What is its own here: the set made before any run, a session prefix
// that PUTs and DELETEs write below (the set itself is never changed), and the PUTs removed after
// each run so that every run starts from the same objects. Never sees argv or the environment.
import type { DownloadConfig, UploadConfig } from '../config/load.js';
import { loadKind } from '../kinds/index.js';
import { log } from '../log/logger.js';
import { ensureFixtures } from '../fixture-setup/fixtures.js';
import { ensureUrlFixtures } from '../fixture-setup/url-fixtures.js';
import { keepItems, totalBytes, type Items, type WorkItem } from '../plan/items.js';
import { mixText, opAt, type MixDraw } from '../plan/mix.js';
import { nodeCrypto } from '../startup/lazy.js';
import { blobStore, type UploadStore } from '../storage/blob-store.js';
import { preflightContainer, preflightUrlUpload } from '../storage/preflight.js';
import { coordinatorClient, forRun, RequestSigner, type Target, type TargetInfo } from '../storage/target.js';
import { authOf, plainUrlOf, traitsOf } from '../storage/target-info.js';
import { urlStore } from '../storage/url-store.js';
import { setFixtures } from '../strategies/many-blobs.js';
import { mixItems, selectMixStrategies } from '../strategies/mix.js';
import type { DownloadStrategy, UploadStrategy } from '../strategies/strategy.js';
import { shardItems } from '../scaleout/shard.js';
import { checkUploadFits } from './limits.js';
import { drawnParams } from './size-params.js';
import type { CellSetup, Contender, PreparedRun } from './session.js';
import { buildJob } from './job.js';
import { openOnTarget, type OpenedOn } from './target-cell.js';
import { DOWNLOAD_WORKLOADS } from '../plan/workload.js';

type Config = DownloadConfig | UploadConfig;

/** Where a session's PUTs and DELETEs go: a name of its own, never a fixture's. */
function sessionPrefix(): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
  return `mix-${stamp}-${nodeCrypto().randomBytes(3).toString('hex')}`;
}

const directionOf = (config: Config) => ('uploadMethod' in config ? 'upload' : 'download');
const methodOf = (config: Config) => ('uploadMethod' in config ? config.uploadMethod : config.sourceMethod);

export function mixSetup(config: Config, mix: MixDraw): CellSetup {
  const prefix = sessionPrefix();
  return {
    open: (session) =>
      openOnTarget(
        config,
        session,
        (target, signal) => openMix(config, mix, target, prefix, signal, session),
        (target) =>
          `target: ${target.label}; mix ${mixText(mix.weights)} (seed ${mix.seed}), writes below ${prefix}/`,
      ),
  };
}

async function openMix(
  config: Config,
  mix: MixDraw,
  target: Target,
  prefix: string,
  signal: AbortSignal,
  session: AbortSignal,
): Promise<OpenedOn> {
  const strategies = selectMixStrategies(
    directionOf(config),
    methodOf(config),
    !traitsOf(target.info).blobService,
  );
  checkUploadFits(config.fileCount, true);
  const fixtures = setFixtures({
    sizeBytes: config.fileSizeBytes,
    fileCount: config.fileCount,
    concurrency: 1,
    ...(config.fileSizes ? { fileSizes: config.fileSizes } : {}),
  });
  const { info, store } = await openSet(config, target, prefix, fixtures, signal);
  const pageSize = 'pageSize' in config ? config.pageSize : 5000;
  const items = mixItems({ set: fixtures.files, mix, prefix, pageSize });
  const getBytes = totalBytes(items.filter((i) => opAt(mix, i.index) === 'get'));
  const run = { config, mix, store, prefix, items, getBytes, largestBytes: fixtures.sizeBytes };
  const contenders = strategies.map(
    (s): Contender => ({
      strategy: s.name,
      description: s.description,
      prepare: async () => prepareMixRun(run, s, await forRun(target, info, session)),
    }),
  );
  return {
    objectSizeBytes: getBytes,
    contenders,
    params: {
      processes: config.processes,
      maxSockets: config.maxSockets,
      concurrency: config.concurrency,
      fileCount: config.fileCount,
      fileSizeBytes: fixtures.sizeBytes,
      pageSize,
      mixWeights: [...mix.weights],
      mixSeed: mix.seed,
      ...(config.fileSizes ? drawnParams(config.fileSizes, config.fileCount) : {}),
    },
    async close(_interrupted, ctx) {
      if (!ctx.stopped) await store.close?.();
      return true;
    },
  };
}

/** The set made (or found) before any run, and the store that removes what PUTs wrote. */
async function openSet(
  config: Config,
  target: Target,
  prefix: string,
  fixtures: ReturnType<typeof setFixtures>,
  signal: AbortSignal,
): Promise<{ info: TargetInfo; store: UploadStore }> {
  const { timeoutMs, maxRetries } = config;
  const plain = plainUrlOf(target.info);
  if (!plain) {
    const container = await coordinatorClient(target);
    await preflightContainer(container, target.label, authOf(target.info), { timeoutMs, signal });
    await ensureFixtures(container, [fixtures], signal);
    return { info: target.info, store: blobStore(container) };
  }
  const info = { ...plain, folder: true };
  await ensureUrlFixtures(info, [fixtures], { timeoutMs, maxRetries, signal });
  const probe = new RequestSigner(info).blobUrl(`${prefix}/probe`);
  const { deleteRefused } = await preflightUrlUpload(plain.url, probe, { timeoutMs, signal });
  return { info, store: urlStore(plain, { prefix, timeoutMs, deleteRefused }) };
}

interface MixRun {
  config: Config;
  mix: MixDraw;
  store: UploadStore;
  prefix: string;
  items: WorkItem[];
  getBytes: number;
  /** The set's largest file. */
  largestBytes: number;
}

/** The worker job of a mix: each file in one request, its GETs checked, its PUTs read back where needed. */
function mixJob(
  r: MixRun,
  strategy: DownloadStrategy | UploadStrategy,
  info: TargetInfo,
  items: Items,
): PreparedRun['job'] {
  const { config, mix, getBytes } = r;
  return buildJob({
    config,
    strategy: { name: strategy.name, kind: strategy.mixKind!, jobOptions: strategy.jobOptions },
    target: info,
    items,
    objectSizeBytes: getBytes,
    // Its own options (the SDK's: MAX_SOCKETS calls in flight, each file in one request).
    settings: { sizeBytes: config.fileSizeBytes },
    own: {
      sink: 'sink' in config ? config.sink : 'discard',
      bufferSizeBytes: 'bufferSizeBytes' in config ? config.bufferSizeBytes : 256 * 1024,
      // Every GET's bytes are checked against the content its name implies.
      hashRanges: true,
      // A plain server says nothing of what it stored: PUTs are read back after the timed section.
      ...(traitsOf(info).storesMd5 ? {} : { readBack: true }),
      mix,
    },
    // Each file in one request, as our GET reads it, whatever the direction's options say.
    fixed: { blockSizeBytes: Math.max(1, r.largestBytes), concurrency: 1 },
  });
}

async function prepareMixRun(
  r: MixRun,
  strategy: DownloadStrategy | UploadStrategy,
  info: TargetInfo,
): Promise<PreparedRun> {
  const { mix, store, getBytes } = r;
  const kind = await loadKind(strategy.mixKind!);
  const items: Items = shardItems(r.items, r.config.scaleout?.shard);
  return {
    items,
    objectSizeBytes: getBytes,
    unit: kind.unit('files'),
    job: mixJob(r, strategy, info, items),
    verify: (merged) =>
      kind.verify({
        workload: DOWNLOAD_WORKLOADS.files,
        items,
        records: merged.records,
        target: info,
        expectedBytes: getBytes,
        whole: true,
        equalToFixture: new Set(merged.workers.flatMap((w) => w.equalToFixture ?? [])),
        store,
        mix,
      }),
    // What PUTs wrote goes, so that the next run's PUTs write fresh names again.
    async cleanup(_verified, _merged, ctx) {
      const puts = keepItems(items, (i) => opAt(mix, i.index) === 'put');
      if (!puts.length) return;
      const { left } = await store.remove(r.prefix, puts, { signal: ctx.signal, progress: ctx.progress });
      if (left) log.warn(store.leftBehind(r.prefix, left));
    },
  };
}
