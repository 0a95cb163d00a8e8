// `tune download|upload --slo p99<200ms --rate 100/s|100..2000/s --duration 10s`: the search for the
// highest offered rate that keeps the SLO, each rate an ordinary steady open-loop cell of the same
// session. Its results file is a --rate sweep over the rates tried, so every format shows the curve
// and its knee (the answer) as a rate sweep's report does.
import { keepsSlo, openLoopSummary } from '../analysis/open-loop.js';
import { ConfigError } from '../vocabulary/errors.js';
import {
  buildProgram,
  loadDownloadConfig,
  loadUploadConfig,
  parseFlags,
  redactedConfig,
  resolveOptions,
  type DownloadConfig,
  type UploadConfig,
} from '../config/load.js';
import { DOWNLOAD_OPTIONS, MAX_RATE_PER_SECOND, TUNE_OPTIONS, UPLOAD_OPTIONS } from '../config/options.js';
import { parseRateSearch, type RateSearchFrom } from '../config/rate-range.js';
import { cellArgv } from '../config/sweep.js';
import { log, setLogLevel } from '../log/logger.js';
import type { Slo } from '../results/schema.js';
import { rateSearch, type RateSearchOutcome } from '../tune/rate-search.js';
import { cellOf, registerSecrets, type Env } from './command-kit.js';
import { checkProcessesFit } from './machine-fit.js';
import { measure, type Measurement } from './measure.js';
import { outputOf } from './output.js';
import { checkOutPath, readSources } from './sources.js';
import { given, withoutTuneOptions } from './tune-plan.js';

type Config = DownloadConfig | UploadConfig;

/** Bisection ends when the rate not kept is within this factor of the one kept. */
export const RATE_TOLERANCE = 1.1;
/** The most rates one search measures. */
export const MAX_RATE_STEPS = 16;
/** Runs per rate unless --runs or --min-time says: one, after a warm-up that compiles the hot path. */
const RATE_CELL_RUNS = ['--runs', '1', '--warmup', '1'];

/** The args without --rate (and its value): each cell sets its own. */
function withoutRate(args: readonly string[]): { rest: string[]; raw?: string } {
  const rest: string[] = [];
  let raw: string | undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a.startsWith('--rate=')) raw = a.slice('--rate='.length);
    else if (a === '--rate') raw = args[++i];
    else rest.push(a);
  }
  return { rest, ...(raw === undefined ? {} : { raw }) };
}

const startOf = (from: RateSearchFrom) => ('start' in from ? from.start : from.low);
const fromText = (from: RateSearchFrom) =>
  'start' in from ? `from ${from.start}/s` : `between ${from.low}/s and ${from.high}/s`;

export async function tuneRateCommand(
  mode: 'download' | 'upload',
  args: readonly string[],
  env: Env,
): Promise<number> {
  const specs = mode === 'upload' ? UPLOAD_OPTIONS : DOWNLOAD_OPTIONS;
  const { rest: withoutRateArgs, raw } = withoutRate(args);
  const from = parseRateSearch(raw ?? env.BLOB_CACHER_RATE);
  const program = () => buildProgram(`tune ${mode}`, specs, '');
  const load = (argv: string[]): Config => {
    const f = parseFlags(program(), argv)!;
    const sources = readSources(specs, f, env);
    return mode === 'upload' ? loadUploadConfig(f, sources) : loadDownloadConfig(f, sources);
  };
  const rest = withoutTuneOptions(withoutRateArgs);
  const fixedArgs = ['--runs', '--min-time', '--max-runs'].some((f) => given(rest, f))
    ? rest
    : [...rest, ...RATE_CELL_RUNS];
  const configOf = (rate: number): Config => {
    const config = load(cellArgv(fixedArgs, { '--rate': String(rate) }));
    checkOutPath(config);
    checkProcessesFit(config.processes);
    return config;
  };
  const base = configOf(startOf(from));
  registerSecrets([base.credentials, base.scaleout?.store], env);
  setLogLevel(base.logLevel);
  const slo = base.slo!;
  if (!base.steady)
    throw new ConfigError('tune --slo measures each rate for a time: give --duration (e.g. --duration 10s)');
  if (base.scaleout)
    throw new ConfigError(
      'tune runs on one machine; drop the scale-out options (--parallelism, --index, --run-id)',
    );
  const tuneFlags = parseFlags(buildProgram(`tune ${mode}`, [...specs, ...TUNE_OPTIONS], ''), args)!;
  const { budgetMs } = resolveOptions(TUNE_OPTIONS, tuneFlags, readSources(specs, tuneFlags, env));
  const output = await outputOf(tuneFlags, env, readSources(specs, tuneFlags, env));
  const sloText = `p${slo.percentile}<${slo.boundMs}ms`;
  return measure({
    command: mode,
    config: base,
    title: `blob-cacher tune ${mode}: the highest --rate that keeps ${sloText}, budget ${budgetMs / 1000} s`,
    stem: `tune-${mode}`,
    output,
    cells: [],
    sweep: [{ flag: '--rate', values: [] }],
    docConfig: { rateSearch: { slo, from, budgetMs }, base: redactedConfig(base) },
    drive: rateDrive({ from, slo, budgetMs, configOf }),
  });
}

interface RateDriveSetup {
  from: RateSearchFrom;
  slo: Slo;
  budgetMs: number;
  configOf: (rate: number) => Config;
}

/** Runs each rate the search asks for as a cell, keeping the results file's rate axis current. */
function rateDrive({ from, slo, budgetMs, configOf }: RateDriveSetup): NonNullable<Measurement['drive']> {
  return async (run, doc, signal) => {
    let last: Awaited<ReturnType<typeof run>> | undefined;
    const outcome = await rateSearch({
      from,
      tolerance: RATE_TOLERANCE,
      maxSteps: MAX_RATE_STEPS,
      budgetMs,
      floorPerSecond: 0.01,
      ceilingPerSecond: MAX_RATE_PER_SECOND,
      signal,
      measure: async (rate) => {
        const cell = { '--rate': String(rate) };
        log.info(`tune --slo: --rate ${rate}/s`);
        last = await run([await cellOf(configOf(rate), cell)]);
        const rates = doc.sweep![0]!.values;
        rates.push(String(rate));
        rates.sort((a, b) => Number(a) - Number(b));
        const summary = openLoopSummary(last.runs);
        if (!summary || last.interrupted) return undefined;
        const spentMs = last.runs.reduce((s, r) => s + (r.warmup ? 0 : r.wallMs), 0);
        return { keeps: keepsSlo(summary, slo).keeps, spentMs };
      },
    });
    log.info(answerLine(outcome, from, slo));
    if (!last) throw new ConfigError('tune --slo: no rate was measured');
    return last;
  };
}

function answerLine(o: RateSearchOutcome, from: RateSearchFrom, slo: Slo): string {
  const what = `p${slo.percentile}<${slo.boundMs}ms`;
  const tried = `${o.tried.length} rate(s) tried ${fromText(from)}, stopped: ${o.stopped}`;
  if (o.answerPerSecond === undefined) return `tune --slo: no rate tried keeps ${what} (${tried})`;
  const above = o.abovePerSecond === undefined ? '' : `; ${o.abovePerSecond}/s does not`;
  return `tune --slo: the highest rate that keeps ${what} is ${o.answerPerSecond}/s${above} (${tried})`;
}
