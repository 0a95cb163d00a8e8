// A file set is a plan of many small files as a few numbers: every item it makes, every share it is
// split or sharded into, and what crosses the IPC channel must equal the items listed one by one.
import { deserialize, serialize } from 'node:v8';
import { describe, expect, it } from 'vitest';
import {
  decodeItems,
  encodeItems,
  FileSet,
  keepItems,
  largestBytes,
  splitItems,
  totalBytes,
} from '../src/plan/items.js';
import { spreadPositions } from '../src/fixture-setup/url-fixtures.js';
import { perFileItems, setFileName, SetFixtures, uniqueFixtures } from '../src/strategies/many-blobs.js';
import { smallFiles } from '../src/strategies/upload/small-files.js';
import { PAYLOAD_POOL_BYTES, smallFileOffset } from '../src/plan/names.js';

const upload = (count: number, size: number) =>
  smallFiles.plan({
    prefix: 'run-x/small-files/0',
    fileCount: count,
    fileSizeBytes: size,
    blobSizeBytes: 0,
    blockSizeBytes: 0,
    thresholdBytes: 0,
  });

describe('FileSet: many small files as a few numbers', () => {
  it('makes the upload items by index: name, and content cycling through a bounded pool', () => {
    const size = 100 * 1024;
    const distinct = Math.floor(PAYLOAD_POOL_BYTES / size);
    const set = upload(200, size);
    expect(set).toBeInstanceOf(FileSet);
    expect(set.length).toBe(200);
    expect(set.at(0)).toEqual({
      index: 0,
      blob: 'run-x/small-files/0/file-0000000',
      destOffsetBytes: 0,
      lengthBytes: size,
    });
    expect(set.at(distinct + 3)).toEqual({
      index: distinct + 3,
      blob: `run-x/small-files/0/file-${String(distinct + 3).padStart(7, '0')}`,
      destOffsetBytes: 3 * size,
      lengthBytes: size,
    });
    expect(set.at(-1)!.index).toBe(199);
    expect(set.at(200)).toBeUndefined();
    expect(set.at(-201)).toBeUndefined();
    expect([...set].map((i) => i.index)).toEqual(Array.from({ length: 200 }, (_, i) => i));
    expect(totalBytes(set)).toBe(200 * size);
    expect(largestBytes(set)).toBe(size);
    expect(largestBytes(upload(0, size))).toBe(0);
  });

  it(
    "makes a fixture set's download items: each file at index x size of the whole, its content from " +
      'the pool',
    () => {
      const set = perFileItems({ sizeBytes: 1000, concurrency: 1, fileCount: 12, urlTarget: false });
      expect(set.at(11)).toEqual({
        index: 11,
        blob: 'many/12x1000/file-0000011',
        destOffsetBytes: 11_000,
        contentOffsetBytes: 11_000,
        lengthBytes: 1000,
      });
    },
  );

  it('splits into shares, in order, that together are the whole set, each still a set', () => {
    const set = upload(103, 10);
    for (const parts of [1, 2, 3, 7, 103]) {
      const shares = splitItems(set, parts);
      expect(shares.every((s) => s instanceof FileSet)).toBe(true);
      expect(shares.flatMap((s) => [...s])).toEqual([...set]);
      const sizes = shares.map((s) => s.length);
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
    }
    // A share of a sharded set: positions into the share, indexes of the whole.
    const sharded = new FileSet({ ...(set as FileSet).spec, first: 2, step: 5, count: 20 });
    expect(splitItems(sharded, 3).flatMap((s) => [...s].map((i) => i.index))).toEqual(
      Array.from({ length: 20 }, (_, k) => 2 + 5 * k),
    );
  });

  it('crosses the IPC channel (structured clone) as its numbers, and comes back the same', () => {
    const set = upload(1_000_000, 1024);
    const encoded = encodeItems(set);
    const wire = serialize(encoded);
    expect(wire.length).toBeLessThan(200);
    const back = decodeItems(deserialize(wire));
    expect(back.length).toBe(1_000_000);
    expect(back.at(999_999)).toEqual(set.at(999_999));
    const array = [{ index: 0, blob: 'a', destOffsetBytes: 0, lengthBytes: 5 }];
    expect(decodeItems(deserialize(serialize(encodeItems(array))))).toEqual(array);
  });

  it('keeps itself when every item is kept, and lists the kept ones otherwise', () => {
    const set = upload(10, 10);
    expect(keepItems(set, () => true)).toBe(set);
    expect([...keepItems(set, (i) => i.index % 3 === 0)].map((i) => i.index)).toEqual([0, 3, 6, 9]);
    expect([...keepItems(set, (i) => i.index > 7)].map((i) => i.index)).toEqual([8, 9]);
    expect(keepItems(set, () => false).length).toBe(0);
  });
});

describe("a set's fixtures", () => {
  it("are made from their index when asked for, as the set's files are named and filled", () => {
    const set = new SetFixtures('many/5x100', 5, 100);
    expect(set.length).toBe(5);
    expect(set.at(2)).toEqual({
      blob: setFileName('many/5x100', 2),
      offsetBytes: smallFileOffset(2, 100),
      lengthBytes: 100,
    });
    expect(set.at(-1)).toEqual(set.at(4));
    expect(set.at(5)).toBeUndefined();
    expect([...set].map((f) => f.blob)).toEqual(
      Array.from({ length: 5 }, (_, i) => setFileName('many/5x100', i)),
    );
  });

  it('of several strategies are kept once: the same set once and whole, single blobs merged by name', () => {
    const set = () => new SetFixtures('many/1000000x1024', 1_000_000, 1024);
    const u = uniqueFixtures([
      set(),
      set(),
      [{ blob: 'a', offsetBytes: 0, lengthBytes: 10 }],
      [
        { blob: 'a', offsetBytes: 0, lengthBytes: 10 },
        { blob: 'b', offsetBytes: 10, lengthBytes: 5 },
      ],
    ]);
    expect(u.sets).toHaveLength(1);
    expect(u.blobs.map((b) => b.blob)).toEqual(['a', 'b']);
    expect(u.count).toBe(1_000_002);
    expect(u.bytes).toBe(1_000_000 * 1024 + 15);
    expect(() =>
      uniqueFixtures([
        [{ blob: 'a', offsetBytes: 0, lengthBytes: 10 }],
        [{ blob: 'a', offsetBytes: 5, lengthBytes: 10 }],
      ]),
    ).toThrow(/fixture a is needed with two different contents/);
  });

  it('of a marked set on a plain server are sampled evenly, the first and the last always among them', () => {
    expect(spreadPositions(5, 32)).toEqual([0, 1, 2, 3, 4]);
    const p = spreadPositions(100_000, 32);
    expect(p).toHaveLength(32);
    expect(p[0]).toBe(0);
    expect(p.at(-1)).toBe(99_999);
    expect(new Set(p).size).toBe(32);
    expect(p.every((x, i) => i === 0 || x > p[i - 1]!)).toBe(true);
  });
});
