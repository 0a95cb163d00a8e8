// The upload workload: what is direction-specific about uploads (a per-run blob prefix, the store
// that checks and deletes what was written, the commit of staged blocks); the loop that runs it is
// engine/session.ts. Runs never collide: every blob name starts with the run's prefix, and the
// run's blobs are deleted unless --keep. A plain HTTP(S) server (--url) takes the same names as
// paths below its URL.
import { nodeCrypto } from '../startup/lazy.js';
import type { UploadConfig } from '../config/load.js';
import { log } from '../log/logger.js';
import type { MeasuredRun } from '../results/record.js';
import { forRun, type Target } from '../storage/target.js';
import { selectUploadStrategies, UPLOAD_STRATEGIES, workloadOf } from '../strategies/index.js';
import { checkUploadFits } from './limits.js';
import { drawnParams } from './size-params.js';
import { prepareUploadRun } from './upload-run.js';
import { runSession, sessionCell, type CellSetup, type Contender, type SessionOptions } from './session.js';
import { openOnTarget, type OpenedOn } from './target-cell.js';

export function runPrefix(): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
  return `run-${stamp}-${nodeCrypto().randomBytes(3).toString('hex')}`;
}

export interface UploadSetup extends CellSetup {
  /** Every blob name of this session starts with it. */
  prefix: string;
}

export function uploadSetup(config: UploadConfig): UploadSetup {
  const prefix = runPrefix();
  return {
    prefix,
    open: (session) =>
      openOnTarget(
        config,
        session,
        (target, signal) => openUploads(config, target, prefix, signal, session),
        (target) => `target: ${target.label}; ${target.traits.nameWord} prefix ${prefix}/`,
      ),
  };
}

async function openUploads(
  config: UploadConfig,
  target: Target,
  prefix: string,
  signal: AbortSignal,
  session: AbortSignal,
): Promise<OpenedOn> {
  const strategies = selectUploadStrategies(config.uploadMethod, !target.traits.blobService);
  if (!target.traits.blobService && config.uploadMethod === 'all') {
    const skipped = UPLOAD_STRATEGIES.filter((s) => !strategies.includes(s)).map((s) => s.name);
    log.info(
      `--url is a plain server: running ${strategies.map((s) => s.name).join(', ')} only ` +
        `(${skipped.join(', ')} need a blob service)`,
    );
  }
  const manyBlobs = strategies.some((s) => workloadOf(s).many);
  checkUploadFits(config.fileCount, manyBlobs);
  const limit = target.traits.blobLimit;
  if (manyBlobs && limit !== undefined && config.fileCount > limit) {
    log.warn(
      `${config.fileCount} files per run is more than the embedded Azurite handles in reasonable time ` +
        '(it slows superlinearly: 2,400 files took 20 s and 5,000 took 108 s of wall time on a 2-core ' +
        'machine); measure against a local nginx (--url http://127.0.0.1:PORT/dav/) or a real account ' +
        '(--account, STORAGE_*) instead',
    );
  }
  const { timeoutMs, keep } = config;
  const { info, store } = await target.openUploads(prefix, { timeoutMs, keep, signal });
  const shared = { config, store, prefix, signal: session };
  const contenders = strategies.map(
    (s): Contender => ({
      strategy: s.name,
      description: s.description,
      // Each run's job carries the target as it is then: an Entra ID token is renewed between runs.
      prepare: async (run) => prepareUploadRun(shared, await forRun(target, info, session), s, run),
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
      ...(config.fileSizes ? drawnParams(config.fileSizes, config.fileCount) : {}),
    },
    // After a stop the runs' lines have named what is left; the folders go with those files. The
    // embedded Azurite's blobs live in its memory and end with it: nothing is deleted from it.
    async close(_interrupted, ctx) {
      if (!config.keep && !target.traits.ephemeral && !ctx.stopped) await store.close?.();
      return true;
    },
  };
}

export interface UploadRunResult {
  target: string;
  prefix: string;
  results: MeasuredRun[];
  interrupted: boolean;
}

/** One upload session, its runs as the engine holds them (every raw request kept). */
export async function runUpload(config: UploadConfig, opts: SessionOptions = {}): Promise<UploadRunResult> {
  const setup = uploadSetup(config);
  const out = await runSession([sessionCell(config, setup)], opts);
  return { target: out.target, prefix: setup.prefix, results: out.runs, interrupted: out.interrupted };
}
