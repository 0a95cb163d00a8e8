// The names a replay writes and reads: the log's own (--keep-names), checked as blob names, or a
// stable hash of each under one prefix, so that the same log makes the same object set every time
// and a log's names (a customer's paths) never reach the target.
import { md5 } from '../payload/md5.js';
import { quotedValue } from '../vocabulary/errors.js';
import { HASHED_PREFIX } from '../plan/replay.js';

/** The blob service's longest name. */
export const MAX_NAME_CHARS = 1024;

/** `replay/` and the first 16 hex digits of the MD5 of the name as the log wrote it. */
export function hashedName(original: string): string {
  const digest = md5(new TextEncoder().encode(original));
  return `${HASHED_PREFIX}${Buffer.from(digest.subarray(0, 8)).toString('hex')}`;
}

/**
 * Why `name` is no blob name this tool sends as it is, or undefined: too long, a control character
 * or backslash, an empty, `.` or `..` segment (a path trick on a plain URL folder), or a final dot.
 */
export function badBlobName(name: string): string | undefined {
  if (name.length === 0) return 'it is empty';
  if (name.length > MAX_NAME_CHARS) return `it is longer than ${MAX_NAME_CHARS} characters`;
  if (/[\u0000-\u001f\u007f\\]/.test(name)) return 'it holds a control character or a backslash';
  const segments = name.split('/');
  if (segments.some((s) => s === '')) return 'it has an empty path segment (a leading, final or double /)';
  if (segments.some((s) => s === '.' || s === '..')) return 'it has a "." or ".." path segment';
  if (name.endsWith('.')) return 'it ends with a dot';
  return undefined;
}

/** The name a step uses: hashed, or kept once it is checked (a ConfigError-worthy line otherwise). */
export function replayName(original: string, keep: boolean, where: string): string | { problem: string } {
  if (!keep) return hashedName(original);
  const bad = badBlobName(original);
  if (!bad) return original;
  return {
    problem:
      `${where}: name ${quotedValue(original)} is not kept as a blob name (${bad}); ` +
      'replay without --keep-names (names are hashed then), or fix the log',
  };
}
