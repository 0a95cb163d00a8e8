// What `tune` searches: for downloads, the strategy among those asked for, processes, sockets per
// process and concurrency (ranges in flight); for uploads, the strategy, processes, sockets,
// concurrency (blocks in flight) and the block size. Ladders double, starting where the tool's own
// defaults do; an axis the user fixed (a flag given with one value) is not searched.
import { formatSizeExact, parseSizeUnbounded } from '../vocabulary/sizes.js';
import type { TuneAxis } from './search.js';

const MiB = 1024 * 1024;
const doubling = (from: number, to: number) => {
  const out: number[] = [];
  for (let v = from; v <= to; v *= 2) out.push(v);
  return out;
};

/** The whole number halfway (geometrically) between two ladder steps, when there is one strictly between. */
const halfwayCount = (a: string, b: string): string | undefined => {
  const mid = Math.round(Math.sqrt(Number(a) * Number(b)));
  return mid > Number(a) && mid < Number(b) ? String(mid) : undefined;
};

const sizeBytes = (v: string) => parseSizeUnbounded(v, 1) ?? Number(v);
const halfwaySize = (a: string, b: string): string | undefined => {
  const mid = Math.round(Math.sqrt(sizeBytes(a) * sizeBytes(b)) / MiB) * MiB;
  return mid > sizeBytes(a) && mid < sizeBytes(b) ? formatSizeExact(mid).replace(' ', '') : undefined;
};

function countAxis(flag: string, values: number[], start: number): TuneAxis {
  // The first step at or above the start; a start past the ladder's top starts at the top, the
  // nearest the ladder has (never at its bottom).
  const above = values.findIndex((v) => v >= start);
  const at = above < 0 ? values.length - 1 : above;
  return { flag, values: values.map(String), ordered: true, start: at, between: halfwayCount };
}

export interface AxesInput {
  direction: 'download' | 'upload';
  /** The strategies to choose among (one: the strategy is not searched). */
  strategies: readonly string[];
  /** The machine's cores: processes past twice this are not tried. */
  cores: number;
  /** Flags the user fixed: their axes are left out. */
  fixed: ReadonlySet<string>;
  /** Where the search starts on each axis (the tool's defaults or what was given). */
  start: { processes: number; maxSockets: number; concurrency: number; blockSizeBytes?: number };
  /** A training run: batches read ahead, searched from 0 (read when asked) up, where not fixed. */
  prefetch?: number;
}

/** Read when asked, then doubling: the depth where utilisation levels off is what a tune finds. */
const PREFETCH_DEPTHS = [0, ...doubling(1, 64)];

/** The axes of a tune, in the order the search grows them. */
export function tuneAxes(input: AxesInput): TuneAxis[] {
  const axes: TuneAxis[] = [];
  const method = input.direction === 'download' ? '--source-method' : '--upload-method';
  if (input.strategies.length > 1)
    axes.push({ flag: method, values: input.strategies, ordered: false, start: 0 });
  const counts: [string, number[], number][] = [
    ['--concurrency', doubling(1, 256), input.start.concurrency],
    ['--max-sockets', doubling(1, 256), input.start.maxSockets],
    ['--processes', doubling(1, Math.max(1, 2 * input.cores)), input.start.processes],
  ];
  for (const [flag, values, start] of counts) {
    if (input.fixed.has(flag)) continue;
    const axis = countAxis(flag, values, start);
    axes.push(flag === '--concurrency' ? axis : { ...axis, multipliesConnections: true });
  }
  if (input.prefetch !== undefined && !input.fixed.has('--prefetch'))
    axes.push(countAxis('--prefetch', PREFETCH_DEPTHS, input.prefetch));
  if (input.direction === 'upload' && !input.fixed.has('--block-size')) {
    const sizes = doubling(1, 256).map((m) => m * MiB);
    const start = input.start.blockSizeBytes ?? 8 * MiB;
    const above = sizes.findIndex((b) => b >= start);
    axes.push({
      flag: '--block-size',
      values: sizes.map((b) => formatSizeExact(b).replace(' ', '')),
      ordered: true,
      start: above < 0 ? sizes.length - 1 : above,
      toNumber: sizeBytes,
      between: halfwaySize,
    });
  }
  return axes;
}
