// One logger for the process: `<ISO time> <level>: <message>` lines on stderr, npm's levels. Every
// line passes through redact(): no key, SAS signature, connection string or Authorization header
// reaches a log, at any level. Not winston: loading it cost ~55 ms of every start (see BENCHMARKS.md,
// "Start-up"), and the process only ever needs these few lines.
import { EOL } from 'node:os';
import type { LogLevel } from '../config/choices.js';

import { escapeControls } from '../config/errors.js';
import { redact } from './redact.js';

export { redact, redactDeep, registerCredential, registerSecret } from './redact.js';

/** npm's levels, most severe first (winston's defaults, which --log-level names). */
const SEVERITY: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, http: 3, verbose: 4, debug: 5, silly: 6 };

type LineFn = (message: string, meta?: Record<string, unknown>) => void;

export interface Logger {
  /** The most verbose level written; lines below it are dropped before any formatting. */
  level: LogLevel;
  log(level: LogLevel, message: string, meta?: Record<string, unknown>): void;
  error: LineFn;
  warn: LineFn;
  info: LineFn;
  http: LineFn;
  verbose: LineFn;
  debug: LineFn;
  silly: LineFn;
  isLevelEnabled(level: string): boolean;
  isErrorEnabled(): boolean;
  isWarnEnabled(): boolean;
  isInfoEnabled(): boolean;
  isHttpEnabled(): boolean;
  isVerboseEnabled(): boolean;
  isDebugEnabled(): boolean;
  isSillyEnabled(): boolean;
}

function createLogger(initial: LogLevel, write: (line: string) => void): Logger {
  let threshold = SEVERITY[initial];
  let level = initial;
  const enabled = (l: string) => l in SEVERITY && SEVERITY[l as LogLevel] <= threshold;
  const emit = (l: LogLevel, message: string, meta?: Record<string, unknown>) => {
    if (!enabled(l)) return;
    // Meta is redacted as JSON, as a whole: a secret split across fields is still caught.
    const extra = meta && Object.keys(meta).length ? ` ${JSON.stringify(meta)}` : '';
    // One line, whatever a message quotes (a server's error text, a blob's name): controls escaped.
    write(`${escapeControls(redact(`${new Date().toISOString()} ${l}: ${String(message)}${extra}`))}${EOL}`);
  };
  const at = (l: LogLevel): LineFn => (message, meta) => emit(l, message, meta);
  return {
    get level() {
      return level;
    },
    set level(l: LogLevel) {
      if (!(l in SEVERITY)) throw new Error(`unknown log level "${l}"`);
      level = l;
      threshold = SEVERITY[l];
    },
    log: emit,
    error: at('error'),
    warn: at('warn'),
    info: at('info'),
    http: at('http'),
    verbose: at('verbose'),
    debug: at('debug'),
    silly: at('silly'),
    isLevelEnabled: enabled,
    isErrorEnabled: () => enabled('error'),
    isWarnEnabled: () => enabled('warn'),
    isInfoEnabled: () => enabled('info'),
    isHttpEnabled: () => enabled('http'),
    isVerboseEnabled: () => enabled('verbose'),
    isDebugEnabled: () => enabled('debug'),
    isSillyEnabled: () => enabled('silly'),
  };
}

export const log: Logger = createLogger('info', (line) => process.stderr.write(line));

export function setLogLevel(level: LogLevel): void {
  log.level = level;
}
