// `replay`'s options as one typed config: the log to send, the target, the pace and the names.
import { resolveCredentials, type Credentials } from '../vocabulary/credentials.js';
import { ConfigError } from '../vocabulary/errors.js';
import { resolveOptions, type Sources } from './flags.js';
import { REPLAY_OPTIONS } from './options.js';
import type { LogLevel, ReportFormat } from '../vocabulary/choices.js';

export interface ReplayConfig {
  file: string;
  credentials: Credentials;
  container: string;
  speed: number;
  keepNames: boolean;
  maxInFlight: number;
  timeoutMs: number;
  resultsPath?: string;
  format: Exclude<ReportFormat, 'junit'>;
  logLevel: LogLevel;
}

export function loadReplayConfig(
  file: string | undefined,
  flags: Readonly<Record<string, unknown>>,
  sources: Sources,
): ReplayConfig {
  if (file === undefined || file.trim() === '')
    throw new ConfigError('replay takes one log file; give its path (blob-cacher replay FILE)');
  const o = resolveOptions(REPLAY_OPTIONS, flags, sources);
  return {
    file,
    credentials: resolveCredentials(o),
    container: o.container,
    speed: o.speed,
    keepNames: o.keepNames,
    maxInFlight: o.maxInFlight,
    timeoutMs: o.timeoutMs,
    ...(o.resultsPath === undefined ? {} : { resultsPath: o.resultsPath }),
    format: o.format,
    logLevel: o.logLevel,
  };
}

/** The config as a results file keeps it: no secret (the credentials by their kind only). */
export function replayConfigRecord(c: ReplayConfig): Record<string, unknown> {
  const { credentials, ...rest } = c;
  return { ...rest, target: credentials.kind };
}
