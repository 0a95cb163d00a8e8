// `blob-cacher tune [download|upload] [options]`: the search over strategy x processes x sockets x
// concurrency (x block size for uploads) as a session whose cells are chosen as it goes. Each cell is
// an ordinary session part (the same workers, verdict and results file); the tune's path, where it
// stopped and where throttling began are recorded beside the runs, and `report` renders them.
import { ConfigError, escapeControls } from '../../vocabulary/errors.js';
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
import {
  CHECKPOINT_OPTIONS,
  DOWNLOAD_OPTIONS,
  TRAIN_OPTIONS,
  TUNE_OPTIONS,
  UPLOAD_OPTIONS,
} from '../../config/options.js';
import { loadTrainConfig } from '../../config/train.js';
import { isCheckpointConfig, loadCheckpointConfig } from '../../config/checkpoint.js';
import { checkpointAxes, checkpointFixed, oneShardWrite } from '../tune-checkpoint.js';
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

const TUNE_USAGE = `usage: blob-cacher tune [download|upload|train|checkpoint] [options]
Searches for the fastest settings on this target: from the defaults, it doubles one setting at a
time while the step is significantly faster (the verdict's rank test), then tries the neighbours of
the best, and stops when none is faster, when --budget is spent, or where throttling begins.
  download: --source-method (among those given, default all), --concurrency, --max-sockets, --processes
  upload:   --concurrency, --max-sockets, --processes, and --block-size for blocks and sdk-upload
  train:    --max-sockets, --processes and --prefetch (from 0, read when asked): the least that keeps
            the accelerators busiest
  checkpoint: --processes (ranks), --max-sockets, and --block-size where shards are staged blocks
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

/**
 * What `tune NAME` searches: its direction, options and loader. A training run is a download whose
 * cells also search --prefetch (config/train.ts); a checkpoint an upload of one shard per rank.
 */
const TUNED = {
  download: { mode: 'download', specs: DOWNLOAD_OPTIONS, loader: loadDownloadConfig },
  upload: { mode: 'upload', specs: UPLOAD_OPTIONS, loader: loadUploadConfig },
  train: { mode: 'download', specs: [...DOWNLOAD_OPTIONS, ...TRAIN_OPTIONS], loader: loadTrainConfig },
  checkpoint: { mode: 'upload', specs: CHECKPOINT_OPTIONS, loader: loadCheckpointConfig },
} as const;
type TunedName = keyof typeof TUNED;

/** The command searched, and the arguments after its name. */
function tunedOf(argv: readonly string[]): { name: TunedName; args: readonly string[] } {
  const first = argv[0];
  if (first !== undefined && !first.startsWith('-') && !Object.hasOwn(TUNED, first)) {
    throw new ConfigError(
      'tune searches a download, an upload, a training run or a checkpoint, ' +
        `not "${escapeControls(first)}"; ` +
        'run blob-cacher tune download …, tune upload …, tune train … or tune checkpoint …',
    );
  }
  if (first === 'train' || first === 'checkpoint') return { name: first, args: argv.slice(1) };
  const { mode, args } = directionOf(argv);
  return { name: mode, args };
}

export async function tuneCommand(argv: readonly string[], env: Env): Promise<number> {
  const { name, args: asked } = tunedOf(argv);
  if (asked.includes('--help') || asked.includes('-h')) {
    process.stdout.write(TUNE_USAGE);
    return 0;
  }
  const { mode, specs } = TUNED[name];
  if (given(asked, '--slo') || env.BLOB_CACHER_SLO) {
    if (name !== mode)
      throw new ConfigError(
        `--slo searches the --rate a download or an upload keeps; tune ${name} has no rate: drop --slo`,
      );
    return tuneRateCommand(mode, asked, env);
  }
  const { base, flags, sources, args, load } = loadTuned(name, asked, env);
  const { budgetMs } = resolveOptions(TUNE_OPTIONS, flags, sources);
  const rest = withoutTuneOptions(args);
  const fixedArgs = cellArgs(name, rest, load);
  const axes = isCheckpointConfig(base) ? checkpointAxes(base, rest) : axesFor(mode, base, rest);
  if (!axes.length)
    throw new ConfigError(
      'every setting tune searches was given on the command line; ' +
        'leave one out (e.g. --concurrency) to search it',
    );
  const searched = new Set(axes.map((a) => a.flag));
  const output = await outputOf(flags, env, sources);
  const searchedNames = axes.map((a) => a.flag.replace(/^--/, '')).join(' x ');
  const title = `blob-cacher tune ${name}: ${searchedNames}, budget ${budgetMs / 1000} s`;
  return measure({
    command: mode,
    config: base,
    title,
    stem: `tune-${name}`,
    output,
    cells: [],
    docConfig: { tune: { axes: axes.map((a) => a.flag), budgetMs }, base: redactedConfig(base) },
    drive: tuneDrive({
      mode,
      axes,
      budgetMs,
      base,
      searched,
      origin: { specs, flags, sources },
      configOf: cellConfig(name, fixedArgs, searched, load),
      ...(isCheckpointConfig(base) ? { fixed: checkpointFixed(base, searched) } : {}),
    }),
  });
}

type Loader = (flags: Record<string, unknown>) => Config;

/**
 * The command's own options, loaded as the searched command loads them: the base every cell starts
 * from. Secrets are registered and the log level set before anything can log.
 */
function loadTuned(name: TunedName, asked: readonly string[], env: Env) {
  const { specs, loader } = TUNED[name];
  const program = () => buildProgram(`tune ${name}`, [...specs, ...TUNE_OPTIONS], '');
  const load: Loader = (f) => loader(f, readSources(specs, f, env));
  // A checkpoint is searched on one way of writing its shards: two at once would mix their runs.
  const first = load(parseFlags(program(), asked)!);
  const args = isCheckpointConfig(first) ? oneShardWrite(asked, first) : asked;
  const flags = parseFlags(program(), args)!;
  const sources = readSources(specs, flags, env);
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
  return { base, flags, sources, args, load };
}

/**
 * The arguments every cell runs with, before its searched settings: the user's, with the few runs a
 * search can afford unless the user had any say over how long a cell runs.
 */
function cellArgs(name: TunedName, rest: readonly string[], load: Loader): readonly string[] {
  const fixedArgs = ['--runs', '--min-time', '--max-runs', '--precision'].some((f) => given(rest, f))
    ? rest
    : [...rest, ...CELL_RUNS];
  // Fewer runs a cell than the rank test needs, and it can never call one cell faster than another:
  // every cell would be "as good", and the search would walk down to the fewest resources.
  const runsPerCell = load(parseFlags(buildProgram(`tune ${name}`, TUNED[name].specs, ''), fixedArgs)!).runs;
  if (runsPerCell < MIN_RUNS_FOR_SIGNIFICANCE) {
    const least = MIN_RUNS_FOR_SIGNIFICANCE;
    throw new ConfigError(
      `tune needs at least ${least} measured runs a cell: with ${runsPerCell} its rank ` +
        'test can never tell one cell faster than another; ' +
        `give --runs ${least} or more (or leave --runs out: 5)`,
    );
  }
  return fixedArgs;
}

/** A cell is the fixed options with the searched ones set: parsed and validated as the command's own. */
function cellConfig(
  name: TunedName,
  fixedArgs: readonly string[],
  searched: ReadonlySet<string>,
  load: Loader,
): (cell: Cell) => Config {
  return (cell) => {
    const cellFlags = parseFlags(
      buildProgram(`tune ${name}`, TUNED[name].specs, ''),
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
  /** What a deployment keeps that the search did not choose, where the command's own (a checkpoint's). */
  fixed?: Cell;
}

/** The command searched where it is not its direction's own: a checkpoint (an upload), a training run. */
function searchedCommand(base: Config): Pick<TuneRecord, 'command'> {
  if (isCheckpointConfig(base)) return { command: 'checkpoint' };
  return 'train' in base && base.train ? { command: 'train' } : {};
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
  fixed,
}: TuneSetup): NonNullable<Measurement['drive']> {
  return async (run, doc, signal) => {
    let last: Awaited<ReturnType<typeof run>> | undefined;
    const record: TuneRecord = {
      direction: mode,
      ...searchedCommand(base),
      axes: axes.map(({ flag, values, ordered }) => ({ flag, values: [...values], ordered })),
      budgetMs,
      fixed: fixed ?? fixedSettings(base, searched, origin),
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
