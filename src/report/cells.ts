// A column's values as each medium writes them (analysis/columns.ts): the text of a console or
// Markdown cell, and the figure a CSV cell holds. Escaping for the medium is the caller's.
import type {
  BucketCell,
  CellValue,
  CheckCell,
  Column,
  Medium,
  RankCell,
  RateCell,
  Table,
  TimeCell,
} from '../analysis/columns.js';
import type { TimeBounds } from '../analysis/report-model.js';
import { formatBytes } from '../vocabulary/sizes.js';
import { checkWord, count, DASH, fixed, money, num } from './format.js';

/** The columns a medium shows, in its order. */
export function columnsFor(table: Table, medium: Medium): Column[] {
  const byId = new Map(table.columns.map((c) => [c.id, c]));
  return (table.views[medium] ?? []).map((id) => {
    const c = byId.get(id);
    if (!c) throw new Error(`table view ${medium} names no column ${id}`);
    return c;
  });
}

/** The header a medium shows for a column. */
export const headerFor = (c: Column, medium: Medium): string => c.headers?.[medium] ?? c.header;

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** A bucket's upper edge as a user types sizes: 4KiB, 1MiB, 1.5MiB (the one byte formatter's figure). */
export const sizeLabel = (bytes: number): string => formatBytes(bytes).replace(' ', '');

/** A size bucket: `>4KiB≤8KiB`, the first `≤4KiB`. */
export const bucketRange = (b: BucketCell) =>
  `${b.fromBytes ? `>${sizeLabel(b.fromBytes)}` : ''}≤${sizeLabel(b.upToBytes)}`;

export const rankText = (v: RankCell) => `${v.rank}${v.tied ? '=' : ''}`;

/**
 * Median ± the reach of its 95% interval; below five runs the median and the runs' range; one sample:
 * the median.
 */
export function timeText(v: TimeCell): string {
  const b = v.bounds;
  if (!finite(v.medianMs)) return DASH;
  if (!b || !finite(b.highMs) || !finite(b.lowMs)) return v.medianMs.toFixed(1);
  const median = v.medianMs.toFixed(0);
  return b.of === 'range'
    ? `${median} (${b.lowMs.toFixed(0)}–${b.highMs.toFixed(0)})`
    : `${median}±${b.fromMedianMs.toFixed(0)}`;
}

/** The spread alone: `512–570 (range)` or `530–552 (95% CI)`; a dash from one sample. */
export const spreadText = (b: TimeBounds | undefined) =>
  b ? `${num(b.lowMs)}–${num(b.highMs)} (${b.of === 'range' ? 'range' : '95% CI'})` : DASH;

/** A rate: bare under a header that names the unit, else with its own unit. */
export function rateText(c: Column, v: RateCell): string {
  if (c.unit !== undefined) return num(v.value);
  return finite(v.value) ? `${num(v.value)} ${v.unit}` : DASH;
}

/** The text of a console or Markdown cell (not yet escaped). */
export function textCell(c: Column, v: CellValue, medium: Medium): string {
  switch (c.format) {
    case 'rank':
      return rankText(v as RankCell);
    case 'time':
      // Markdown gives the spread a column of its own.
      return medium === 'md' ? num((v as TimeCell).medianMs) : timeText(v as TimeCell);
    case 'spread':
      return spreadText(v as TimeBounds | undefined);
    case 'rate':
      return rateText(c, v as RateCell);
    case 'check':
      return checkWord(v as CheckCell);
    case 'bucket':
      return medium === 'console-brief'
        ? `≤${sizeLabel((v as BucketCell).upToBytes)}`
        : bucketRange(v as BucketCell);
    default:
      return scalarText(c, v);
  }
}

function scalarText(c: Column, v: CellValue): string {
  switch (c.format) {
    case 'num':
      return num(v as number | undefined);
    case 'count':
      return count(v as number | undefined);
    case 'money':
      return money(v as number | undefined);
    case 'whole':
      return fixed(v as number | undefined, 0);
    case 'share':
      return finite(v) ? (v * 100).toFixed(1) : DASH;
    case 'pass':
      return v ? 'PASS' : 'FAIL';
    default:
      return v === undefined ? DASH : String(v);
  }
}

/** The figure a CSV cell holds: the number or word itself, undefined where there is none. */
export function csvValue(c: Column, v: CellValue): unknown {
  switch (c.format) {
    case 'rank':
      return (v as RankCell).rank;
    case 'time':
      return (v as TimeCell).medianMs;
    case 'rate':
      return (v as RateCell).value;
    case 'check': {
      const check = v as CheckCell;
      return check.notVerified ? 'not verified' : check.verified;
    }
    case 'bucket':
      return bucketRange(v as BucketCell);
    case 'spread':
      return undefined;
    default:
      return v;
  }
}

/** A table's headers and cells as a medium shows them, each passed through the medium's escaping. */
export function textTable(table: Table, medium: Medium, escaped: (text: string) => string = (t) => t) {
  const columns = columnsFor(table, medium);
  const rows = table.columns[0]?.values.length ?? 0;
  return {
    columns,
    head: columns.map((c) => escaped(headerFor(c, medium))),
    rows: Array.from({ length: rows }, (_, i) =>
      columns.map((c) => escaped(textCell(c, c.values[i], medium))),
    ),
  };
}
