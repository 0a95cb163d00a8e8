// One logger for the process: winston's, npm's levels, `<ISO time> <level>: <message>` lines on
// stderr. Its one format passes every line through redact(): no key, SAS signature, connection
// string or Authorization header reaches a log, at any level. The level is checked here, before
// winston is touched, and winston itself is loaded at the first line written, not at the start: a
// command that logs nothing never loads it, and one that does pays for it once, where it logs.
import { createRequire } from 'node:module';
import { EOL } from 'node:os';
import type { Logger as Winston } from 'winston';
import type { LogLevel } from '../vocabulary/choices.js';

import { escapeControls } from '../vocabulary/errors.js';
import { redact } from './redact.js';

export { redact, redactDeep, registerCredential, registerSecret } from './redact.js';

/** npm's levels, most severe first (winston's defaults, which --log-level names). */
const SEVERITY: Record<LogLevel, number> = {
  error: 0,
  warn: 1,
  info: 2,
  http: 3,
  verbose: 4,
  debug: 5,
  silly: 6,
};

/** What a line carries into winston besides its level and message. */
interface LineInfo {
  level: string;
  message: unknown;
  /** When the line was logged, not when winston wrote it. */
  timestamp: string;
  meta?: Record<string, unknown>;
  [key: string | symbol]: unknown;
}

/** The parts of winston this module uses (winston-parts.cjs holds exactly these). */
interface WinstonParts {
  createLogger(options: object): Winston;
  Transport: new () => { log?(info: LineInfo, next: () => void): void };
  format(transform: (info: LineInfo) => LineInfo): () => object;
  MESSAGE: symbol;
}

/**
 * winston's parts, packed with what they require into one file by `npm run build`
 * (scripts/bundle.ts: log/winston-parts.cjs; one file to read instead of ~90); a build by tsc alone
 * has only the package's. The path is the same from this module unbundled (dist/log/) and from a
 * bundle that holds it (dist/cli/, dist/workers/).
 */
function winstonParts(): WinstonParts {
  const require = createRequire(import.meta.url);
  try {
    return require('../log/winston-parts.cjs') as WinstonParts;
  } catch (err) {
    if ((err as { code?: string }).code !== 'MODULE_NOT_FOUND') throw err;
    const winston = require('winston') as typeof import('winston');
    return {
      createLogger: winston.createLogger, // winston's own export of winston-transport (its types call it `transport`)
      Transport: (winston as unknown as Pick<WinstonParts, 'Transport'>).Transport,
      format: winston.format as unknown as WinstonParts['format'],
      MESSAGE: Symbol.for('message'),
    };
  }
}

/**
 * The line every transport writes: redacted as a whole, meta as JSON, so a secret split across fields is
 * still caught.
 */
export function formatLine(info: LineInfo): string {
  const extra = info.meta && Object.keys(info.meta).length ? ` ${JSON.stringify(info.meta)}` : '';
  // One line, whatever a message quotes (a server's error text, a blob's name): controls escaped.
  return escapeControls(redact(`${info.timestamp} ${info.level}: ${String(info.message)}${extra}`));
}

/** The process's winston logger, made at its first line: every level to stderr, through formatLine. */
function createWinston(level: LogLevel): Winston {
  const w = winstonParts();
  const line = w.format((info) => {
    info[w.MESSAGE] = formatLine(info);
    return info;
  });
  // Written to process.stderr as it is when the line comes (winston's Console writes to the console's
  // stream, which a test runner replaces), at once: a line logged before an exit is not lost.
  class Stderr extends w.Transport {
    override log(info: LineInfo, next: () => void): void {
      process.stderr.write(`${String(info[w.MESSAGE])}${EOL}`);
      next();
    }
  }
  return w.createLogger({ levels: SEVERITY, level, format: line(), transports: [new Stderr()] });
}

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
  /** The winston logger every line goes through (made now if no line has been yet). */
  winston(): Winston;
}

function createLogger(initial: LogLevel): Logger {
  let threshold = SEVERITY[initial];
  let level = initial;
  let winston: Winston | undefined;
  const made = () => (winston ??= createWinston(level));
  const enabled = (l: string) => l in SEVERITY && SEVERITY[l as LogLevel] <= threshold;
  const emit = (l: LogLevel, message: string, meta?: Record<string, unknown>) => {
    if (!enabled(l)) return;
    made().log({ level: l, message, meta, timestamp: new Date().toISOString() });
  };
  const at =
    (l: LogLevel): LineFn =>
    (message, meta) =>
      emit(l, message, meta);
  return {
    get level() {
      return level;
    },
    set level(l: LogLevel) {
      if (!(l in SEVERITY)) throw new Error(`unknown log level "${l}"`);
      level = l;
      threshold = SEVERITY[l];
      if (winston) winston.level = l;
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
    winston: made,
  };
}

export const log: Logger = createLogger('info');

export function setLogLevel(level: LogLevel): void {
  log.level = level;
}
