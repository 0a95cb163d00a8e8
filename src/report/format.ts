// Number and label formatting shared by every renderer: a figure that does not exist or is not
// finite prints as "—", never NaN, Infinity or -1±0.
import type { Report, ReportContender, TimeWent } from '../analysis/report-model.js';

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

/** Median ± the reach of its 95% interval; below five runs the median and the runs' range; one sample: the median. */
export function timeCell(s: ReportContender): string {
  const w = s.wallMs;
  const b = s.timeBounds;
  if (!finite(w.median)) return DASH;
  if (!b || !finite(b.highMs) || !finite(b.lowMs)) return w.median.toFixed(1);
  const median = w.median.toFixed(0);
  return b.of === 'range'
    ? `${median} (${b.lowMs.toFixed(0)}–${b.highMs.toFixed(0)})`
    : `${median}±${b.fromMedianMs.toFixed(0)}`;
}

/** The spread alone: `512–570 (range)` or `530–552 (95% CI)`; a dash from one sample. */
export function boundsCell(s: ReportContender): string {
  const b = s.timeBounds;
  return b ? `${num(b.lowMs)}–${num(b.highMs)} (${b.of === 'range' ? 'range' : '95% CI'})` : DASH;
}

/** Where the time went, in one line: `single: wait 91%, dns 1%, tcp 0%, firstByte 7%, …; …` */
export function timeWentLine(t: TimeWent): string {
  const shares = t.shares.map((s) => `${s.phase} ${(s.share * 100).toFixed(0)}%`).join(', ');
  const plural = (n: number, one: string) => `${count(n)} ${one}${n === 1 ? '' : 's'}`;
  const sockets = `${plural(t.socketsOpenedPerRun, 'new socket')} for ${plural(t.requestsPerRun, 'request')}`;
  return `${t.contender}: ${shares} of request time; ${sockets} a run`;
}

/** The contender's median rate in its own unit. */
export const rateOf = (s: ReportContender) =>
  s.unit === 'ops/s' ? s.opsPerSecond.median : s.throughputMiBps.median;

export interface RateColumn {
  header: string;
  cell: (s: ReportContender) => string;
}

/**
 * The rate column of a table: where every row is counted in one unit, the header names it; where
 * units mix (an upload of one large blob beside many small files), the header says "rate" and each
 * cell its own unit, so that no number sits under another's unit.
 */
export function rateColumn(r: Pick<Report, 'unit' | 'contenders'>): RateColumn {
  const units = new Set(r.contenders.map((s) => s.unit));
  if (units.size <= 1) return { header: [...units][0] ?? r.unit, cell: (s) => num(rateOf(s)) };
  return { header: 'rate', cell: (s) => (Number.isFinite(rateOf(s)) ? `${num(rateOf(s))} ${s.unit}` : DASH) };
}

/** The first tier's cost per 1,000 objects (hot, unless the table has no hot tier). */
export const firstTier = (s: ReportContender) => s.cost.tiers[0];

/** Durations and byte counts as config/ writes them in help and errors: one formatter each. */
export { formatDuration as seconds } from '../config/durations.js';
export { formatBytes as bytes } from '../config/sizes.js';

/** Sweep axes as columns: the swept flags, in order of first appearance. */
export function axesOf(contenders: readonly ReportContender[]): string[] {
  const seen: string[] = [];
  for (const c of contenders) for (const k of Object.keys(c.cell ?? {})) if (!seen.includes(k)) seen.push(k);
  return seen;
}

/**
 * What the check of a contender's bytes came to: "ok" only when every byte was compared with what the target
 * vouched for.
 */
export const checkWord = (s: { verified: boolean; notVerified?: string }): string =>
  !s.verified ? 'FAILED' : s.notVerified ? `not verified (${s.notVerified})` : 'ok';

/** Text as HTML (controls as escapes, the five characters of markup as entities): safe-text.ts. */
export { forHtml as escapeHtml } from './safe-text.js';
