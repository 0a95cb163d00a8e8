// What tune derives from its arguments before and while it searches: the arguments each cell runs
// with, the axes it searches, what it compares of a measured cell, and the settings a deployment
// keeps that the search did not choose.
import { givenText, type DownloadConfig, type Sources, type UploadConfig } from '../config/load.js';
import { TUNE_OPTIONS, type AnyOption } from '../config/options.js';
import { machineLimits, readMachine } from '../metrics/machine-limits.js';
import type { MeasuredRun } from '../results/record.js';
import { runFailed, type Cell } from '../results/schema.js';
import { readersOf, selectStrategies } from '../strategies/index.js';
import { tuneAxes } from '../tune/axes.js';
import type { CellMeasure, ThrottleClass, TuneAxis } from '../tune/search.js';
import { isPlainUrl } from '../vocabulary/credentials.js';

type Config = DownloadConfig | UploadConfig;

/**
 * Runs per cell when neither --runs nor --min-time is given: enough for the rank test, few enough to search.
 */
export const CELL_RUNS = ['--runs', '5', '--warmup', '1'];

/**
 * Options that shape each request beside the searched ones: where given (flag, environment or
 * dotenv file), the deploy lines carry them, so that what is deployed is what was measured.
 */
const DEPLOYED = [
  '--range-size',
  '--hedge',
  '--hedge-on',
  '--http-client',
  '--buffer-size',
  '--sink',
  '--connections',
  '--page-size',
  '--threshold',
];

export const given = (args: readonly string[], flag: string) =>
  args.some((a) => a === flag || a.startsWith(`${flag}=`));

/** The args without tune's own options (each flag with its value). */
export function withoutTuneOptions(args: readonly string[]): string[] {
  const own = TUNE_OPTIONS.map((o) => o.flag);
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (own.some((f) => a.startsWith(`${f}=`))) continue;
    if (own.includes(a)) {
      i++;
      continue;
    }
    out.push(a);
  }
  return out;
}

/** The flag an argument belongs to: itself, the one before a value, or the name before `=`. */
export function flagAt(args: readonly string[], i: number): string {
  const a = args[i]!;
  if (a.startsWith('--')) return a.split('=')[0]!;
  const before = args[i - 1];
  return before?.startsWith('--') && !before.includes('=') ? before : '';
}

export function axesFor(mode: 'download' | 'upload', base: Config, args: readonly string[]): TuneAxis[] {
  const fixed = new Set(
    ['--concurrency', '--max-sockets', '--processes', '--block-size', '--prefetch'].filter((f) =>
      given(args, f),
    ),
  );
  // A training run's samples are whole files: ranges in flight are no setting of theirs.
  const prefetch = base.train?.prefetch;
  if (prefetch !== undefined) fixed.add('--concurrency');
  // A mix sends each file in one request: --concurrency (ranges, blocks) is not one of its settings.
  if (base.mix) fixed.add('--concurrency');
  const url = isPlainUrl(base.credentials);
  const strategies =
    'sourceMethod' in base
      ? selectStrategies(base.sourceMethod, url).map((s) => s.name)
      : [base.uploadMethod];
  // Block sizes and blocks in flight matter only where blocks are staged; many small files each go
  // in one Put Blob, as many at once as the sockets allow.
  if (!('blockSizeBytes' in base) || !readersOf('upload', 'blockSize').includes(base.uploadMethod))
    fixed.add('--block-size');
  if ('uploadMethod' in base && !readersOf('upload', 'concurrency').includes(base.uploadMethod))
    fixed.add('--concurrency');
  return tuneAxes({
    direction: mode,
    strategies,
    cores: machineLimits(readMachine()).cores,
    fixed,
    start: {
      processes: base.processes,
      maxSockets: base.maxSockets,
      concurrency: base.concurrency,
      ...('blockSizeBytes' in base ? { blockSizeBytes: base.blockSizeBytes } : {}),
    },
    ...(prefetch === undefined ? {} : { prefetch }),
  });
}

/** What the search compares of a cell: its measured runs' times, what throttled, what it all took. */
export function cellMeasure(runs: readonly MeasuredRun[]): CellMeasure {
  const measured = runs.filter((r) => !r.warmup);
  const ok = measured.filter((r) => !runFailed(r));
  const throttled = measured.reduce((n, r) => n + r.throttled, 0);
  // Which limit: each run counts its throttled answers by the limit their body named, those a
  // retry overcame and those that ended their request (--max-retries 0) alike.
  const classes = new Map<ThrottleClass, number>();
  for (const r of measured) {
    for (const [c, n] of Object.entries(r.throttledBy ?? {}) as [ThrottleClass, number][])
      classes.set(c, (classes.get(c) ?? 0) + n);
  }
  const throttleClass = throttled
    ? ([...classes.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'other')
    : undefined;
  return {
    // A cell whose every run failed has no time to compare: it is never better than another.
    runMs: ok.length === measured.length ? ok.map((r) => r.wallMs) : [],
    throttled: throttled + (ok.length < measured.length && classes.size ? 1 : 0),
    ...(throttleClass ? { throttleClass } : {}),
    spentMs: runs.reduce((s, r) => s + r.wallMs, 0),
  };
}

/** Where the options came from: the given text of a DEPLOYED one is read from there. */
export interface Given {
  specs: readonly AnyOption[];
  flags: Readonly<Record<string, unknown>>;
  sources: Sources;
}

/** What a deployment needs that the tune did not search: strategy, counts and the DEPLOYED options given. */
export function fixedSettings(
  base: Config,
  searched: ReadonlySet<string>,
  { specs, flags, sources }: Given,
): Cell {
  const all: Record<string, string> =
    'sourceMethod' in base
      ? { '--source-method': base.sourceMethod, '--concurrency': String(base.concurrency) }
      : {
          '--upload-method': base.uploadMethod,
          ...(readersOf('upload', 'blockSize').includes(base.uploadMethod)
            ? { '--concurrency': String(base.concurrency), '--block-size': String(base.blockSizeBytes) }
            : {}),
        };
  all['--max-sockets'] = String(base.maxSockets);
  all['--processes'] = String(base.processes);
  for (const spec of specs.filter((s) => DEPLOYED.includes(s.flag) && !s.secret)) {
    const text = givenText(spec, flags, sources);
    if (text !== undefined) all[spec.flag] = text.trim();
  }
  return Object.fromEntries(Object.entries(all).filter(([k]) => !searched.has(k)));
}
