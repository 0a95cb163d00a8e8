// A tune's cells: how the options of the command searched load, the arguments every cell shares,
// and one cell's config, parsed and checked as the command's own.
import { ConfigError, escapeControls } from '../vocabulary/errors.js';
import {
  buildProgram,
  loadDownloadConfig,
  loadUploadConfig,
  parseFlags,
  type DownloadConfig,
  type UploadConfig,
} from '../config/load.js';
import { MIN_RUNS_FOR_SIGNIFICANCE } from '../analysis/significance.js';
import {
  CHECKPOINT_OPTIONS,
  DOWNLOAD_OPTIONS,
  TRAIN_OPTIONS,
  TUNE_OPTIONS,
  UPLOAD_OPTIONS,
} from '../config/options.js';
import { loadTrainConfig } from '../config/train.js';
import { isCheckpointConfig, loadCheckpointConfig } from '../config/checkpoint.js';
import { oneShardWrite } from './tune-checkpoint.js';
import { cellArgv } from '../config/sweep.js';
import { setLogLevel } from '../log/logger.js';
import type { Cell } from '../results/schema.js';
import { checkProcessesFit } from './machine-fit.js';
import { directionOf, registerSecrets, type Env } from './command-kit.js';
import { checkOutPath, readSources } from './sources.js';
import { CELL_RUNS, flagAt, given } from './tune-plan.js';

export type Config = DownloadConfig | UploadConfig;

/**
 * What `tune NAME` searches: its direction, options and loader. A training run is a download whose
 * cells also search --prefetch (config/train.ts); a checkpoint an upload of one shard per rank.
 */
export const TUNED = {
  download: { mode: 'download', specs: DOWNLOAD_OPTIONS, loader: loadDownloadConfig },
  upload: { mode: 'upload', specs: UPLOAD_OPTIONS, loader: loadUploadConfig },
  train: { mode: 'download', specs: [...DOWNLOAD_OPTIONS, ...TRAIN_OPTIONS], loader: loadTrainConfig },
  checkpoint: { mode: 'upload', specs: CHECKPOINT_OPTIONS, loader: loadCheckpointConfig },
} as const;
export type TunedName = keyof typeof TUNED;

/** The command searched, and the arguments after its name. */
export function tunedOf(argv: readonly string[]): { name: TunedName; args: readonly string[] } {
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

export type Loader = (flags: Record<string, unknown>) => Config;

/**
 * The command's own options, loaded as the searched command loads them: the base every cell starts
 * from. Secrets are registered and the log level set before anything can log.
 */
export function loadTuned(name: TunedName, asked: readonly string[], env: Env) {
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
export function cellArgs(name: TunedName, rest: readonly string[], load: Loader): readonly string[] {
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
export function cellConfig(
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
