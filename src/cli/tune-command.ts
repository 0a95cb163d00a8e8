// `blob-cacher tune [download|upload] [options]`: the search over strategy x processes x sockets x
// concurrency (x block size for uploads) as a session whose cells are chosen as it goes. Each cell is
// an ordinary session part (the same workers, verdict and results file); the tune's path, where it
// stopped and where throttling began are recorded beside the runs, and `report` renders them.
import { machineLimits, readMachine } from '../metrics/machine-limits.js';
import { ConfigError, escapeControls } from '../config/errors.js';
import {
  buildProgram, givenText, loadDownloadConfig, loadUploadConfig, parseFlags, redactedConfig, resolveOptions,
  type DownloadConfig, type Sources, type UploadConfig,
} from '../config/load.js';
import { MIN_RUNS_FOR_SIGNIFICANCE } from '../analysis/significance.js';
import { DOWNLOAD_OPTIONS, TUNE_OPTIONS, UPLOAD_OPTIONS, type AnyOption } from '../config/options.js';
import { cellArgv } from '../config/sweep.js';
import { log, setLogLevel } from '../log/logger.js';
import { runFailed, type Cell, type TuneRecord } from '../results/schema.js';
import { readersOf, selectStrategies } from '../strategies/index.js';
import { tuneAxes } from '../tune/axes.js';
import { tuneSearch, type CellMeasure, type ThrottleClass, type TuneAxis } from '../tune/search.js';
import { checkProcessesFit } from './machine-fit.js';
import { outputOf } from './output.js';
import { cellOf, directionOf, measure, registerSecrets, type Env } from './run-cli.js';
import { checkOutPath, readSources } from './sources.js';
import type { MeasuredRun } from '../results/record.js';

const TUNE_USAGE = `usage: blob-cacher tune [download|upload] [options]
Searches for the fastest settings on this target: from the defaults, it doubles one setting at a
time while the step is significantly faster (the verdict's rank test), then tries the neighbours of
the best, and stops when none is faster, when --budget is spent, or where throttling begins.
  download: --source-method (among those given, default all), --concurrency, --max-sockets, --processes
  upload:   --concurrency, --max-sockets, --processes, and --block-size for blocks and sdk-upload
A setting given on the command line is kept as given, not searched. Each cell runs --runs 5 after
--warmup 1 unless --runs or --min-time says otherwise.
  --budget <duration>  the measured time the search may spend (default 2m)
The other options are those of the download or upload command (see its --help), e.g.
  blob-cacher tune download --url http://127.0.0.1:8080/large.bin --source-method single,chunked --budget 1m
`;

/** Runs per cell when neither --runs nor --min-time is given: enough for the rank test, few enough to search. */
const CELL_RUNS = ['--runs', '5', '--warmup', '1'];

/**
 * Options that shape each request beside the searched ones: where given (flag, environment or
 * dotenv file), the deploy lines carry them, so that what is deployed is what was measured.
 */
const DEPLOYED = [
  '--range-size', '--hedge', '--hedge-on', '--http-client', '--buffer-size', '--sink', '--connections',
  '--page-size', '--threshold',
];

const given = (args: readonly string[], flag: string) => args.some((a) => a === flag || a.startsWith(`${flag}=`));

/** The args without tune's own options (each flag with its value). */
function withoutTuneOptions(args: readonly string[]): string[] {
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

type Config = DownloadConfig | UploadConfig;

export async function tuneCommand(argv: readonly string[], env: Env): Promise<number> {
  if (argv[0] !== undefined && !argv[0].startsWith('-') && argv[0] !== 'upload' && argv[0] !== 'download') {
    throw new ConfigError(`tune searches a download or an upload, not "${escapeControls(argv[0])}"; run blob-cacher tune download … or tune upload …`);
  }
  const { mode, args } = directionOf(argv);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(TUNE_USAGE);
    return 0;
  }
  const specs = mode === 'upload' ? UPLOAD_OPTIONS : DOWNLOAD_OPTIONS;
  const flags = parseFlags(buildProgram(`tune ${mode}`, [...specs, ...TUNE_OPTIONS], ''), args)!;
  const sources = readSources(specs, flags, env);
  const load = (f: Record<string, unknown>) => (mode === 'upload' ? loadUploadConfig(f, readSources(specs, f, env)) : loadDownloadConfig(f, readSources(specs, f, env)));
  const base = load(flags);
  registerSecrets([base.credentials, base.scaleout?.store], env);
  setLogLevel(base.logLevel);
  if (base.steady) throw new ConfigError('tune compares fixed runs; drop --duration (a steady run is measured with download or upload)');
  if (base.scaleout) throw new ConfigError('tune runs on one machine; drop the scale-out options (--parallelism, --index, --run-id)');
  const { budgetMs } = resolveOptions(TUNE_OPTIONS, flags, sources);
  const rest = withoutTuneOptions(args);
  // Any say over how long a cell runs is the user's; else the few runs a search can afford.
  const fixedArgs = ['--runs', '--min-time', '--max-runs', '--precision'].some((f) => given(rest, f)) ? rest : [...rest, ...CELL_RUNS];
  // Fewer runs a cell than the rank test needs, and it can never call one cell faster than another:
  // every cell would be "as good", and the search would walk down to the fewest resources.
  const runsPerCell = load(parseFlags(buildProgram(`tune ${mode}`, specs, ''), fixedArgs)!).runs;
  if (runsPerCell < MIN_RUNS_FOR_SIGNIFICANCE) {
    const least = MIN_RUNS_FOR_SIGNIFICANCE;
    throw new ConfigError(`tune needs at least ${least} measured runs a cell: with ${runsPerCell} its rank `
      + 'test can never tell one cell faster than another; '
      + `give --runs ${least} or more (or leave --runs out: 5)`);
  }
  const axes = axesFor(mode, base, rest);
  if (!axes.length) throw new ConfigError('every setting tune searches was given on the command line; leave one out (e.g. --concurrency) to search it');
  const searched = new Set(axes.map((a) => a.flag));
  // A cell is the fixed options with the searched ones set: parsed and validated as the command's own.
  const configOf = (cell: Cell): Config => {
    const cellFlags = parseFlags(buildProgram(`tune ${mode}`, specs, ''), cellArgv(fixedArgs.filter((_, i, all) => !searched.has(flagAt(all, i))), cell))!;
    const config = load(cellFlags);
    checkOutPath(config);
    checkProcessesFit(config.processes);
    return config;
  };
  const output = await outputOf(flags, env, sources);
  const title = `blob-cacher tune ${mode}: ${axes.map((a) => a.flag.replace(/^--/, '')).join(' x ')}, budget ${budgetMs / 1000} s`;
  return measure({
    command: mode, config: base, title, stem: `tune-${mode}`, output, cells: [],
    docConfig: { tune: { axes: axes.map((a) => a.flag), budgetMs }, base: redactedConfig(base) },
    drive: async (run, doc, signal) => {
      let last: Awaited<ReturnType<typeof run>> | undefined;
      const record: TuneRecord = {
        direction: mode, axes: axes.map(({ flag, values, ordered }) => ({ flag, values: [...values], ordered })), budgetMs,
        fixed: fixedSettings(base, searched, { specs, flags, sources }),
        stopped: 'converged', path: [], throttling: [],
      };
      doc.tune = record;
      const outcome = await tuneSearch({
        axes, budgetMs, signal, throttling: record.throttling,
        measure: async (cell, why, decided) => {
          log.info(`tune step ${why.step + 1} (${why.reason}${why.axis ? ` ${why.axis}` : ''}): ${Object.entries(cell).map(([k, v]) => `${k} ${v}`).join(' ')}`);
          const sessionCell = await cellOf(configOf(cell), cell);
          // A race: a cell already significantly slower than the fastest one stops at that run.
          last = await run([decided ? { ...sessionCell, decided: (_strategy, runMs) => decided(runMs) } : sessionCell]);
          const measured = cellMeasure(last.runs);
          record.path.push({ cell, reason: why.reason, ...(why.axis ? { axis: why.axis } : {}), spentMs: measured.spentMs, throttled: measured.throttled, ...(measured.throttleClass ? { throttleClass: measured.throttleClass } : {}) });
          return measured;
        },
      });
      // No best where no cell was measured: a failed or unmeasured cell is never the answer.
      record.stopped = outcome.stopped;
      if (outcome.best) record.best = outcome.best.cell;
      if (!last) throw new ConfigError('tune: no cell was measured');
      return last;
    },
  });
}

/** The flag an argument belongs to: itself, the one before a value, or the name before `=`. */
function flagAt(args: readonly string[], i: number): string {
  const a = args[i]!;
  if (a.startsWith('--')) return a.split('=')[0]!;
  const before = args[i - 1];
  return before?.startsWith('--') && !before.includes('=') ? before : '';
}

function axesFor(mode: 'download' | 'upload', base: Config, args: readonly string[]): TuneAxis[] {
  const fixed = new Set(['--concurrency', '--max-sockets', '--processes', '--block-size'].filter((f) => given(args, f)));
  const url = base.credentials.kind === 'url';
  const strategies = 'sourceMethod' in base ? selectStrategies(base.sourceMethod, url).map((s) => s.name) : [base.uploadMethod];
  // Block sizes and blocks in flight matter only where blocks are staged; many small files each go
  // in one Put Blob, as many at once as the sockets allow.
  if (!('blockSizeBytes' in base) || !readersOf('upload', 'blockSize').includes(base.uploadMethod)) fixed.add('--block-size');
  if ('uploadMethod' in base && !readersOf('upload', 'concurrency').includes(base.uploadMethod)) fixed.add('--concurrency');
  return tuneAxes({
    direction: mode, strategies, cores: machineLimits(readMachine()).cores, fixed,
    start: { processes: base.processes, maxSockets: base.maxSockets, concurrency: base.concurrency, ...('blockSizeBytes' in base ? { blockSizeBytes: base.blockSizeBytes } : {}) },
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
    for (const [c, n] of Object.entries(r.throttledBy ?? {}) as [ThrottleClass, number][]) classes.set(c, (classes.get(c) ?? 0) + n);
  }
  const throttleClass = throttled ? ([...classes.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? 'other') : undefined;
  return {
    // A cell whose every run failed has no time to compare: it is never better than another.
    runMs: ok.length === measured.length ? ok.map((r) => r.wallMs) : [],
    throttled: throttled + (ok.length < measured.length && classes.size ? 1 : 0),
    ...(throttleClass ? { throttleClass } : {}),
    spentMs: runs.reduce((s, r) => s + r.wallMs, 0),
  };
}

/** Where the options came from: the given text of a DEPLOYED one is read from there. */
interface Given {
  specs: readonly AnyOption[];
  flags: Readonly<Record<string, unknown>>;
  sources: Sources;
}

/** What a deployment needs that the tune did not search: strategy, counts and the DEPLOYED options given. */
function fixedSettings(base: Config, searched: ReadonlySet<string>, { specs, flags, sources }: Given): Cell {
  const all: Record<string, string> = 'sourceMethod' in base
    ? { '--source-method': base.sourceMethod, '--concurrency': String(base.concurrency) }
    : { '--upload-method': base.uploadMethod, ...(readersOf('upload', 'blockSize').includes(base.uploadMethod) ? { '--concurrency': String(base.concurrency), '--block-size': String(base.blockSizeBytes) } : {}) };
  all['--max-sockets'] = String(base.maxSockets);
  all['--processes'] = String(base.processes);
  for (const spec of specs.filter((s) => DEPLOYED.includes(s.flag) && !s.secret)) {
    const text = givenText(spec, flags, sources);
    if (text !== undefined) all[spec.flag] = text.trim();
  }
  return Object.fromEntries(Object.entries(all).filter(([k]) => !searched.has(k)));
}
