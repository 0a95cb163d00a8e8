// What a run of drawn file sizes records of its draw, so that a report groups its requests by size
// without the config: the distribution as typed, the seed, and the upper edges of its size buckets.
import { largestBytes, type FileSet } from '../plan/items.js';
import { bucketEdges, type SizeDraw } from '../plan/size-draw.js';
import type { RunParams } from '../results/schema.js';

export function drawnParams(draw: SizeDraw, set: FileSet): Pick<RunParams, 'fileSizeSeed' | 'sizeBucketsBytes' | 'fileSizeMinBytes'> {
  let smallest = Infinity;
  for (let p = 0; p < set.length; p++) smallest = Math.min(smallest, set.sizeOf(set.indexAt(p)));
  return {
    fileSizeSeed: draw.seed,
    fileSizeMinBytes: set.length ? smallest : 0,
    sizeBucketsBytes: bucketEdges(draw.distribution, set.length ? smallest : 1, largestBytes(set)),
  };
}
