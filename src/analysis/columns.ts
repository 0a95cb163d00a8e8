// The column model: each table of the report as one list of columns (id, header, unit, a value per
// row and the kind of figure it is), and per medium the ids it shows, in its order. Console, Markdown,
// HTML and CSV render these lists; none of them names a table's columns itself. Built from the Report
// on demand (the JSON output stays the Report as it is).
import type { Unit } from '../results/schema.js';
import type { TimeBounds } from './time-bounds.js';

/** Where a table is shown: a medium, or a medium's shorter view (`console-brief`). */
export type Medium = 'console' | 'console-brief' | 'md' | 'html' | 'csv';

/** A rank as shown: `1`, or `1=` where another contender shares it. */
export interface RankCell {
  rank: number;
  tied: boolean;
}
/** A median time and the spread shown beside it. */
export interface TimeCell {
  medianMs: number;
  bounds?: TimeBounds;
}
/** A rate in its own unit: a column of mixed units says each cell's. */
export interface RateCell {
  value: number;
  unit: Unit;
}
/** What the check of a contender's bytes came to. */
export interface CheckCell {
  verified: boolean;
  notVerified?: string;
}
/** A size bucket's edges. */
export interface BucketCell {
  fromBytes: number;
  upToBytes: number;
}

export type CellValue =
  | string
  | number
  | boolean
  | undefined
  | RankCell
  | TimeCell
  | RateCell
  | CheckCell
  | BucketCell
  | TimeBounds;

/**
 * How a value is formatted; each medium words it its own way (CSV writes the figure itself):
 * `text` as it is (a dash where none), `int` a whole count, `num` three significant figures, `count`
 * whole numbers bare, `money`, `share` a fraction as a percentage, `whole` a rate without decimals,
 * `pass` PASS or FAIL, and the structured cells by their names.
 */
export type CellFormat =
  | 'text'
  | 'int'
  | 'num'
  | 'count'
  | 'money'
  | 'share'
  | 'whole'
  | 'flag'
  | 'pass'
  | 'rank'
  | 'time'
  | 'spread'
  | 'rate'
  | 'check'
  | 'bucket';

export interface Column<V extends CellValue = CellValue> {
  /** Stable name: CSV's header. */
  id: string;
  /** The words a table's header shows. */
  header: string;
  /** Where a medium words the header otherwise. */
  headers?: Partial<Record<Medium, string>>;
  /** The header holds text from the results file (a swept option's name): escaped by the medium. */
  headerFromData?: boolean;
  /** The unit every value is in; absent for a rate column of mixed units (each cell says its own). */
  unit?: string;
  format: CellFormat;
  /** One per row, in the table's row order. */
  values: readonly V[];
  /** The largest value (0 at least), where a renderer scales to it: a sparkline's top. */
  highest?: number;
}

export interface Table {
  columns: readonly Column[];
  /** The columns each medium shows, by id, in its order; a medium not named shows none. */
  views: Partial<Record<Medium, readonly string[]>>;
}

/** A column whose header is its id, a CSV-only figure. */
export const raw = (id: string, values: readonly CellValue[], format: CellFormat = 'num'): Column => ({
  id,
  header: id,
  format,
  values,
});
