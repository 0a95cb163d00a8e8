// `blob-cacher tune [download|upload|train|checkpoint] [options]`: the search over strategy x
// processes x sockets x concurrency (x block size, x prefetch) as a session whose cells are chosen as
// it goes. Each cell is an ordinary session part (the same workers, verdict and results file); the
// tune's path, where it stopped and where throttling began are recorded beside the runs.
import { ConfigError } from '../../vocabulary/errors.js';
import { redactedConfig, resolveOptions } from '../../config/load.js';
import { TUNE_OPTIONS } from '../../config/options.js';
import { isCheckpointConfig } from '../../config/checkpoint.js';
import { checkpointAxes, checkpointFixed } from '../tune-checkpoint.js';
import { outputOf } from '../output.js';
import { tuneRateCommand } from '../tune-rate.js';
import type { Env } from '../command-kit.js';
import { measure } from '../measure.js';
import { axesFor, given, withoutTuneOptions } from '../tune-plan.js';

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

import { cellArgs, cellConfig, loadTuned, TUNED, tunedOf } from '../tune-cells.js';
import { tuneDrive } from '../tune-drive.js';

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
