// The one way tests make a config: what a command line would say, through the CLI's own parsing and
// the real loader (defaults, validation, the run-count rules), never a hand-built object. Typed
// settings are written out as the flags a user would type (`fileSizeBytes: 1000` as --file-size=1000B),
// so a setting the loader would refuse fails the test that gives it.
import {
  buildProgram,
  loadDownloadConfig,
  loadUploadConfig,
  parseFlags,
  type DownloadConfig,
  type UploadConfig,
} from '../../src/config/load.js';
import { DOWNLOAD_OPTIONS, UPLOAD_OPTIONS, type AnyOption } from '../../src/config/options.js';
import type { Credentials } from '../../src/vocabulary/credentials.js';
import type { HedgeConfig, OpenLoopOptions, SteadyOptions } from '../../src/config/load.js';
import { readSources } from '../../src/cli/sources.js';

/**
 * Settings a test gives: the config's own fields, credentials and a steady run as the flags that make them.
 */
export type TestSettings<C> = Partial<Omit<C, 'credentials' | 'steady' | 'openLoop'>> & {
  credentials?: Credentials;
  steady?: SteadyOptions;
  openLoop?: OpenLoopOptions;
};

function openLoopFlags(o: OpenLoopOptions | undefined): string[] {
  if (!o) return [];
  const cap = o.maxInFlight === undefined ? [] : [`--max-in-flight=${o.maxInFlight}`];
  return [`--rate=${o.ratePerSecond}/s`, `--arrival=${o.arrival}`, ...cap];
}

function hedgeFlags(h: HedgeConfig | undefined): string[] {
  if (!h) return [];
  return [`--hedge=${'ms' in h.after ? `${h.after.ms}ms` : `p${h.after.percentile}`}`, `--hedge-on=${h.on}`];
}

/** A test's config starts from one measured run, no warm-up, quiet logs, unless it says otherwise. */
const BASE = { runs: 1, warmup: 0, logLevel: 'error' } as const;

function valueText(key: string, value: unknown): string {
  if (typeof value === 'number' && key.endsWith('Bytes')) return `${value}B`;
  if (typeof value === 'number' && key.endsWith('Ms')) return `${value}ms`;
  return String(value);
}

function credentialFlags(c: Credentials | undefined): string[] {
  if (!c) return [];
  const ca = 'caFile' in c && c.caFile !== undefined ? [`--ca-file=${c.caFile}`] : [];
  switch (c.kind) {
    case 'embedded':
      return c.tls ? ['--tls=true'] : [];
    case 'url':
      return [`--url=${c.url}`];
    case 'key':
      return [`--account=${c.account}`, `--endpoint=${c.endpoint}`, `--key=${c.key}`, ...ca];
    case 'sas':
      return [`--account=${c.account}`, `--endpoint=${c.endpoint}`, `--sas=${c.sas}`, ...ca];
    case 'entra':
      return [
        `--account=${c.account}`,
        `--endpoint=${c.endpoint}`,
        '--auth=entra',
        ...(c.clientId ? [`--client-id=${c.clientId}`] : []),
        ...ca,
      ];
    case 'anonymous':
      return [`--account=${c.account}`, `--endpoint=${c.endpoint}`, '--auth=anonymous', ...ca];
  }
}

function steadyFlags(s: SteadyOptions | undefined): string[] {
  if (!s) return [];
  const autoterm = s.autoterm
    ? [
        '--autoterm=true',
        `--autoterm-window=${s.autoterm.windowMs}ms`,
        `--autoterm-tolerance=${s.autoterm.tolerance * 100}%`,
      ]
    : [];
  return [`--duration=${s.durationMs}ms`, `--interval=${s.intervalMs}ms`, ...autoterm];
}

/** The command line that says `settings`: each field by its option's flag. */
export function argvOf(specs: readonly AnyOption[], settings: Readonly<Record<string, unknown>>): string[] {
  const argv: string[] = [];
  for (const [key, value] of Object.entries(settings)) {
    if (value === undefined || ['credentials', 'steady', 'hedge', 'openLoop'].includes(key)) continue;
    // The config's one size is --file-size's fixed form (the option also takes a distribution).
    const spec = specs.find((s) => s.key === (key === 'fileSizeBytes' ? 'fileSize' : key));
    if (!spec) throw new Error(`testConfig: no option sets ${key}`);
    argv.push(`${spec.flag}=${valueText(key, value)}`);
  }
  return [
    ...argv,
    ...credentialFlags(settings.credentials as Credentials | undefined),
    ...steadyFlags(settings.steady as SteadyOptions | undefined),
    ...hedgeFlags(settings.hedge as HedgeConfig | undefined),
    ...openLoopFlags(settings.openLoop as OpenLoopOptions | undefined),
  ];
}

function load<C>(
  command: string,
  specs: readonly AnyOption[],
  settings: object,
  loader: (flags: Record<string, unknown>, sources: ReturnType<typeof readSources>) => C,
): C {
  const flags = parseFlags(buildProgram(command, specs, 'test'), argvOf(specs, { ...BASE, ...settings }));
  if (!flags) throw new Error('testConfig: the flags asked for help');
  // No environment and no .env: a test's config is what its settings say, whatever the machine has.
  return loader(flags, readSources(specs, flags, {}, '/nonexistent'));
}

export function testConfig(command: 'download', settings?: TestSettings<DownloadConfig>): DownloadConfig;
export function testConfig(command: 'upload', settings?: TestSettings<UploadConfig>): UploadConfig;
export function testConfig(
  command: 'download' | 'upload',
  settings: object = {},
): DownloadConfig | UploadConfig {
  return command === 'download'
    ? load('download', DOWNLOAD_OPTIONS, settings, loadDownloadConfig)
    : load('upload', UPLOAD_OPTIONS, settings, loadUploadConfig);
}
