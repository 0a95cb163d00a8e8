// `blob-cacher train`: the read pattern of a training job (MLPerf Storage's), measured as a session:
// the sample set read in a shuffled order per epoch behind simulated accelerators. An option given
// as a list (`--prefetch 0,1,2,4`) makes one cell per value, as sweep does, so that one command
// shows where utilisation levels off.
import { buildProgram, parseFlags, redactedConfig } from '../../config/load.js';
import { DOWNLOAD_OPTIONS, TRAIN_OPTIONS } from '../../config/options.js';
import { cellArgv, findAxes, gridCells } from '../../config/sweep.js';
import { loadTrainConfig, type TrainConfig } from '../../config/train.js';
import { setLogLevel } from '../../log/logger.js';
import { checkProcessesFit } from '../machine-fit.js';
import { outputOf } from '../output.js';
import { readSources } from '../sources.js';
import { cellOf, eachSize, registerSecrets, startEmbeddedEarly, type Env } from '../command-kit.js';
import { measure } from '../measure.js';

const SPECS = [...DOWNLOAD_OPTIONS, ...TRAIN_OPTIONS];
const SUMMARY =
  "Read a sample set as a training job does (shuffled, in batches, behind a simulated accelerator's " +
  'compute) and report accelerator utilisation; an option given as a list (--prefetch 0,1,2,4) is swept.';

export async function trainCommand(
  argv: readonly string[],
  env: Env,
  name = 'blob-cacher train',
): Promise<number> {
  if (argv.includes('--help') || argv.includes('-h')) {
    parseFlags(buildProgram(name, SPECS, SUMMARY), ['--help']);
    return 0;
  }
  const found = findAxes(argv);
  // Several strategies are contenders of one cell, as download takes them, not an axis.
  const methods = found.axes.filter((a) => a.flag === '--source-method');
  const axes = found.axes.filter((a) => !methods.includes(a));
  const fixed = [...found.fixed, ...methods.map((a) => `${a.flag}=${a.values.join(',')}`)];
  const cells = gridCells(axes);
  // Every cell is validated before anything runs: a bad value fails fast, naming its option.
  const configs: TrainConfig[] = cells.map((cell) => {
    const flags = parseFlags(buildProgram(name, SPECS, SUMMARY), cellArgv(fixed, cell))!;
    const config = loadTrainConfig(flags, readSources(SPECS, flags, env));
    checkProcessesFit(config.processes);
    return config;
  });
  const first = configs[0]!;
  for (const c of configs) registerSecrets([c.credentials], env);
  setLogLevel(first.logLevel);
  startEmbeddedEarly(first.credentials);
  const fixedFlags = parseFlags(buildProgram(name, SPECS, SUMMARY), fixed)!;
  const output = await outputOf(fixedFlags, env, readSources(SPECS, fixedFlags, env));
  const t = first.train;
  const swept = axes.map((a) => `, ${a.flag} ${a.values.join(',')}`).join('');
  const prefetch = axes.some((a) => a.flag === '--prefetch') ? '' : `, prefetch ${t.prefetch}`;
  const title =
    `blob-cacher train${t.preset ? ` (${t.preset})` : ''}: ${first.processes} accelerator(s) x ` +
    `${first.maxSockets} socket(s), ${first.fileCount} samples x ${eachSize(first)}, ` +
    `${t.epochs} epoch(s), batch ${t.batchSize}, compute ${t.computeMs} ms${prefetch}${swept}`;
  return measure({
    command: 'download',
    config: first,
    title,
    stem: 'train',
    output,
    ...(axes.length ? { sweep: axes } : {}),
    docConfig: { train: t, ...(axes.length ? { sweep: axes } : {}), base: redactedConfig(first) },
    cells: await Promise.all(configs.map((config, i) => cellOf(config, axes.length ? cells[i] : undefined))),
  });
}
