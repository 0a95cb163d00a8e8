// Raw records as columns: every field of a record comes back as it went in, through growth, the
// IPC encoding, concatenation, sorting and sampling; and the table is a fraction of the objects' size.
import { describe, expect, it } from 'vitest';
import { RecordTable } from '../src/metrics/record-table.js';
import type { OpRecord } from '../src/metrics/records.js';
import { PhaseHistograms } from '../src/metrics/histograms.js';
import { addTallies, manyFilesVerdict, tallyRecords, uploadVerdict } from '../src/metrics/record-checks.js';
import { contentMd5, FIXTURE_SEED } from '../src/payload/content.js';
import { FileSet, splitItems } from '../src/plan/items.js';
import type { WorkItem } from '../src/plan/items.js';

const base: OpRecord = {
  worker: 1,
  item: 7,
  offsetBytes: 5 * 2 ** 40,
  bytes: 102_400,
  status: 201,
  startEpochMs: 1_795_000_000_123.456,
  totalMs: 12.345678,
  phases: { wait: 0.25, tcp: 0.5, send: 1.5, firstByte: 10, download: 0.095678 },
  reused: false,
  retries: 2,
  throttled: 1,
  backoffMs: 150,
};

describe('RecordTable', () => {
  it(
    'gives back every field: numbers, phases present or absent, MD5, objects, ' + 'error and read-back error',
    () => {
      const t = new RecordTable(1);
      const records: OpRecord[] = [
        { ...base, md5: 'NuhjEeaLR/HP77DScrf6uA==' },
        {
          ...base,
          item: 8,
          worker: -1,
          phases: {},
          reused: true,
          retries: 0,
          throttled: 0,
          backoffMs: 0,
          error: 'HTTP 500 InternalError',
          status: 500,
        },
        { ...base, item: 9, objects: 5000, md5: 'not-base64-of-16-bytes', readBackError: 'GET f9: HTTP 404' },
      ];
      records.forEach((r) => t.push(r));
      expect(t.length).toBe(3);
      const back = t.toArray();
      expect(back[0]).toEqual({
        ...base,
        md5: 'NuhjEeaLR/HP77DScrf6uA==',
        phases: { wait: 0.25, tcp: 0.5, send: 1.5, firstByte: 10, download: expect.closeTo(0.095678, 6) },
      });
      expect(back[1]).toMatchObject({
        item: 8,
        worker: -1,
        phases: {},
        reused: true,
        error: 'HTTP 500 InternalError',
        status: 500,
      });
      expect(back[1]!.md5).toBeUndefined();
      expect(back[2]).toMatchObject({
        item: 9,
        objects: 5000,
        md5: 'not-base64-of-16-bytes',
        readBackError: 'GET f9: HTTP 404',
      });
      expect(back[0]!.objects).toBeUndefined();
      expect(t.failedRows()).toEqual([1]);
      expect(t.failed().map((r) => r.item)).toEqual([8]);
      expect(t.at(-1)!.item).toBe(9);
      expect(t.at(3)).toBeUndefined();
    },
  );

  it('rows set by index: an item written again keeps only its latest; unwritten rows are known', () => {
    const t = new RecordTable(4);
    t.set(2, { ...base, item: 2, error: 'first try' });
    t.set(2, { ...base, item: 2, md5: 'NuhjEeaLR/HP77DScrf6uA==' });
    expect(t.length).toBe(3);
    expect([0, 1, 2].map((i) => t.has(i))).toEqual([false, false, true]);
    expect(t.at(2)!.error).toBeUndefined();
    t.setMd5(0, 'AAAAAAAAAAAAAAAAAAAAAA==');
    t.setReadBackError(1, 'short');
    expect(t.md5(0)).toBe('AAAAAAAAAAAAAAAAAAAAAA==');
    expect(t.readBackError(1)).toBe('short');
    expect(t.md5(99)).toBeUndefined();
  });

  it(
    'crosses IPC as typed arrays (structured clone), merges, sorts by offset then ' + 'item, and picks rows',
    () => {
      const a = RecordTable.from([
        { ...base, item: 3, offsetBytes: 300 },
        { ...base, item: 1, offsetBytes: 100, error: 'x' },
      ]);
      const b = RecordTable.from([{ ...base, item: 2, offsetBytes: 100, md5: 'NuhjEeaLR/HP77DScrf6uA==' }]);
      const wire = structuredClone([a.encode(), b.encode()]);
      const merged = wire
        .reduce((t, e) => t.append(RecordTable.decode(e)), new RecordTable(1))
        .sortByOffset();
      expect(merged.map((r) => [r.item, r.offsetBytes, r.error ?? null, r.md5 ?? null])).toEqual([
        [1, 100, 'x', null],
        [2, 100, null, 'NuhjEeaLR/HP77DScrf6uA=='],
        [3, 300, null, null],
      ]);
      expect(merged.rowsByItem().get(2)).toBe(1);
      expect(merged.rowsByItem().get(0)).toBeUndefined();
      expect(merged.rowsByItem().has(3)).toBe(true);
      expect(merged.rowsByItem().has(99)).toBe(false);
      expect(merged.pick([2, 0]).map((r) => r.item)).toEqual([3, 1]);
      const empty = RecordTable.decode(structuredClone(new RecordTable().encode()));
      expect(empty.length).toBe(0);
      empty.push(base);
      expect(empty.at(0)!.item).toBe(7);
    },
  );

  it(
    'sorts in place by offset then item, its errors and MD5s moving with their rows, as a sort of ' +
      'the records would',
    () => {
      const records = Array.from(
        { length: 500 },
        (_, i): OpRecord => ({
          ...base,
          item: (i * 7919) % 500,
          offsetBytes: ((i * 31) % 17) * 1024,
          totalMs: i,
          ...(i % 5 === 0 ? { error: `e${i}` } : { md5: Buffer.alloc(16, i % 256).toString('base64') }),
        }),
      );
      const t = RecordTable.from(records);
      expect(t.sortByOffset()).toBe(t);
      const expected = [...records].sort((a, b) => a.offsetBytes - b.offsetBytes || a.item - b.item);
      expect(t.map((r) => [r.offsetBytes, r.item, r.totalMs, r.error ?? r.md5])).toEqual(
        expected.map((r) => [r.offsetBytes, r.item, r.totalMs, r.error ?? r.md5]),
      );
      expect(t.failedRows().map((i) => t.error(i))).toEqual(
        expected.filter((r) => r.error).map((r) => r.error),
      );
      // Already in order: left as it is.
      const firstMd5 = t.md5(1);
      expect(t.sortByOffset().md5(1)).toBe(firstMd5);
    },
  );

  it('fills phase histograms from its columns as from the records, failed requests left out', () => {
    const t = RecordTable.from([
      base,
      { ...base, item: 8, error: 'x', totalMs: 999 },
      { ...base, item: 9, phases: { send: 2 }, totalMs: 3 },
    ]);
    const fromColumns = new PhaseHistograms();
    t.recordInto(fromColumns);
    const fromRecords = new PhaseHistograms();
    for (const r of t) if (!r.error) fromRecords.record(r.phases, r.totalMs);
    expect(fromColumns.encode()).toEqual(fromRecords.encode());
    expect(fromColumns.byMetric.get('total')!.totalCount).toBe(2);
    expect(fromColumns.byMetric.get('send')!.totalCount).toBe(2);
    expect(fromColumns.byMetric.get('tcp')!.totalCount).toBe(1);
  });

  it('100,000 records hold under 150 bytes each, where objects took several times that', () => {
    const t = new RecordTable(100_000);
    for (let i = 0; i < 100_000; i++) t.set(i, { ...base, item: i, md5: 'NuhjEeaLR/HP77DScrf6uA==' });
    const e = t.encode();
    const bytes =
      Object.values(e.numbers).reduce((s, c) => s + c.byteLength, 0) +
      e.phases.reduce((s, p) => s + p.byteLength, 0) +
      e.md5.byteLength +
      e.hasMd5.byteLength;
    expect(bytes / 100_000).toBeLessThan(150);
  });
});

describe('tallies: many files checked against their records, in shares or all at once', () => {
  const set = FileSet.of('run/small-files/0', 40, 100, 'upload');
  const right = (item: WorkItem): OpRecord => ({
    ...base,
    item: item.index,
    offsetBytes: item.destOffsetBytes,
    bytes: item.lengthBytes,
    error: undefined,
    md5: contentMd5(FIXTURE_SEED, item.destOffsetBytes, item.lengthBytes),
  });
  const tableOf = (items: Iterable<WorkItem>, change: (r: OpRecord) => OpRecord | undefined = (r) => r) => {
    const rows: OpRecord[] = [];
    for (const item of items) {
      const r = change(right(item));
      if (r) rows.push(r);
    }
    return RecordTable.from(rows);
  };
  const broken = (r: OpRecord) => {
    if (r.item === 5 || r.item === 31) return { ...r, md5: 'AAAAAAAAAAAAAAAAAAAAAA==' };
    if (r.item === 12) return undefined;
    if (r.item === 20) return { ...r, readBackError: 'GET f20: HTTP 404' };
    return r;
  };

  it('the tallies of two halves add up to the tally of the whole, first problems in item order', () => {
    const whole = tallyRecords('upload', set, tableOf(set, broken));
    const halves = splitItems(set, 2).map((share) => tallyRecords('upload', share, tableOf(share, broken)));
    expect(addTallies(halves)).toEqual(whole);
    expect(whole.items).toBe(40);
    expect(whole.found.md5).toMatchObject({
      count: 2,
      first: expect.stringMatching(/^MD5 MISMATCH for run\/small-files\/0\/file-0000005: got AAAA/),
    });
    expect(whole.found.missing).toEqual({ count: 1, first: 'no answer for run/small-files/0/file-0000012' });
    expect(whole.found.unreadable).toEqual({ count: 1, first: 'GET f20: HTTP 404' });
  });

  it('verdicts: every problem counted and the first named; none, and the count of what was checked', () => {
    expect(uploadVerdict(tallyRecords('upload', set, tableOf(set)), true)).toEqual({
      verified: true,
      verification: '40 file(s) read back with GET: length and MD5 match what was sent',
    });
    expect(
      uploadVerdict(
        tallyRecords(
          'upload',
          set,
          tableOf(set, (r) => (r.item === 12 ? undefined : r)),
        ),
        true,
      )?.verification,
    ).toBe('1 of 40 file(s) have no record; first: no answer for run/small-files/0/file-0000012');
    expect(
      uploadVerdict(
        tallyRecords(
          'upload',
          set,
          tableOf(set, (r) => (r.item % 2 ? { ...r, md5: 'AAAAAAAAAAAAAAAAAAAAAA==' } : r)),
        ),
        false,
      )?.verification,
    ).toMatch(
      new RegExp(
        String.raw`^20 of 40 blob\(s\) stored wrong, by the MD5 the service ` +
          String.raw`answered; first: MD5 MISMATCH for run\/small-files\/0\/file-0000001`,
      ),
    );
    // Staged blocks have no MD5 of their own: the store checks them.
    expect(
      uploadVerdict(
        tallyRecords(
          'upload',
          set,
          tableOf(set, (r) => ({ ...r, md5: undefined })),
        ),
        false,
      ),
    ).toBeUndefined();
    const got = tallyRecords(
      'files',
      set,
      tableOf(set, (r) => (r.item === 3 ? { ...r, bytes: 99 } : r)),
    );
    expect(manyFilesVerdict('files', got, false)).toEqual({
      verified: false,
      verification: 'run/small-files/0/file-0000003: delivered 99 bytes, expected 100',
    });
    expect(manyFilesVerdict('files', tallyRecords('files', set, tableOf(set)), false)).toEqual({
      verified: true,
      verification: '40 file(s): every byte matches its MD5',
    });
    expect(
      manyFilesVerdict(
        'head',
        tallyRecords(
          'head',
          set,
          tableOf(set, (r) => ({ ...r, md5: undefined })),
        ),
        true,
      ),
    ).toEqual({ verified: true, verification: '40 HEAD(s): Content-Length match' });
    expect(
      manyFilesVerdict(
        'head',
        tallyRecords(
          'head',
          set,
          tableOf(set, (r) => ({ ...r, md5: undefined })),
        ),
        false,
      ).verification,
    ).toBe('40 HEAD(s) without Content-MD5');
  });

  it('a sample keeps evenly spaced rows and every failed one, in row order', () => {
    const t = tableOf(set, (r) => (r.item === 7 || r.item === 33 ? { ...r, error: 'HTTP 500' } : r));
    expect(t.sampledRows(4)).toEqual([0, 10, 20, 30]);
    expect(t.sampledRows(4, true)).toEqual([0, 7, 10, 20, 30, 33]);
    expect(t.sampledRows(100)).toHaveLength(40);
    expect(t.span()).toEqual({
      startEpochMs: base.startEpochMs,
      endEpochMs: base.startEpochMs + base.totalMs,
    });
  });
});
