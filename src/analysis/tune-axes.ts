// A tune's cells placed on each searched axis, for the report's charts: which cells have a value on
// the axis, the axis's values in order (sizes and counts by what they mean, not as text), the slice
// through the best (cells equal to it on every other axis) in axis order, and the highest rate. The
// renderer then only draws what this says.
import { parseSizeUnbounded } from '../vocabulary/sizes.js';
import type { Cell, TuneRecord } from '../results/schema.js';

export interface TuneAxisPoints {
  flag: string;
  /** The values measured on it, in order: x is log2 of `numbers` where `ordered`, else evenly spaced. */
  ordered: boolean;
  values: string[];
  numbers: number[];
  /** Indices into the tune's path: the measured cells with a value on this axis, in the order measured. */
  points: number[];
  /** Of those, the cells equal to the best on every other axis, in the order of `values`. */
  slice: number[];
  /** The highest rate among `points`. */
  maxRate: number;
}

/** The number a value stands for: a size in bytes ("4MiB"), else the value as a number. */
const numberOf = (v: string) => parseSizeUnbounded(v, 1) ?? Number(v);

export function tuneAxisPoints(
  axes: TuneRecord['axes'],
  path: readonly { cell: Cell; rate?: number; failed: boolean }[],
  best: Cell | undefined,
): TuneAxisPoints[] {
  return axes.map(({ flag, ordered, values: given }) => {
    const placed = path.flatMap((p, i) =>
      p.rate !== undefined && !p.failed && p.cell[flag] !== undefined ? [i] : [],
    );
    const valueAt = (i: number) => path[i]!.cell[flag]!;
    const values = ordered
      ? [...new Set(placed.map(valueAt))].sort((a, b) => numberOf(a) - numberOf(b))
      : [...given];
    const onSlice = (i: number) =>
      best !== undefined && Object.entries(best).every(([k, v]) => k === flag || path[i]!.cell[k] === v);
    const slice = placed
      .filter(onSlice)
      .sort((a, b) => values.indexOf(valueAt(a)) - values.indexOf(valueAt(b)));
    return {
      flag,
      ordered,
      values,
      numbers: values.map(numberOf),
      points: placed,
      slice,
      maxRate: Math.max(...placed.map((i) => path[i]!.rate!)),
    };
  });
}
