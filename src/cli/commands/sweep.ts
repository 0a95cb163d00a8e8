// `blob-cacher sweep [download|upload]`: every combination of the options given as lists, measured
// as one session.
import { ConfigError } from '../../vocabulary/errors.js';
import {
  buildProgram,
  loadDownloadConfig,
  loadUploadConfig,
  parseFlags,
  redactedConfig,
  type DownloadConfig,
  type UploadConfig,
} from '../../config/load.js';
import { DOWNLOAD_OPTIONS, UPLOAD_OPTIONS, type OptionSpec } from '../../config/options.js';
import { outputOf } from '../output.js';
import { checkOutPath, readSources } from '../sources.js';
import { checkProcessesFit } from '../machine-fit.js';
import { setLogLevel } from '../../log/logger.js';
import { cellArgv, findAxes, gridCells } from '../../config/sweep.js';
import type { SweepAxis } from '../../results/schema.js';
import { cellOf, directionOf, registerSecrets, type Env } from '../command-kit.js';
import { measure } from '../measure.js';

const SWEEP_USAGE = `usage: blob-cacher sweep [download|upload] [options]
Any option given as a comma-separated list is a grid axis; every combination is measured, e.g.
  blob-cacher sweep upload --upload-method blocks --block-size 3.2MB,6.4MB,12.8MB --concurrency 32,256,384
  blob-cacher sweep upload --processes 1,2 --max-sockets 8,25,64
  blob-cacher sweep download --source-method chunked --concurrency 2,4,8,16
The options are those of the download or upload command (see its --help).
`;

/**
 * A comma inside a swept URL (a password, a SAS signature) splits it into pieces that are no URL,
 * and a piece of a secret must not be echoed by the error that refuses it: each value of a URL axis
 * must be a URL itself, else the axis is refused by position, with the fix.
 */
function refuseSplitUrls(axes: readonly SweepAxis[], specs: readonly OptionSpec[]): void {
  const urlFlags = new Set(specs.filter((s) => s.valueName === 'url').map((s) => s.flag));
  for (const axis of axes.filter((a) => urlFlags.has(a.flag))) {
    const bad = axis.values.findIndex((v) => !/^https?:\/\/[^/?#]+/i.test(v) || !URL.canParse(v));
    if (bad >= 0)
      throw new ConfigError(
        `${axis.flag} value ${bad + 1} of ${axis.values.length} in the sweep is not an http:// or ` +
          `https:// URL; a comma inside a URL (a password, a SAS) splits it: write it as %2C`,
      );
  }
}

export async function sweepCommand(argv: readonly string[], env: Env): Promise<number> {
  const { mode, args } = directionOf(argv);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(SWEEP_USAGE);
    return 0;
  }
  const { axes, fixed } = findAxes(args);
  if (!axes.length)
    throw new ConfigError(
      'sweep needs at least one option with a comma-separated list of values, e.g. --processes 1,2; ' +
        'see blob-cacher sweep --help',
    );
  refuseSplitUrls(axes, mode === 'upload' ? UPLOAD_OPTIONS : DOWNLOAD_OPTIONS);
  const cells = gridCells(axes);
  const specs = mode === 'upload' ? UPLOAD_OPTIONS : DOWNLOAD_OPTIONS;
  // Every cell is validated before anything runs: a bad value fails fast, naming its option.
  const configs: (DownloadConfig | UploadConfig)[] = cells.map((cell) => {
    const cellArgs = cellArgv(fixed, cell);
    const flags = parseFlags(buildProgram(`sweep ${mode}`, specs, ''), cellArgs)!;
    const sources = readSources(specs, flags, env);
    const config = mode === 'upload' ? loadUploadConfig(flags, sources) : loadDownloadConfig(flags, sources);
    checkOutPath(config);
    checkProcessesFit(config.processes);
    return config;
  });
  const first = configs[0]!;
  // Every cell's credentials: a swept --key, --sas or --connection-string has a secret per cell.
  for (const c of configs) registerSecrets([c.credentials, c.scaleout?.store], env);
  setLogLevel(first.logLevel);
  const sweepFlags = parseFlags(buildProgram(`sweep ${mode}`, specs, ''), fixed)!;
  const output = await outputOf(sweepFlags, env, readSources(specs, sweepFlags, env));
  const title = `blob-cacher sweep ${mode}: ${axes.map((a) => `${a.flag} ${a.values.join(',')}`).join(' x ')}`;
  return measure({
    command: mode,
    config: first,
    title,
    stem: `sweep-${mode}`,
    sweep: axes,
    output,
    docConfig: { sweep: axes, base: redactedConfig(first) },
    cells: await Promise.all(configs.map((config, i) => cellOf(config, cells[i]!))),
  });
}
