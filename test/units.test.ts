// Pure units: human sizes and durations, byte-range plans and the split of work over worker processes.
import { describe, expect, it } from 'vitest';
import { formatDuration } from '../src/vocabulary/durations.js';
import { formatBytes, parseSizeBytes } from '../src/vocabulary/sizes.js';
import { splitRanges } from '../src/strategies/ranges.js';
import type { ByteRange } from '../src/plan/items.js';
import { splitFairly } from './helpers/split.js';

const MiB = 1024 * 1024;

describe('parseSizeBytes', () => {
  it.each([
    ['80MiB', 80 * MiB],
    ['100KB', 100_000],
    ['12800000', 12_800_000],
    ['1.5MiB', 1.5 * MiB],
    ['80mib', 80 * MiB],
    [' 64 KiB ', 64 * 1024],
    ['0', 0],
  ])('%j is %i bytes', (text, bytes) => {
    expect(parseSizeBytes(text)).toBe(bytes);
  });

  it.each(['abc', '-1', '10XB', '', 'MiB', '1.2.3MB', '99999999999999999999'])('%j is not a size', (text) => {
    expect(parseSizeBytes(text)).toBeUndefined();
  });

  it('reads a bare number in the unit the caller gives', () => {
    expect(parseSizeBytes('4', MiB)).toBe(4 * MiB);
    expect(parseSizeBytes('4B', MiB)).toBe(4);
  });
});

/** Ranges start at 0, follow each other without gap or overlap, cover `sizeBytes`, differ by <= 1. */
function expectEvenCover(ranges: ByteRange[], sizeBytes: number): void {
  let nextOffsetBytes = 0;
  for (const r of ranges) {
    expect(r.offsetBytes).toBe(nextOffsetBytes);
    nextOffsetBytes += r.lengthBytes;
  }
  expect(nextOffsetBytes).toBe(sizeBytes);
  const lengths = ranges.map((r) => r.lengthBytes);
  expect(Math.max(...lengths) - Math.min(...lengths)).toBeLessThanOrEqual(1);
}

describe('formatBytes, the one byte formatter of messages and reports', () => {
  it.each([
    [512, '512 B'],
    [64 * 1024, '64 KiB'],
    [1.5 * MiB, '1.5 MiB'],
    [1.25 * MiB, '1.25 MiB'],
    [150.5 * MiB, '151 MiB'],
    [4000 * MiB, '3.91 GiB'],
  ])('writes %d bytes as %s: three significant figures at most, no trailing zeros', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });

  it('reads back through parseSizeBytes where it is exact', () => {
    for (const b of [512, 64 * 1024, 1.5 * MiB, 1.25 * MiB]) {
      expect(parseSizeBytes(formatBytes(b).replace(' ', ''))).toBe(b);
    }
  });
});

describe('formatDuration, the one duration formatter of messages and reports', () => {
  it.each([
    [5000, '5 s'],
    [0, '0 s'],
    [250, '250 ms'],
    [1500, '1.50 s'],
    [12_345, '12.35 s'],
  ])('writes %d ms as %s', (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });
});

describe('splitRanges', () => {
  it('gives an empty blob one empty range', () => {
    expect(splitRanges(0, 3)).toEqual([{ offsetBytes: 0, lengthBytes: 0 }]);
  });

  it('gives a one-byte blob one range, whatever the count', () => {
    expect(splitRanges(1, 3)).toEqual([{ offsetBytes: 0, lengthBytes: 1 }]);
  });

  it('splits 10 bytes three ways as 4, 3, 3', () => {
    const ranges = splitRanges(10, 3);
    expect(ranges).toEqual([
      { offsetBytes: 0, lengthBytes: 4 },
      { offsetBytes: 4, lengthBytes: 3 },
      { offsetBytes: 7, lengthBytes: 3 },
    ]);
    expectEvenCover(ranges, 10);
  });

  it('splits 80MiB four ways into 20MiB ranges', () => {
    const ranges = splitRanges(80 * MiB, 4);
    expect(ranges.map((r) => r.lengthBytes)).toEqual([20 * MiB, 20 * MiB, 20 * MiB, 20 * MiB]);
    expectEvenCover(ranges, 80 * MiB);
  });

  it('makes no empty ranges when the count exceeds the size', () => {
    const ranges = splitRanges(5, 8);
    expect(ranges).toHaveLength(5);
    expect(ranges.every((r) => r.lengthBytes === 1)).toBe(true);
    expectEvenCover(ranges, 5);
  });

  it('covers every size exactly, in at most `count` ranges', () => {
    for (let sizeBytes = 0; sizeBytes <= 64; sizeBytes++) {
      for (let count = 1; count <= 12; count++) {
        const ranges = splitRanges(sizeBytes, count);
        expect(ranges).toHaveLength(Math.max(1, Math.min(count, sizeBytes)));
        expectEvenCover(ranges, sizeBytes);
      }
    }
  });
});

describe('splitFairly', () => {
  const letters = (n: number): string[] => Array.from({ length: n }, (_, i) => String.fromCharCode(97 + i));

  it('deals 10 items to 3 workers as 4, 3, 3, in order, dropping none', () => {
    const items = letters(10);
    const shares = splitFairly(items, 3);
    expect(shares.map((s) => s.length)).toEqual([4, 3, 3]);
    expect(shares.flat()).toEqual(items);
    expect(shares[0]).toEqual(['a', 'b', 'c', 'd']);
  });

  it('gives every worker a share, empty when there are fewer items than workers', () => {
    const shares = splitFairly(['a', 'b'], 5);
    expect(shares).toEqual([['a'], ['b'], [], [], []]);
  });

  it('keeps order and drops nothing for any count', () => {
    for (let n = 0; n <= 30; n++) {
      for (let workers = 1; workers <= 8; workers++) {
        const shares = splitFairly(letters(n), workers);
        expect(shares).toHaveLength(workers);
        expect(shares.flat()).toEqual(letters(n));
        const lengths = shares.map((s) => s.length);
        expect(Math.max(...lengths) - Math.min(...lengths)).toBeLessThanOrEqual(1);
      }
    }
  });
});
