// Errors are values until the edge: the CLI turns an ExitError into one line and its exit code.
/** An error the CLI ends with on one line and this exit code, without a stack trace. */
export class ExitError extends Error {
  readonly exitCode: number;
  constructor(exitCode: number, message: string) {
    super(message);
    this.exitCode = exitCode;
  }
}

/** A failure the user was told of, in one line, when it happened: the CLI ends with its code, silently. */
export class ToldError extends ExitError {}

/** Bad input: exit code 2. */
export class ConfigError extends ExitError {
  constructor(message: string) {
    super(2, message);
    this.name = 'ConfigError';
  }
}

/**
 * Text from the user or a server as it may be shown on a terminal: control characters (ESC, BEL,
 * newlines, the C1 set), Unicode's line separators and its direction overrides written as escapes,
 * so a value can neither drive the terminal, nor forge a second line, nor show its text reordered.
 * The result holds none of them, so escaping it again changes nothing.
 */
export const escapeControls = (text: string): string =>
  text.replace(/[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g, (c) => {
    const code = c.charCodeAt(0);
    return (
      { '\n': '\\n', '\r': '\\r', '\t': '\\t' }[c] ??
      (code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16)}`)
    );
  });

/**
 * A rejected value, quoted for an error line: escaped, and where it may be a URL, its user
 * information and query masked: a value that failed to parse as a URL cannot be redacted by its
 * parts (`http://user:pa/ss@host`). A sweep's pieces of a URL are checked before (cli/commands/sweep.ts).
 */
export function quotedValue(raw: string): string {
  const m = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)(.*)$/is.exec(raw.trim());
  let shown = raw;
  if (m) {
    const [, scheme, authority, rest] = m as unknown as [string, string, string, string];
    const host = /[:@]/.test(authority) ? '[redacted]' : authority;
    shown = `${scheme}${host}${rest.replace(/^[^?#]*@/, '[redacted]@').replace(/\?.*$/s, '?[redacted]')}`;
  } else if (/[@?]/.test(raw))
    shown = raw.replace(/^[^?#]*@/, '[redacted]@').replace(/\?.*$/s, '?[redacted]');
  return `"${escapeControls(shown)}"`;
}
