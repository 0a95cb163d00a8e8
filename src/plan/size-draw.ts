// Per-file sizes drawn from a distribution. Each file's size is a pure function of the seed, the
// distribution and the file's index (a hash, not a stateful generator), so every process, every run
// and every later session draws the same size for the same file without a list of sizes being kept
// or sent: a set of 1,000,000 files stays a few numbers, and the same seed gives the same sizes in
// the same order. It sits in plan/ because FileSet (items.ts) asks it for each item's size.

/** A distribution of file sizes, as config/size-distribution.ts parses it from --file-size. */
export type SizeDistribution =
  | { kind: 'fixed'; bytes: number }
  /** Every size from minBytes to maxBytes equally likely (`log`: every power of two alike). */
  | { kind: 'range'; minBytes: number; maxBytes: number; log: boolean }
  /** exp(N(ln median, sigma)), clamped to [minBytes, maxBytes]. */
  | { kind: 'lognormal'; medianBytes: number; sigma: number; minBytes: number; maxBytes: number }
  /** Each size with its share; shares are fractions that sum to 1. */
  | { kind: 'buckets'; buckets: { bytes: number; share: number }[] };

/** A distribution and the seed that fixes its draw: what a file set carries. */
export interface SizeDraw {
  distribution: SizeDistribution;
  seed: number;
}

/** murmur3's finaliser: a 32-bit value whose bits all depend on every input bit. */
function mix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A uniform number in [0, 1) from (seed, index, stream), with 53 random bits. */
export function uniformAt(seed: number, index: number, stream: number): number {
  const salt = Math.imul(stream + 1, 0x27d4eb2d);
  const base = mix32(mix32(seed ^ 0x9e3779b9) ^ mix32(index + 0x632be5ab) ^ salt);
  const hi = mix32(base ^ (index / 2 ** 32));
  const lo = mix32(base + 0x7f4a7c15);
  return ((hi >>> 5) * 2 ** 26 + (lo >>> 6)) / 2 ** 53;
}

const clamp = (bytes: number, min: number, max: number) => Math.min(max, Math.max(min, Math.round(bytes)));

/** File `index`'s size in bytes. */
export function sizeAt(draw: SizeDraw, index: number): number {
  const d = draw.distribution;
  switch (d.kind) {
    case 'fixed':
      return d.bytes;
    case 'range': {
      const u = uniformAt(draw.seed, index, 0);
      if (!d.log) return d.minBytes + Math.floor(u * (d.maxBytes - d.minBytes + 1));
      const lo = Math.log(d.minBytes);
      return clamp(Math.exp(lo + u * (Math.log(d.maxBytes) - lo)), d.minBytes, d.maxBytes);
    }
    case 'lognormal': {
      // Box-Muller: two uniforms give one standard normal; 1 - u keeps the logarithm finite.
      const u1 = 1 - uniformAt(draw.seed, index, 0);
      const u2 = uniformAt(draw.seed, index, 1);
      const z = Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
      return clamp(d.medianBytes * Math.exp(d.sigma * z), d.minBytes, d.maxBytes);
    }
    case 'buckets': {
      const u = uniformAt(draw.seed, index, 0);
      let below = 0;
      for (const b of d.buckets) {
        below += b.share;
        if (u < below) return b.bytes;
      }
      return d.buckets.at(-1)!.bytes;
    }
  }
}

/** The most a distribution can draw: a bound, not the largest file of a set (largestBytes is that). */
export function distributionMaxBytes(d: SizeDistribution): number {
  switch (d.kind) {
    case 'fixed':
      return d.bytes;
    case 'range':
    case 'lognormal':
      return d.maxBytes;
    case 'buckets':
      return Math.max(...d.buckets.map((b) => b.bytes));
  }
}

/** A short stable name of a draw for fixture folders: the same text for the same sizes. */
export function drawTag(draw: SizeDraw): string {
  let h = mix32(draw.seed);
  for (const ch of JSON.stringify(draw.distribution)) h = mix32(h ^ ch.charCodeAt(0));
  return h.toString(16).padStart(8, '0');
}

/**
 * The upper edges of the size buckets a report groups files by: the user's own sizes when the
 * distribution is weighted buckets, else powers of two from the smallest to the largest size seen.
 */
export function bucketEdges(d: SizeDistribution | undefined, smallest: number, largest: number): number[] {
  if (d?.kind === 'buckets') return [...new Set(d.buckets.map((b) => b.bytes))].sort((a, b) => a - b);
  const edges: number[] = [];
  let edge = 1;
  while (edge < Math.max(1, smallest)) edge *= 2;
  edges.push(edge);
  while (edge < largest) edges.push((edge *= 2));
  return edges;
}
