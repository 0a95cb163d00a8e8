// The download workload: what is direction-specific about downloads (target size, fixtures, sinks
// and output files, MD5 checks); the loop that runs it is engine/session.ts.
// Takes a typed config; never sees argv or the environment.
import type { DownloadConfig } from '../config/load.js';
import { CONTAINER_FIXTURES } from '../fixture-setup/fixtures.js';
import { makeScratchDir } from '../payload/scratch.js';
import { URL_FIXTURES } from '../fixture-setup/url-fixtures.js';
import type { MeasuredRun } from '../results/record.js';
import { forRun, type FixtureState, type FixtureWriters, type Target } from '../storage/target.js';
import { downloadPlan } from './download-plan.js';
import { prepareDownloadRun } from './download-run.js';
import { runSession, sessionCell, type CellSetup, type Contender, type SessionOptions } from './session.js';
import { openOnTarget, type OpenedOn } from './target-cell.js';

export interface DownloadSetup extends CellSetup {
  /** Filled in when opened: which fixtures this run created and which it found. */
  fixtures: FixtureState;
}

/** Fixtures go into a blob container or below a plain URL: the target picks its writer. */
const FIXTURE_WRITERS: FixtureWriters = { container: CONTAINER_FIXTURES, url: URL_FIXTURES };

/** The download set-up of a typed config: the loader gave every field its value, defaults included. */
export function downloadSetup(config: DownloadConfig): DownloadSetup {
  const setup: DownloadSetup = {
    fixtures: { created: [], reused: 0 },
    open: (session) =>
      openOnTarget(config, session, (target, signal) =>
        openDownloads(config, target, signal, session, setup),
      ),
  };
  return setup;
}

async function openDownloads(
  config: DownloadConfig,
  target: Target,
  signal: AbortSignal,
  session: AbortSignal,
  setup: DownloadSetup,
): Promise<OpenedOn> {
  const plan = await downloadPlan(config, target, signal);
  const { strategies, input, info } = plan;
  const lists = strategies.flatMap((s) => (s.fixtures ? [s.fixtures(input)] : []));
  const fixtures = await target.openFixtures(lists, FIXTURE_WRITERS, {
    set: plan.many,
    keepContainer: Boolean(config.scaleout),
    timeoutMs: config.timeoutMs,
    maxRetries: config.maxRetries,
    signal,
  });
  setup.fixtures = fixtures.state;
  // Output files without --out go to a directory of our own, never to a predictable name.
  const scratch = config.sink === 'discard' || config.sink === 'memory' ? undefined : await makeScratchDir();
  const shared = { config, input, scratch };
  const contenders = strategies.map(
    (s): Contender => ({
      strategy: s.name,
      description: s.description,
      // Each run's job carries the target as it is then: an Entra ID token is renewed between runs.
      prepare: async (run) =>
        prepareDownloadRun(shared, await forRun(target, info, session), s, plan.deliveredBy(s), run),
    }),
  );
  return {
    objectSizeBytes: Math.max(...strategies.map(plan.deliveredBy)),
    contenders,
    params: plan.params,
    async close(interrupted) {
      await scratch?.remove();
      // Interrupted runs clean up the fixtures they created, as --cleanup would.
      if (config.cleanup || interrupted) await fixtures.removeCreated();
    },
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
  const setup = downloadSetup(config);
  const out = await runSession([sessionCell(config, setup)], opts);
  return {
    target: out.target,
    objectSizeBytes: out.objectSizeBytes ?? config.fileSizeBytes,
    results: out.runs,
    fixtures: setup.fixtures,
    interrupted: out.interrupted,
  };
}
