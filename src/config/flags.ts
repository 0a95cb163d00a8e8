// Where an option's value comes from, highest first: the flag (commander, built from the option
// table), the environment, the dotenv file, the option's default; each raw value parsed by its
// option's parser. Pure: the CLI hands in the environment and the dotenv file as strings.
import { Command, CommanderError, Option } from 'commander';
import { ConfigError, quotedValue } from '../vocabulary/errors.js';
import { envFile, Invalid, isTestOnly, type AnyOption, type OptionSpec, type Resolved } from './options.js';
import { formatDurationExact } from '../vocabulary/durations.js';
import { formatBytes } from '../vocabulary/sizes.js';

/** What the options are resolved from, besides the flags: plain strings, read by the CLI. */
export interface Sources {
  env: Readonly<Record<string, string | undefined>>;
  /** The variables of the dotenv file (see dotenvFile), already read and parsed. */
  dotenv?: Readonly<Record<string, string>>;
}

/** The property commander stores a flag under: --file-size -> fileSize. */
export function flagAttribute(spec: AnyOption): string {
  return spec.flag.replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
}

/** A flag's raw text: a bool switch given alone (`--force`) is "true". */
function flagText(flags: Readonly<Record<string, unknown>>, spec: AnyOption): string | undefined {
  const value = flags[flagAttribute(spec)];
  if (value === true) return 'true';
  return typeof value === 'string' ? value : undefined;
}

/** An empty variable is unset, as if it were not there. */
function nonEmpty(value: string | undefined): string | undefined {
  return value === '' ? undefined : value;
}

/**
 * Which dotenv file the options name (--dotenv, then BLOB_CACHER_ENV_FILE, then .env), for the CLI
 * to read; `explicit` when named, so that a missing one is an error. Undefined when the command
 * takes no dotenv file.
 */
export function dotenvFile(
  specs: readonly AnyOption[],
  flags: Readonly<Record<string, unknown>>,
  env: Sources['env'],
): { path: string; explicit: boolean; origin: string } | undefined {
  if (!specs.includes(envFile)) return undefined;
  const fromFlag = flagText(flags, envFile);
  if (fromFlag !== undefined) return { path: fromFlag, explicit: true, origin: envFile.flag };
  const fromEnv = envFile.env === undefined ? undefined : nonEmpty(env[envFile.env]);
  if (fromEnv !== undefined)
    return { path: fromEnv, explicit: true, origin: `${envFile.env} (${envFile.flag})` };
  return { path: envFile.defaultValue, explicit: false, origin: envFile.flag };
}

/** Builds the commander program from the option table; used for parsing and for --help. */
export function buildProgram(name: string, specs: readonly AnyOption[], summary: string): Command {
  const program = new Command(name).description(summary).allowExcessArguments(false).helpOption('-h, --help');
  for (const spec of specs) {
    // A bool takes an optional value, so that `--force`, `--force=false` and `--cleanup yes` all parse.
    const value = spec.valueName === 'bool' ? ' [bool]' : spec.valueName ? ` <${spec.valueName}>` : '';
    const env = spec.env ? ` [env ${spec.platformEnv ? `${spec.platformEnv}, then ` : ''}${spec.env}]` : '';
    const shown =
      spec.key.endsWith('Bytes') && typeof spec.defaultValue === 'number'
        ? formatBytes(spec.defaultValue).replace(' ', '')
        : spec.valueName === 'duration' && typeof spec.defaultValue === 'number'
          ? formatDurationExact(spec.defaultValue)
          : String(spec.defaultValue);
    // A structured default (a list of objects) has no one-word form: its help says it in words.
    const structured =
      typeof spec.defaultValue === 'object' &&
      spec.defaultValue !== null &&
      (!Array.isArray(spec.defaultValue) || spec.defaultValue.some((v) => typeof v === 'object'));
    const dflt = spec.defaultValue !== undefined && !spec.secret && !structured ? ` (default ${shown})` : '';
    const option = new Option(`${spec.flag}${value}`, `${spec.help}${env}${dflt}`);
    // Given again, a repeatable flag adds its value, joined as its environment variable writes them.
    const join = spec.repeatable;
    if (join) option.argParser((v: string, prev?: string) => (prev === undefined ? v : `${prev}${join}${v}`));
    program.addOption(isTestOnly(spec) ? option.hideHelp() : option);
  }
  return program;
}

/** Parses argv with commander; usage errors become ConfigError, --help returns undefined. */
export function parseFlags(program: Command, argv: readonly string[]): Record<string, unknown> | undefined {
  let helped = false;
  program.exitOverride().configureOutput({
    writeOut: (s) => {
      helped = true;
      process.stdout.write(s);
    },
    writeErr: () => {},
  });
  try {
    program.parse([...argv], { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      if (helped || err.code === 'commander.helpDisplayed' || err.code === 'commander.version')
        return undefined;
      const msg = err.message
        .replace(/^error: /, '')
        // An unknown --name=value is echoed whole by commander; the value may be a key.
        .replace(/'(--[^'=\s]+)=[^']*'/g, "'$1'")
        // Commander puts "(Did you mean --x?)" on a second line; usage errors are one line.
        .replace(/\s*\n\s*/g, ' ')
        .replace(/\.$/, '');
      throw new ConfigError(`${msg}; run with --help to see the options`);
    }
    throw err;
  }
  return program.opts();
}

/** Commander's parsed flags, by attribute. */
type Flags = Readonly<Record<string, unknown>>;

/** An option's raw text in each layer, highest first, with where it came from. */
function layersOf(spec: AnyOption, flags: Flags, sources: Sources): [string | undefined, string][] {
  return [
    [flagText(flags, spec), spec.flag],
    [
      spec.platformEnv ? nonEmpty(sources.env[spec.platformEnv]) : undefined,
      `${spec.platformEnv} (${spec.flag})`,
    ],
    [spec.env ? nonEmpty(sources.env[spec.env]) : undefined, `${spec.env} (${spec.flag})`],
    [
      spec.env ? nonEmpty(sources.dotenv?.[spec.env]) : undefined,
      `${spec.env} (${spec.flag}) in the dotenv file`,
    ],
  ];
}

/** The text an option was given as (flag, environment or dotenv file); undefined where none gives it. */
export function givenText(spec: AnyOption, flags: Flags, sources: Sources): string | undefined {
  return layersOf(spec, flags, sources).find(([raw]) => raw !== undefined)?.[0];
}

/** One option's value from its highest layer, parsed; its default when no layer sets it. */
function resolveOne<T>(spec: OptionSpec<T>, flags: Flags, sources: Sources): T | undefined {
  for (const [raw, origin] of layersOf(spec, flags, sources)) {
    if (raw === undefined) continue;
    const value = spec.parse(raw);
    if (value instanceof Invalid) {
      const shown = spec.secret ? '' : ` ${quotedValue(raw)}`;
      throw new ConfigError(`invalid ${origin}${shown}: expected ${value.expected}`);
    }
    return value;
  }
  return spec.defaultValue;
}

/** Resolves every option in `specs` to its typed value (undefined where unset and without default). */
export function resolveOptions<const S extends readonly AnyOption[]>(
  specs: S,
  flags: Readonly<Record<string, unknown>>,
  sources: Sources,
): Resolved<S> {
  const out: Record<string, unknown> = {};
  for (const spec of specs) out[spec.key] = resolveOne(spec, flags, sources);
  // The one assertion of the config layer: TypeScript cannot follow a loop that fills a mapped
  // type, but each key above holds its own spec's parsed value or default, which Resolved<S> states.
  return out as Resolved<S>;
}
