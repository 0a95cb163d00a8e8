// Errors are values until the edge: the CLI turns an ExitError into one line and its exit code.
/** An error the CLI ends with on one line and this exit code, without a stack trace. */
export class ExitError extends Error {
  readonly exitCode: number;
  constructor(exitCode: number, message: string) {
    super(message);
    this.exitCode = exitCode;
  }
}

/** Bad input: exit code 2. */
export class ConfigError extends ExitError {
  constructor(message: string) {
    super(2, message);
    this.name = 'ConfigError';
  }
}

/**
 * Text from the user or a server as it may be shown on a terminal: control characters (ESC, BEL,
 * newlines) written as escapes, so a value can neither drive the terminal nor forge a second line.
 */
export const escapeControls = (text: string): string =>
  text.replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => ({ '\n': '\\n', '\r': '\\r', '\t': '\\t' })[c] ?? `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);

/**
 * A rejected value, quoted for an error line (empty when it must not be shown): escaped, and where
 * it may be a URL, its user information and query masked. A value that failed to parse as a URL
 * cannot be redacted by its parts (`http://user:pa/ss@host`, or a password or sig cut in two at a
 * sweep's comma): a URL option's value without a scheme may be such a piece and is not shown.
 */
export function quotedValue(raw: string, url: boolean): string {
  const m = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)(.*)$/is.exec(raw.trim());
  if (url && !m) return '';
  let shown = raw;
  if (m) {
    const [, scheme, authority, rest] = m as unknown as [string, string, string, string];
    const host = /[:@]/.test(authority) ? '[redacted]' : authority;
    shown = `${scheme}${host}${rest.replace(/^[^?#]*@/, '[redacted]@').replace(/\?.*$/s, '?[redacted]')}`;
  } else if (/[@?]/.test(raw)) shown = raw.replace(/^[^?#]*@/, '[redacted]@').replace(/\?.*$/s, '?[redacted]');
  return ` "${escapeControls(shown)}"`;
}
