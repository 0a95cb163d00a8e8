// The process logger: npm's levels, lines dropped below the level, every line (meta included)
// redacted, and the `<ISO time> <level>: <message>` shape the CLI's output and its tests rely on.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { log, redact, registerSecret, setLogLevel } from '../src/log/logger.js';

let lines: string[];
beforeEach(() => {
  lines = [];
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
});
afterEach(() => {
  vi.restoreAllMocks();
  setLogLevel('info');
});

describe('logger', () => {
  it('writes one line per call to stderr, with an ISO time and the level', () => {
    log.info('hello');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z info: hello\n$/);
  });

  it(
    "a message quoting a server's or a file's text stays one line: ESC, BEL, CR, a " +
      'newline and C1 escaped',
    () => {
      log.warn(
        'runs/r/results/\u001b]0;PWNED\u0007\r\n2026-01-01T00:00:00.000Z error: forged \u009b2J: left out',
        { server: 'x\u009by' },
      );
      expect(lines).toHaveLength(1);
      expect(lines[0]!.slice(0, -1)).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
      expect(lines[0]).toContain(
        'runs/r/results/\\x1b]0;PWNED\\x07\\r\\n2026-01-01T00:00:00.000Z error: forged \\x9b2J: left ' +
          'out {"server":"x\\x9by"}',
      );
    },
  );

  it('drops lines below the level and answers the level checks', () => {
    setLogLevel('warn');
    log.info('no');
    log.debug('no');
    log.warn('yes');
    log.error('yes');
    expect(lines.map((l) => l.split(' ')[1])).toEqual(['warn:', 'error:']);
    expect(log.level).toBe('warn');
    expect(log.isWarnEnabled()).toBe(true);
    expect(log.isInfoEnabled()).toBe(false);
    setLogLevel('silly');
    expect(
      log.isDebugEnabled() && log.isVerboseEnabled() && log.isSillyEnabled() && log.isLevelEnabled('http'),
    ).toBe(true);
    expect(log.isLevelEnabled('nonsense')).toBe(false);
  });

  it('masks registered secrets and known patterns, in messages and meta', () => {
    const key = 'c2VjcmV0LWtleS12YWx1ZS1mb3ItdGVzdHM=';
    registerSecret(key);
    log.warn(`AccountKey=${key};x https://a/b?sv=1&sig=abc%2Fdef&se=2 Authorization: SharedKey acct:xyz`, {
      key,
    });
    const line = lines.join('');
    expect(line).not.toContain(key);
    expect(line).not.toContain(encodeURIComponent(key));
    expect(line).not.toContain('abc%2Fdef');
    expect(line).not.toContain('acct:xyz');
    expect(line).toContain('[redacted]');
    expect(redact(`x ${key} y`)).toBe('x [redacted] y');
  });
});

describe('winston is the logger', () => {
  const LEVELS = ['error', 'warn', 'info', 'http', 'verbose', 'debug', 'silly'] as const;

  it(
    "every line, at every level, goes through the process's one winston logger and " + 'comes out redacted',
    () => {
      setLogLevel('silly');
      const winston = log.winston();
      const entered = vi.spyOn(winston, 'write');
      const sig = 'c2lnbmF0dXJlLWZvci13aW5zdG9u';
      for (const level of LEVELS)
        log[level](`${level} https://a/b?sv=1&sig=${sig}`, { connection: `AccountKey=${sig};` });
      expect(entered).toHaveBeenCalledTimes(LEVELS.length);
      expect(entered.mock.calls.map(([info]) => (info as { level: string }).level)).toEqual([...LEVELS]);
      expect(lines).toHaveLength(LEVELS.length);
      for (const [i, line] of lines.entries()) {
        expect(line).toMatch(
          new RegExp(
            `^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z ${LEVELS[i]}: ${LEVELS[i]} ` +
              `https://a/b\\?sv=1&sig=\\[redacted\\] ` +
              `\\{"connection":"AccountKey=\\[redacted\\];"\\}\\n$`,
          ),
        );
        expect(line).not.toContain(sig);
      }
    },
  );

  it('writes nothing that winston did not: a line winston drops reaches no output', () => {
    const winston = log.winston();
    vi.spyOn(winston, 'write').mockImplementation(() => true);
    for (const level of LEVELS) log[level]('dropped by winston');
    expect(lines).toEqual([]);
  });

  it('follows the level set here, and below it winston is never asked', () => {
    setLogLevel('warn');
    const winston = log.winston();
    expect(winston.level).toBe('warn');
    const entered = vi.spyOn(winston, 'write');
    log.info('no');
    log.debug('no');
    log.error('yes');
    expect(entered).toHaveBeenCalledTimes(1);
    expect(lines.map((l) => l.split(' ')[1])).toEqual(['error:']);
  });
});
