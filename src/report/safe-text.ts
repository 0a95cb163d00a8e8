// Text that came from data (a results file, a --prices file, a server, a file name) made safe for
// the medium it is shown in. Every renderer takes such text through here where it enters a line, a
// cell or markup. Each medium builds on the terminal's: control characters show as escapes (`\x1b`,
// `\n`) in every format, so text can neither drive a terminal nor forge a line; each adds its own.
import { escapeControls } from '../vocabulary/errors.js';

/** A terminal line: no control character, line break or direction override, each shown as an escape. */
export const forTerminal = (text: string): string => escapeControls(text);

/**
 * A column at most `width` characters wide, cut with "…": escaped first, so that a cut can never
 * leave half an escape sequence to the terminal, and counted in code points, never half a surrogate.
 */
export function fitColumn(text: string, width: number): string {
  const chars = [...forTerminal(text)];
  return chars.length <= width ? chars.join('') : `${chars.slice(0, Math.max(0, width - 1)).join('')}…`;
}

/**
 * Markdown text, in a table cell, a heading or a list item: shown as written, never as structure.
 * Backslashes, backticks, pipes and `<` are escaped (no code span, cell break or HTML), an entity and
 * a link's `](` too, and a leading heading, quote, list or fence marker (a number such as -1.5 is
 * none); punctuation escaped with a backslash renders as itself, so the escaping is invisible.
 */
export function forMarkdown(text: string): string {
  return forTerminal(text)
    .replace(/[\\`|<]/g, '\\$&')
    .replace(/&(?=#?[a-z0-9]+;)/gi, '\\&')
    .replace(/\](?=[([])/g, '\\]')
    .replace(/^(\s*)([>~]|[#+\-*_=](?=[\s#+\-*_=]|$))/, '$1\\$2')
    .replace(/^(\s*\d+)([.)])(?=\s|$)/, '$1\\$2');
}

/**
 * Markdown code (a command to copy): a code span whose fence is longer than any run of backticks in
 * it, so the text cannot close it. Not for a table cell, where a pipe still splits the row.
 */
export function markdownCode(text: string): string {
  const t = forTerminal(text);
  const fence = '`'.repeat(Math.max(0, ...(t.match(/`+/g) ?? []).map((run) => run.length)) + 1);
  const pad = t.startsWith('`') || t.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${t}${pad}${fence}`;
}

/**
 * A CSV cell. A number is one we formatted: written as it is, a negative one included. Any other
 * value is text from data: escaped as for a terminal (a CSV is often printed to one) and, where it
 * begins with `=`, `+`, `-` or `@` (after any spaces), prefixed with a single quote inside a quoted
 * cell, as OWASP advises, so that a spreadsheet shows it as text and never evaluates it as a formula.
 */
export function csvCell(v: unknown): string {
  if (v === undefined || v === null) return '';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  if (typeof v === 'boolean') return String(v);
  const text = forTerminal(String(v));
  const formula = /^\s*[=+\-@]/.test(text);
  const s = formula ? `'${text}` : text;
  return formula || /[",]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** HTML text or an attribute's value: controls shown as escapes, then the five characters of markup. */
export function forHtml(text: string): string {
  return forTerminal(text).replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );
}

/**
 * A model as JSON: a figure that is not finite is null. JSON escapes the controls below 0x20 itself;
 * DEL, the C1 set (a CSI on some terminals), line separators and direction overrides, which it
 * writes as they are, are written as `\u` escapes too: the same string to a parser, inert on a terminal.
 */
export function toJson(value: unknown): string {
  return JSON.stringify(
    value,
    (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v),
    2,
  ).replace(
    /[\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
