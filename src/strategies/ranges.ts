// Plans: which blobs, which ranges. Pure functions, shared by strategies and fixtures.
import type { ByteRange } from '../plan/items.js';

/** Splits `sizeBytes` into at most `count` contiguous ranges, sizes differing by at most one byte. */
export function splitRanges(sizeBytes: number, count: number): ByteRange[] {
  const n = Math.max(1, Math.min(count, sizeBytes));
  if (sizeBytes === 0) return [{ offsetBytes: 0, lengthBytes: 0 }];
  const base = Math.floor(sizeBytes / n);
  const extra = sizeBytes % n;
  const ranges: ByteRange[] = [];
  let offset = 0;
  for (let i = 0; i < n; i++) {
    const len = base + (i < extra ? 1 : 0);
    ranges.push({ offsetBytes: offset, lengthBytes: len });
    offset += len;
  }
  return ranges;
}

/** Ranges of `rangeBytes` (the last one shorter) when set, else `count` equal ranges. */
export function planRanges(sizeBytes: number, count: number, rangeBytes?: number): ByteRange[] {
  if (!rangeBytes || sizeBytes === 0) return splitRanges(sizeBytes, count);
  const ranges: ByteRange[] = [];
  for (let offset = 0; offset < sizeBytes; offset += rangeBytes)
    ranges.push({ offsetBytes: offset, lengthBytes: Math.min(rangeBytes, sizeBytes - offset) });
  return ranges;
}
