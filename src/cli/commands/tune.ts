// `blob-cacher tune [download|upload] [options]`: the search over strategy x processes x sockets x
// concurrency (x block size for uploads) as a session whose cells are chosen as it goes. Each cell is
// an ordinary session part (the same workers, verdict and results file); the tune's path, where it
// stopped and where throttling began are recorded beside the runs, and `report` renders them.
import { ConfigError, escapeControls } from '../../config/errors.js';
import {
  buildProgram,
  loadDownloadConfig,
  loadUploadConfig,
  parseFlags,
  redactedConfig,
  resolveOptions,
  type DownloadConfig,
  type UploadConfig,
} from '../../config/load.js';
import { MIN_RUNS_FOR_SIGNIFICANCE } from '../../analysis/significance.js';
import { DOWNLOAD_OPTIONS, TUNE_OPTIONS, UPLOAD_OPTIONS } from '../../config/options.js';
import { cellArgv } from '../../config/sweep.js';
import { log, setLogLevel } from '../../log/logger.js';
import type { Cell, TuneRecord } from '../../results/schema.js';
import { tuneSearch, type TuneAxis } from '../../tune/search.js';
import { checkProcessesFit } from '../machine-fit.js';
import { outputOf } from '../output.js';
import { tuneRateCommand } from '../tune-rate.js';
import { cellOf, directionOf, registerSecrets, type Env } from '../command-kit.js';
import { measure, type Measurement } from '../measure.js';
import { checkOutPath, readSources } from '../sources.js';
import {
  axesFor,
  CELL_RUNS,
  cellMeasure,
  fixedSettings,
  flagAt,
  given,
  withoutTuneOptions,
  type Given,
} from '../tune-plan.js';

const TUNE_USAGE = `usage: blob-cacher tune [download|upload] [options]
Searches for the fastest settings on this target: from the defaults, it doubles one setting at a
time while the step is significantly faster (the verdict's rank test), then tries the neighbours of
the best, and stops when none is faster, when --budget is spent, or where throttling begins.
  download: --source-method (among those given, default all), --concurrency, --max-sockets, --processes
  upload:   --concurrency, --max-sockets, --processes, and --block-size for blocks and sdk-upload
A setting given on the command line is kept as given, not searched. Each cell runs --runs 5 after
--warmup 1 unless --runs or --min-time says otherwise.
  --budget <duration>  the measured time the search may spend (default 2m)
With --slo, tune searches --rate instead: the highest offered rate whose latency keeps the SLO,
from a start (doubled or halved until bracketed) or a range's ends, then bisected to within 10%;
each rate a steady run (--duration) of the other settings as given (docs/open-loop.md).
  blob-cacher tune download --url http://127.0.0.1:8080/k.bin --source-method single --duration 5s \
    --rate 100..2000/s --slo 'p99<200ms'
The other options are those of the download or upload command (see its --help), e.g.
  blob-cacher tune download --url http://127.0.0.1:8080/large.bin --source-method single,chunked --budget 1m
`;

type Config = DownloadConfig | UploadConfig;

export async function tuneCommand(argv: readonly string[], env: Env): Promise<number> {
  if (argv[0] !== undefined && !argv[0].startsWith('-') && argv[0] !== 'upload' && argv[0] !== 'download') {
    throw new ConfigError(
      `tune searches a download or an upload, not "${escapeControls(argv[0])}"; run blob-cacher tune download … or tune upload …`,
    );
  }
  const { mode, args } = directionOf(argv);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(TUNE_USAGE);
    return 0;
  }
  if (given(args, '--slo') || env.BLOB_CACHER_SLO) return tuneRateCommand(mode, args, env);
  const specs = mode === 'upload' ? UPLOAD_OPTIONS : DOWNLOAD_OPTIONS;
  const flags = parseFlags(buildProgram(`tune ${mode}`, [...specs, ...TUNE_OPTIONS], ''), args)!;
  const sources = readSources(specs, flags, env);
  const load = (f: Record<string, unknown>) =>
    mode === 'upload'
      ? loadUploadConfig(f, readSources(specs, f, env))
      : loadDownloadConfig(f, readSources(specs, f, env));
  const base = load(flags);
  registerSecrets([base.credentials, base.scaleout?.store], env);
  setLogLevel(base.logLevel);
  if (base.steady)
    throw new ConfigError(
      'tune compares fixed runs; drop --duration (a steady run is measured with download or upload)',
    );
  if (base.scaleout)
    throw new ConfigError(
      'tune runs on one machine; drop the scale-out options (--parallelism, --index, --run-id)',
    );
  const { budgetMs } = resolveOptions(TUNE_OPTIONS, flags, sources);
  const rest = withoutTuneOptions(args);
  // Any say over how long a cell runs is the user's; else the few runs a search can afford.
  const fixedArgs = ['--runs', '--min-time', '--max-runs', '--precision'].some((f) => given(rest, f))
    ? rest
    : [...rest, ...CELL_RUNS];
  // Fewer runs a cell than the rank test needs, and it can never call one cell faster than another:
  // every cell would be "as good", and the search would walk down to the fewest resources.
  const runsPerCell = load(parseFlags(buildProgram(`tune ${mode}`, specs, ''), fixedArgs)!).runs;
  if (runsPerCell < MIN_RUNS_FOR_SIGNIFICANCE) {
    const least = MIN_RUNS_FOR_SIGNIFICANCE;
    throw new ConfigError(
      `tune needs at least ${least} measured runs a cell: with ${runsPerCell} its rank ` +
        'test can never tell one cell faster than another; ' +
        `give --runs ${least} or more (or leave --runs out: 5)`,
    );
  }
  const axes = axesFor(mode, base, rest);
  if (!axes.length)
    throw new ConfigError(
      'every setting tune searches was given on the command line; leave one out (e.g. --concurrency) to search it',
    );
  const searched = new Set(axes.map((a) => a.flag));
  // A cell is the fixed options with the searched ones set: parsed and validated as the command's own.
  const configOf = (cell: Cell): Config => {
    const cellFlags = parseFlags(
      buildProgram(`tune ${mode}`, specs, ''),
      cellArgv(
        fixedArgs.filter((_, i, all) => !searched.has(flagAt(all, i))),
        cell,
      ),
    )!;
    const config = load(cellFlags);
    checkOutPath(config);
    checkProcessesFit(config.processes);
    return config;
  };
  const output = await outputOf(flags, env, sources);
  const title = `blob-cacher tune ${mode}: ${axes.map((a) => a.flag.replace(/^--/, '')).join(' x ')}, budget ${budgetMs / 1000} s`;
  return measure({
    command: mode,
    config: base,
    title,
    stem: `tune-${mode}`,
    output,
    cells: [],
    docConfig: { tune: { axes: axes.map((a) => a.flag), budgetMs }, base: redactedConfig(base) },
    drive: tuneDrive({ mode, axes, budgetMs, base, searched, origin: { specs, flags, sources }, configOf }),
  });
}

/**
 * What the search's drive needs of the command: the direction, the axes, the budget and each cell's config.
 */
interface TuneSetup {
  mode: 'download' | 'upload';
  axes: TuneAxis[];
  budgetMs: number;
  base: Config;
  searched: ReadonlySet<string>;
  origin: Given;
  configOf: (cell: Cell) => Config;
}

/** Runs the search's cells as the session's parts, recording its path, where it stopped and its best. */
function tuneDrive({
  mode,
  axes,
  budgetMs,
  base,
  searched,
  origin,
  configOf,
}: TuneSetup): NonNullable<Measurement['drive']> {
  return async (run, doc, signal) => {
    let last: Awaited<ReturnType<typeof run>> | undefined;
    const record: TuneRecord = {
      direction: mode,
      axes: axes.map(({ flag, values, ordered }) => ({ flag, values: [...values], ordered })),
      budgetMs,
      fixed: fixedSettings(base, searched, origin),
      stopped: 'converged',
      path: [],
      throttling: [],
    };
    doc.tune = record;
    const outcome = await tuneSearch({
      axes,
      budgetMs,
      signal,
      throttling: record.throttling,
      measure: async (cell, why, decided) => {
        log.info(
          `tune step ${why.step + 1} (${why.reason}${why.axis ? ` ${why.axis}` : ''}): ${Object.entries(cell)
            .map(([k, v]) => `${k} ${v}`)
            .join(' ')}`,
        );
        const sessionCell = await cellOf(configOf(cell), cell);
        // A race: a cell already significantly slower than the fastest one stops at that run.
        last = await run([
          decided ? { ...sessionCell, decided: (_strategy, runMs) => decided(runMs) } : sessionCell,
        ]);
        const measured = cellMeasure(last.runs);
        record.path.push({
          cell,
          reason: why.reason,
          ...(why.axis ? { axis: why.axis } : {}),
          spentMs: measured.spentMs,
          throttled: measured.throttled,
          ...(measured.throttleClass ? { throttleClass: measured.throttleClass } : {}),
        });
        return measured;
      },
    });
    // No best where no cell was measured: a failed or unmeasured cell is never the answer.
    record.stopped = outcome.stopped;
    if (outcome.best) record.best = outcome.best.cell;
    if (!last) throw new ConfigError('tune: no cell was measured');
    return last;
  };
}
