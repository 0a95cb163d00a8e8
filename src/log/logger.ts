// One winston logger for the process. Every line passes through redact(): no key, SAS signature,
// connection string or Authorization header reaches a log, at any level.
import winston from 'winston';
import type { LogLevel } from '../config/options.js';

const secrets = new Set<string>();

/** Registers a secret value so that it is masked wherever it appears. */
export function registerSecret(value: string | undefined): void {
  if (value && value.length >= 4) {
    secrets.add(value);
    try {
      const decoded = decodeURIComponent(value);
      if (decoded !== value) secrets.add(decoded);
      secrets.add(encodeURIComponent(value));
    } catch {
      // not URI-encoded; the raw value is registered
    }
  }
}

const PATTERNS: [RegExp, string][] = [
  [/([?&]sig=)[^&\s"']+/gi, '$1[redacted]'],
  [/(AccountKey=)[^;\s"']+/gi, '$1[redacted]'],
  [/(SharedAccessSignature=)[^;\s"']+/gi, '$1[redacted]'],
  [/((?:Authorization|authorization)["']?\s*[:=]\s*["']?)(SharedKey|Bearer)\s+[^\s"',}]+/g, '$1$2 [redacted]'],
];

export function redact(text: string): string {
  let out = text;
  for (const s of secrets) out = out.split(s).join('[redacted]');
  for (const [re, rep] of PATTERNS) out = out.replace(re, rep);
  return out;
}

const redacting = winston.format((info) => {
  const { level, message, ...rest } = info as winston.Logform.TransformableInfo & Record<string, unknown>;
  info.message = redact(String(message));
  for (const k of Object.keys(rest)) {
    if (typeof k === 'symbol') continue;
    const v = rest[k];
    if (typeof v === 'string') info[k] = redact(v);
    else if (v !== null && typeof v === 'object') info[k] = JSON.parse(redact(JSON.stringify(v)));
  }
  void level;
  return info;
});

/**
 * Drops lines below the level before any formatting: winston runs the whole format pipeline (the
 * redaction's regular expressions, the timestamp) for every call and filters only in the transport.
 */
const belowLevel = winston.format((info) => (log.isLevelEnabled(info.level) ? info : false));

export const log: winston.Logger = winston.createLogger({
  level: 'info',
  format: winston.format.combine(
    belowLevel(),
    redacting(),
    winston.format.timestamp(),
    winston.format.printf(({ level, message, timestamp, ...meta }) => {
      const extra = Object.keys(meta).length ? ` ${JSON.stringify(meta)}` : '';
      return redact(`${timestamp} ${level}: ${message}${extra}`);
    }),
  ),
  transports: [new winston.transports.Console({ stderrLevels: ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'] })],
});

export function setLogLevel(level: LogLevel): void {
  log.level = level;
}
