// A sweep's command line: any option given as a comma-separated list is an axis, and the grid is
// every combination; each cell is then parsed and validated as a command line of its own.
import { ConfigError } from '../vocabulary/errors.js';
import type { Cell, SweepAxis } from '../results/schema.js';

export const MAX_SWEEP_CELLS = 100;

/** Splits argv into the fixed part and the swept axes (`--flag a,b,c` or `--flag=a,b,c`). */
export function findAxes(argv: readonly string[]): { axes: SweepAxis[]; fixed: string[] } {
  const axes: SweepAxis[] = [];
  const fixed: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    let flag: string | undefined;
    let value: string | undefined;
    if (arg.startsWith('--') && arg.includes('='))
      [flag, value] = [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)];
    else if (
      arg.startsWith('--') &&
      argv[i + 1] !== undefined &&
      !argv[i + 1]!.startsWith('--') &&
      argv[i + 1]!.includes(',')
    ) {
      [flag, value] = [arg, argv[i + 1]!];
      i++;
    }
    // A --file-size distribution (lognormal:…, weighted buckets) and a --mix (get:70,put:30) have
    // commas of their own: one value.
    const oneValue = (flag === '--file-size' || flag === '--mix') && value?.includes(':');
    if (flag && value?.includes(',') && !oneValue) {
      const values = value.split(',').map((v) => v.trim());
      // `--concurrency ,,` or `2,,4` would make an empty grid or an empty cell; the value is not
      // echoed, as it may be a key.
      if (values.includes(''))
        throw new ConfigError(
          `${flag} has an empty value in its comma-separated list; give values separated by single ` +
            `commas, e.g. ${flag} 2,4,8`,
        );
      if (axes.some((a) => a.flag === flag))
        throw new ConfigError(`${flag} is swept twice; give its values once, comma-separated`);
      axes.push({ flag, values });
    } else if (flag) fixed.push(`${flag}=${value}`);
    else fixed.push(arg);
  }
  return { axes, fixed };
}

export function gridCells(axes: readonly SweepAxis[]): Cell[] {
  // Counted before any is built: six axes of 20 values would be 64 million cells, out of memory.
  const count = axes.reduce((n, a) => n * a.values.length, 1);
  if (count > MAX_SWEEP_CELLS)
    throw new ConfigError(`the sweep has ${count} cells, more than ${MAX_SWEEP_CELLS}; sweep fewer values`);
  let cells: Cell[] = [{}];
  for (const axis of axes) cells = cells.flatMap((c) => axis.values.map((v) => ({ ...c, [axis.flag]: v })));
  return cells;
}

export const cellArgv = (fixed: readonly string[], cell: Cell) => [
  ...fixed,
  ...Object.entries(cell).map(([k, v]) => `${k}=${v}`),
];
