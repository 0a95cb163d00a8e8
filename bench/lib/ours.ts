// Drives blob-cacher as a user would: `node dist/cli.js download|upload …` in its own process, one
// measured run per call (so runs alternate with the peers), reading back its results file.
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as Content from '../../dist/payload/content.js';
import type { ResultsFile } from '../../dist/results/schema.js';
import { runProcess } from './proc.ts';
import { failedSample, type Contender, type Sample } from './sample.ts';

const here = dirname(fileURLToPath(import.meta.url));
export const REPO_DIR = resolve(here, '..', '..');
/** The build to measure: dist/ of this checkout unless BLOB_CACHER_DIST names another. */
export const DIST_DIR = resolve(process.env.BLOB_CACHER_DIST ?? join(REPO_DIR, 'dist'));
const CLI = join(DIST_DIR, 'cli.js');
const PRELOAD = pathToFileURL(join(here, 'peak-rss.mjs')).href;

/** Imports a module of the build under test, e.g. distImport<typeof import('…')>('analysis/analyze.js'). */
export function distImport<T>(relative: string): Promise<T> {
  return import(pathToFileURL(join(DIST_DIR, relative)).href) as Promise<T>;
}

/** A file of blob-cacher's fixture bytes (the seed's stream from 0), as its fixtures would hold. */
export async function writeFixtureFile(path: string, bytes: number): Promise<void> {
  const { contentPieces, FIXTURE_SEED } = await distImport<typeof Content>('payload/content.js');
  const fh = await open(path, 'w');
  try {
    for (const piece of contentPieces(FIXTURE_SEED, 0, bytes)) await fh.write(piece);
  } finally {
    await fh.close();
  }
}

export function checkBuild(): string | undefined {
  return existsSync(CLI)
    ? undefined
    : `no build at ${DIST_DIR}: run \`npm run build\` (npm run bench builds first)`;
}

export interface OursCall {
  command: 'download' | 'upload' | 'checkpoint';
  args: readonly string[];
  /** Extra environment, e.g. STORAGE_CONNECTION_STRING (kept off the command line); read at each run. */
  env?: () => NodeJS.ProcessEnv;
  /**
   * Warm-up runs before the measured one (0 unless said): where the measure is per request, the
   * measured run's worker has compiled its hot path and sized its heap, as in a default session.
   */
  warmup?: number;
  tmpDir: string;
  tag: string;
}

/** The exact command, for BENCHMARKS.md; secrets travel in the environment, never here. */
export function commandLine(call: Pick<OursCall, 'command' | 'args' | 'warmup'>): string {
  return [
    'node',
    'dist/cli.js',
    call.command,
    ...call.args,
    ...(call.warmup ? ['--warmup', String(call.warmup)] : []),
  ].join(' ');
}

export async function runOurs(call: OursCall): Promise<Sample> {
  const resultsPath = join(call.tmpDir, `ours-${call.tag}.json`);
  const rssPath = join(call.tmpDir, `ours-${call.tag}.rss`);
  rmSync(resultsPath, { force: true });
  rmSync(rssPath, { force: true });
  // --max-semi-space-size=4: what the bin's shebang gives `npx blob-cacher` (src/cli.ts).
  const args = [
    '--max-semi-space-size=4',
    '--import',
    PRELOAD,
    CLI,
    call.command,
    ...call.args,
    '--runs',
    '1',
    '--warmup',
    String(call.warmup ?? 0),
    '--results',
    resultsPath,
    '--log-level',
    'warn',
    '--format',
    'json',
  ];
  const r = await runProcess(process.execPath, args, {
    env: { ...process.env, ...call.env?.(), BENCH_RSS_FILE: rssPath },
    timeoutMs: 20 * 60_000,
  });
  if (!existsSync(resultsPath))
    return failedSample(
      `exit ${r.code ?? r.signal}: ${r.stderr.trim().split('\n').slice(-2).join(' | ')}`,
      r.processMs,
    );
  const doc = JSON.parse(readFileSync(resultsPath, 'utf8')) as ResultsFile;
  const run = doc.runs.find((s) => !s.warmup);
  if (!run) return failedSample(`no measured run in the results file (exit ${r.code})`, r.processMs);
  const peaks = existsSync(rssPath)
    ? readFileSync(rssPath, 'utf8')
        .trim()
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { role: string; maxRssBytes: number })
    : [];
  // Coordinator and workers run at the same time: the sum of their peaks bounds the total. The
  // results file's own workers[].peakRssBytes (getrusage) can include the coordinator's peak at fork.
  const peakRssBytes = peaks.length
    ? peaks.reduce((s, p) => s + p.maxRssBytes, 0)
    : run.workers.reduce((s, w) => s + w.peakRssBytes, 0);
  // A run its target vouched for no content of (a plain URL: "not verified", and why) is measured, not
  // failed: only a failed request, a check that found a difference or an exit that is not 0 fail it.
  const { runFailed } = await distImport<typeof import('../../dist/results/schema.js')>('results/schema.js');
  const ok = !runFailed(run) && r.code === 0;
  // A steady run (--duration) is measured by its rate over the active window: shown as the time of
  // one pass over its plan at that rate, beside the count-based contenders and wrk's rate.
  const steady = run.steady
    ? (await distImport<typeof import('../../dist/analysis/steady.js')>('analysis/steady.js')).steadyFigures(
        run as Parameters<typeof import('../../dist/analysis/steady.js').steadyFigures>[0],
      )
    : undefined;
  return {
    ok,
    error: ok ? undefined : (run.error ?? run.verification),
    transferMs: steady ? steady.lapTimeMs : run.wallMs,
    processMs: r.processMs,
    bytes: steady ? run.steady!.lapBytes : run.bytes,
    requests: steady ? run.steady!.lapRequests : run.requests,
    peakRssBytes,
    peakTreeRssBytes: r.peakTreeRssBytes,
    run,
  };
}

/** Peaks of each process of one call, for the memory case. */
export function rssBreakdown(tmpDir: string, tag: string): { role: string; maxRssBytes: number }[] {
  const rssPath = join(tmpDir, `ours-${tag}.rss`);
  if (!existsSync(rssPath)) return [];
  return readFileSync(rssPath, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { role: string; maxRssBytes: number });
}

/** One of our configurations as a contender; each run is one CLI call. */
export function ours(
  label: string,
  call: Omit<OursCall, 'tag'>,
): Contender & { command: string; tagOf(run: number): string } {
  const slug = label
    .replace(/[^a-z0-9]+/gi, '-')
    .replace(/^-|-$/g, '')
    .toLowerCase();
  const tagOf = (run: number) => `${slug}-${run}`;
  return {
    label,
    ours: true,
    timing: 'in-tool wallMs',
    command: commandLine(call),
    tagOf,
    run: (run) => runOurs({ ...call, tag: tagOf(run) }),
  };
}
