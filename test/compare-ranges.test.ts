// The byte-for-byte check split between two threads: every byte is still compared, a range cut at
// the halfway point is checked in both parts, and a difference on either side names its row.
import { describe, expect, it } from 'vitest';
import {
  CompareThread,
  rowsThatDiffer,
  SPLIT_MIN_BYTES,
  wantsThread,
  type RangePair,
} from '../src/kept/compare-ranges.js';

const shared = (n: number, fill: number) => Buffer.from(new SharedArrayBuffer(n)).fill(fill);

/** Three ranges of one object, the middle one across the halfway point, each with its expected bytes. */
function pairs(flipAt?: number): RangePair[] {
  const total = SPLIT_MIN_BYTES * 2;
  const got = shared(total, 7);
  const expected = shared(total, 7);
  if (flipAt !== undefined) got[flipAt]! ^= 1;
  const cuts = [0, total / 4, (3 * total) / 4, total];
  return [0, 1, 2].map((row) => ({
    row,
    got: got.subarray(cuts[row], cuts[row + 1]),
    expected: expected.subarray(cuts[row], cuts[row + 1]),
  }));
}

describe('rowsThatDiffer with the compare thread', () => {
  const thread = new CompareThread();

  it('equal ranges: no row, with or without the thread', async () => {
    await thread.online;
    expect(thread.usable).toBe(true);
    expect([...(await rowsThatDiffer(pairs(), thread))]).toEqual([]);
    expect([...(await rowsThatDiffer(pairs()))]).toEqual([]);
  });

  it(
    "a byte wrong in this thread's half, in the thread's half, or either side of the cut in the " +
      'middle range names its row',
    async () => {
      const total = SPLIT_MIN_BYTES * 2;
      for (const [at, row] of [
        [5, 0],
        [total / 2 - 1, 1],
        [total / 2, 1],
        [total - 1, 2],
        [(7 * total) / 8, 2],
      ] as const) {
        expect([...(await rowsThatDiffer(pairs(at), thread))], `byte ${at}`).toEqual([row]);
        expect([...(await rowsThatDiffer(pairs(at)))], `byte ${at}, one thread`).toEqual([row]);
      }
    },
  );

  it('buffers outside shared memory, or too few bytes, are compared here alone, as right', async () => {
    const a = Buffer.alloc(SPLIT_MIN_BYTES * 2, 1);
    const b = Buffer.alloc(SPLIT_MIN_BYTES * 2, 1);
    b[b.length - 1] = 0;
    expect([...(await rowsThatDiffer([{ row: 4, got: a, expected: b }], thread))]).toEqual([4]);
    const small = pairs(3).map((p) => ({
      ...p,
      got: p.got.subarray(0, 100),
      expected: p.expected.subarray(0, 100),
    }));
    expect([...(await rowsThatDiffer(small, thread))]).toEqual([0]);
  });

  it('is wanted for large shares when a core is left over by the worker processes', () => {
    expect(wantsThread(SPLIT_MIN_BYTES, 1, 2)).toBe(true);
    expect(wantsThread(SPLIT_MIN_BYTES - 1, 1, 2)).toBe(false);
    expect(wantsThread(SPLIT_MIN_BYTES, 2, 2)).toBe(false);
    expect(wantsThread(SPLIT_MIN_BYTES, 1, 1)).toBe(false);
  });
});
