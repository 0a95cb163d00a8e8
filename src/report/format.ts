// Number and label formatting shared by every renderer: a figure that does not exist or is not
// finite prints as "—", never NaN, Infinity or -1±0.
import type { TimeWent } from '../analysis/report-model.js';

export const DASH = '—';

const finite = (v: number | null | undefined): v is number => typeof v === 'number' && Number.isFinite(v);

/** Milliseconds and rates: 3 significant figures at most, fewer decimals as values grow. */
export function num(v: number | null | undefined): string {
  if (!finite(v)) return DASH;
  const a = Math.abs(v);
  return a >= 100 ? v.toFixed(0) : a >= 10 ? v.toFixed(1) : v.toFixed(2);
}

export const fixed = (v: number | null | undefined, digits: number) => (finite(v) ? v.toFixed(digits) : DASH);

/** A count that may be fractional (requests per object): whole numbers without decimals. */
export const count = (v: number | null | undefined) =>
  !finite(v) ? DASH : Number.isInteger(v) ? String(v) : num(v);

/** Money, with enough digits that a small cost does not print as 0.00. */
export function money(v: number | null | undefined): string {
  if (!finite(v)) return DASH;
  if (v === 0) return '0';
  return v >= 1 ? v.toFixed(2) : v.toPrecision(2);
}

/** A CSV or data cell: the number itself, or empty when it does not exist. */
export const raw = (v: number | null | undefined) => (finite(v) ? String(v) : '');

/** Where the time went, in one line: `single: wait 91%, dns 1%, tcp 0%, firstByte 7%, …; …` */
export function timeWentLine(t: TimeWent): string {
  const shares = t.shares.map((s) => `${s.phase} ${(s.share * 100).toFixed(0)}%`).join(', ');
  const plural = (n: number, one: string) => `${count(n)} ${one}${n === 1 ? '' : 's'}`;
  const sockets = `${plural(t.socketsOpenedPerRun, 'new socket')} for ${plural(t.requestsPerRun, 'request')}`;
  return `${t.contender}: ${shares} of request time; ${sockets} a run`;
}

/** Durations and byte counts as config/ writes them in help and errors: one formatter each. */
export { formatDuration as seconds } from '../vocabulary/durations.js';
export { formatBytes as bytes } from '../vocabulary/sizes.js';

/**
 * What the check of a contender's bytes came to: "ok" only when every byte was compared with what the target
 * vouched for.
 */
export const checkWord = (s: { verified: boolean; notVerified?: string }): string =>
  !s.verified ? 'FAILED' : s.notVerified ? `not verified (${s.notVerified})` : 'ok';

/** Text as HTML (controls as escapes, the five characters of markup as entities): safe-text.ts. */
export { forHtml as escapeHtml } from './safe-text.js';
