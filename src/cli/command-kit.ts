// What the commands share: the argv and environment types, loading a measuring command's options,
// keeping its secrets out of every line, the results-file arguments of report and compare, the
// direction of sweep and tune, and a config as one cell of a session.
import { registerMetricsSecrets } from './metrics-secrets.js';
import { describeDistribution } from '../config/size-distribution.js';
import type { SizeDraw } from '../plan/size-draw.js';
import { mixText } from '../plan/mix.js';
import { ConfigError } from '../vocabulary/errors.js';
import { isCheckpointConfig } from '../config/checkpoint.js';
import {
  buildProgram,
  parseFlags,
  redactedConfig,
  resolveOptions,
  type Credentials,
  type DownloadConfig,
  type Sources,
  type UploadConfig,
} from '../config/load.js';
import { REPORT_OPTIONS, type OptionSpec } from '../config/options.js';
import { outputOf, type Output } from './output.js';
import { formatBytes } from '../vocabulary/sizes.js';
import { readSources } from './sources.js';
import { sessionCell, type SessionCell } from '../engine/session.js';
import { log, registerCredential, registerSecret, setLogLevel } from '../log/logger.js';
import { isPlainUrl } from '../vocabulary/credentials.js';

export type Env = Record<string, string | undefined>;
export type Command = (argv: readonly string[], env: Env) => Promise<number>;

/**
 * Every secret a command may hold, from its credentials and the environment, kept out of every line it
 * writes.
 */
export function registerSecrets(all: readonly (Credentials | undefined)[], env: Env): void {
  for (const credentials of all) {
    if (credentials?.kind === 'key') registerCredential(credentials.key);
    if (credentials?.kind === 'sas') registerCredential(credentials.sas);
    if (credentials && isPlainUrl(credentials)) registerCredential(credentials.url);
  }
  registerCredential(env.STORAGE_CONNECTION_STRING);
  registerCredential(env.STORAGE_SAS);
  registerCredential(env.STORAGE_KEY);
  // What DefaultAzureCredential may read (--auth entra): never echoed by an error it passes on.
  for (const name of [
    'AZURE_CLIENT_SECRET',
    'AZURE_CLIENT_CERTIFICATE_PASSWORD',
    'IDENTITY_HEADER',
    'MSI_SECRET',
  ])
    registerSecret(env[name]);
  registerCredential(env.BLOB_CACHER_RUN_STORE);
}

type Config = DownloadConfig | UploadConfig;

// The engines, the reports and the SDK behind them load when a command needs them: --help and a
// bad option answer without them.
async function cellSetupOf(config: Config): Promise<SessionCell['setup']> {
  if (isCheckpointConfig(config)) return (await import('../engine/checkpoint.js')).checkpointSetup(config);
  if (config.mix) return (await import('../engine/mix.js')).mixSetup(config, config.mix);
  if ('uploadMethod' in config) return (await import('../engine/upload.js')).uploadSetup(config);
  return (await import('../engine/download.js')).downloadSetup(config);
}

/**
 * A config as one cell of the session: its set-up and how it is repeated; a sweep's cells name their
 * values.
 */
export const cellOf = async (config: Config, cell?: SessionCell['cell']): Promise<SessionCell> =>
  sessionCell(config, await cellSetupOf(config), cell);

/**
 * Parses and validates one measuring command's options and how its report is shown; undefined after --help.
 */
export async function loadCommand<C extends DownloadConfig | UploadConfig>(
  name: string,
  specs: readonly OptionSpec[],
  summary: string,
  argv: readonly string[],
  env: Env,
  load: (flags: Record<string, unknown>, sources: Sources) => C,
): Promise<{ config: C; output: Output } | undefined> {
  const flags = parseFlags(buildProgram(name, specs, summary), argv);
  if (!flags) return undefined;
  const sources = readSources(specs, flags, env);
  const config = load(flags, sources);
  registerSecrets([config.credentials, config.scaleout?.store], env);
  registerMetricsSecrets(config.metrics, config.metricsToken);
  setLogLevel(config.logLevel);
  log.debug(`config ${JSON.stringify(redactedConfig(config))}`);
  return { config, output: await outputOf(flags, env, sources) };
}

/**
 * The embedded target's own process starts now: Azurite's start overlaps the coordinator's set-up.
 * Its module is imported only here and where the target opens: no other run loads it.
 */
export function startEmbeddedEarly(credentials: Credentials): void {
  if (credentials.kind !== 'embedded') return;
  void import('../storage/azurite-child.js').then(
    (m) => m.startAzuriteEarly({ tls: credentials.tls }),
    () => {},
  );
}

/** Each file's size for a title: the size, or the distribution drawn from and its seed. */
export function eachSize(config: { fileSizeBytes: number; fileSizes?: SizeDraw }): string {
  const d = config.fileSizes;
  if (d) return `${describeDistribution(d.distribution)} (seed ${d.seed})`;
  return `${formatBytes(config.fileSizeBytes)} (${config.fileSizeBytes} bytes)`;
}

/** A mixed run's title words: its weights, its seed and its set; none without --mix. */
export function mixWords(config: DownloadConfig | UploadConfig): string | undefined {
  if (!config.mix) return undefined;
  const { weights, seed } = config.mix;
  return `mix ${mixText(weights)} (seed ${seed}) over ${config.fileCount} files x ${eachSize(config)}`;
}

export async function parseFileArgs(
  name: string,
  summary: string,
  argv: readonly string[],
  env: Env,
  min: number,
  max: number,
) {
  const program = buildProgram(name, REPORT_OPTIONS, summary)
    .argument('<files...>', 'results files')
    .allowExcessArguments(true);
  const flags = parseFlags(program, argv);
  if (!flags) return undefined;
  const files = program.args;
  if (files.length < min || files.length > max) {
    const cmd = name.replace(/^blob-cacher /, '');
    throw new ConfigError(
      max === min
        ? `${cmd} takes exactly ${min} results files; give ${min} paths`
        : `${cmd} takes at least ${min} results file; give a path`,
    );
  }
  const o = resolveOptions(REPORT_OPTIONS, flags, { env });
  const output = await outputOf(flags, env, { env });
  return { files, format: o.format, thresholds: o.thresholds ?? [], output };
}

/** `sweep` and `tune` take a direction first (download when none is named) and then its options. */
export function directionOf(argv: readonly string[]): { mode: 'download' | 'upload'; args: string[] } {
  const mode = argv[0] === 'upload' || argv[0] === 'download' ? argv[0] : 'download';
  return { mode, args: argv[0] === mode ? argv.slice(1) : [...argv] };
}
