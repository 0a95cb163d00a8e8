// What a run of drawn file sizes records of its draw, so that a report groups its requests by size
// without the config: the seed, the smallest file, and the upper edges of its size buckets.
import { FileSet, largestBytes } from '../plan/items.js';
import { bucketEdges, type SizeDraw } from '../plan/size-draw.js';
import type { RunParams } from '../results/schema.js';

type DrawnParams = Pick<RunParams, 'fileSizeSeed' | 'sizeBucketsBytes' | 'fileSizeMinBytes'>;

export function drawnParams(draw: SizeDraw, fileCount: number): DrawnParams {
  const set = FileSet.of('', fileCount, 0, 'upload', draw);
  let smallest = Infinity;
  for (let p = 0; p < set.length; p++) smallest = Math.min(smallest, set.sizeOf(set.indexAt(p)));
  return {
    fileSizeSeed: draw.seed,
    fileSizeMinBytes: set.length ? smallest : 0,
    sizeBucketsBytes: bucketEdges(draw.distribution, set.length ? smallest : 1, largestBytes(set)),
  };
}
