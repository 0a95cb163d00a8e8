// A download kept in memory is checked byte for byte against the fixture its worker regenerated
// from the seed, once per process: later runs reuse it (and the sink's buffer), a run whose bytes
// differ is caught and reported with the MD5 of what came, and the label says how it was checked.
import { createHash } from 'node:crypto';
import http from 'node:http';
import { availableParallelism } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FIXTURE_COPY_MAX_BYTES, KeptBuffers, missing } from '../src/kept/buffers.js';
import { verifyDownload } from '../src/verify/download.js';
import { runDownload } from '../src/engine/download.js';
import { RecordTable } from '../src/metrics/record-table.js';
import { contentBuffer, FIXTURE_SEED } from '../src/payload/content.js';
import { decodeItems, type Items, type WorkItem } from '../src/plan/items.js';
import type { TargetInfo } from '../src/storage/target.js';
import { JobRun } from '../src/workers/job-run.js';
import type { WorkerJob, WorkerResult } from '../src/workers/protocol.js';
import { setLogLevel } from '../src/log/logger.js';
import { close, listen } from './helpers/http-servers.js';
import { testConfig } from './helpers/config.js';

beforeAll(() => setLogLevel('error'));

const SIZE = 256 * 1024;
const md5 = (b: Buffer) => createHash('md5').update(b).digest('base64');
const BLOB: TargetInfo = {
  kind: 'blob',
  embedded: true,
  endpoint: 'http://127.0.0.1:1',
  container: 'c',
  account: 'a',
};

describe('the fixture a worker keeps', () => {
  it('regenerates any range as the seed makes it, only the parts not made yet', () => {
    const kept = new KeptBuffers();
    const whole = contentBuffer(FIXTURE_SEED, 0, SIZE);
    // Unaligned, overlapping and adjacent ranges, in no order.
    for (const [offset, length] of [
      [1000, 5000],
      [3, 17],
      [5000, 70_000],
      [0, SIZE],
      [SIZE - 1, 1],
    ] as const) {
      expect(
        kept
          .fixtureRange(FIXTURE_SEED, SIZE, offset, length)!
          .equals(whole.subarray(offset, offset + length)),
      ).toBe(true);
    }
    expect(
      missing(
        [
          [0, 10],
          [20, 30],
        ],
        5,
        25,
      ),
    ).toEqual([[10, 20]]);
    expect(missing([[0, 10]], 0, 10)).toEqual([]);
    expect(missing([], 4, 8)).toEqual([[4, 8]]);
  });

  it('is not kept past its cap, and a range past the object is not answered', () => {
    const kept = new KeptBuffers();
    expect(kept.fixtureRange(FIXTURE_SEED, FIXTURE_COPY_MAX_BYTES + 1, 0, 16)).toBeUndefined();
    expect(kept.fixtureRange(FIXTURE_SEED, SIZE, SIZE - 4, 8)).toBeUndefined();
  });

  it("the memory sink's buffer is the same one while the size is, its slots touched once", () => {
    const kept = new KeptBuffers();
    const items = [{ index: 0, destOffsetBytes: 0, lengthBytes: SIZE / 2 }];
    const a = kept.objectBuffer(SIZE, items);
    expect(a.subarray(0, SIZE / 2).every((b) => b === 0)).toBe(true);
    a[7] = 42;
    // Touched already: a later run's set-up does not write it again.
    expect(kept.objectBuffer(SIZE, items)).toBe(a);
    expect(a[7]).toBe(42);
    expect(kept.objectBuffer(SIZE + 1)).not.toBe(a);
  });
});

// At 6 MiB the ranges' compare is split with the worker's compare thread (compare-ranges.ts) where a
// core is free: the first range is this thread's, the second (where the wrong byte is) the other's.
describe.each([
  [256 * 1024, false],
  [6 * 1024 * 1024, availableParallelism() > 1],
])(
  'runs of one worker process against a server whose bytes change (%d bytes, compare thread: %s)',
  (SIZE, threaded) => {
    const fixture = contentBuffer(FIXTURE_SEED, 0, SIZE);
    const wrong = Buffer.from(fixture);
    wrong[SIZE - 3]! ^= 0xff;
    let body = fixture;
    const server = http.createServer((req, res) => {
      const m = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? '');
      if (!m) return res.end(body);
      const [start, end] = [Number(m[1]), Number(m[2])];
      res.writeHead(206, { 'content-range': `bytes ${start}-${end}/${SIZE}` });
      res.end(body.subarray(start, end + 1));
    });
    let url = '';
    beforeAll(async () => {
      url = await listen(server);
    });
    afterAll(() => close(server));

    const half = SIZE / 2;
    const encoded: WorkItem[] = [
      { index: 0, destOffsetBytes: 0, lengthBytes: half, range: { offsetBytes: 0, lengthBytes: half } },
      { index: 1, destOffsetBytes: half, lengthBytes: half, range: { offsetBytes: half, lengthBytes: half } },
    ];
    const job = (): WorkerJob => ({
      workerIndex: 0,
      strategy: 'chunked',
      kind: 'get',
      target: { kind: 'url', url },
      items: encoded,
      objectSizeBytes: SIZE,
      concurrency: 2,
      maxSockets: 2,
      sink: 'memory',
      hashRanges: true,
      fixtureSeed: FIXTURE_SEED,
      bufferSizeBytes: 64 * 1024,
      logLevel: 'error',
      maxRetries: 0,
      timeoutMs: 5_000,
    });
    const kept = new KeptBuffers();
    const runOnce = async (): Promise<WorkerResult> => {
      const run = new JobRun(job(), () => {}, kept);
      await run.prepare();
      expect(kept.startedCompareThread !== undefined).toBe(threaded);
      run.allDone();
      return run.run(performance.timeOrigin + performance.now());
    };
    const verdict = (r: WorkerResult, items: Items) =>
      verifyDownload(
        items,
        RecordTable.decode(r.records),
        SIZE,
        true,
        BLOB,
        undefined,
        new Set(r.equalToFixture ?? []),
      );

    it(
      'equal runs are compared byte for byte and carry no MD5; a later run that differs carries the ' +
        'MD5 of what came and fails',
      async () => {
        const items = decodeItems(encoded);
        for (let n = 0; n < 2; n++) {
          const r = await runOnce();
          expect(r.equalToFixture).toEqual([0, 1]);
          expect([0, 1].map((row) => RecordTable.decode(r.records).md5(row))).toEqual([undefined, undefined]);
          expect(await verdict(r, items)).toEqual({
            verified: true,
            verification:
              `md5 ${md5(fixture)} (2 range(s) checked, byte for byte against the fixture regenerated ` +
              `from its seed)`,
          });
        }
        body = wrong;
        try {
          const r = await runOnce();
          // The first range still matches; the second is hashed and named.
          expect(r.equalToFixture).toEqual([0]);
          const records = RecordTable.decode(r.records);
          expect(records.md5(records.rowsByItem().get(1)!)).toBe(md5(wrong.subarray(half)));
          const v = await verdict(r, items);
          expect(v.verified).toBe(false);
          expect(v.verification).toMatch(
            `MD5 MISMATCH in undefined at offset ${half}: got ${md5(wrong.subarray(half))}, expected ` +
              `${md5(fixture.subarray(half))}`,
          );
        } finally {
          body = fixture;
        }
        // The next run is right again: the sink's buffer kept from the wrong run does not count against it.
        expect((await runOnce()).equalToFixture).toEqual([0, 1]);
      },
    );

    it('a range a worker did not compare must bring its MD5, and the label counts each way', async () => {
      const items = decodeItems(encoded);
      const table = new RecordTable(2);
      for (const i of items) {
        table.set(i.index, {
          worker: 0,
          item: i.index,
          offsetBytes: i.destOffsetBytes,
          bytes: i.lengthBytes,
          status: 206,
          startEpochMs: 0,
          totalMs: 1,
          phases: {},
          reused: false,
          retries: 0,
          throttled: 0,
          backoffMs: 0,
        });
      }
      // Neither compared nor hashed: not verified.
      expect((await verifyDownload(items, table, SIZE, true, BLOB, undefined, new Set([0]))).verified).toBe(
        false,
      );
      table.setMd5(1, md5(fixture.subarray(half)));
      expect(await verifyDownload(items, table, SIZE, true, BLOB, undefined, new Set([0]))).toEqual({
        verified: true,
        verification:
          `md5 ${md5(fixture)} (2 range(s) checked: 1 byte for byte against the fixture regenerated ` +
          `from its seed, 1 by MD5)`,
      });
    });
  },
);

describe('a session', () => {
  it(
    'checks every run of the memory sink byte for byte and says so; a file sink is checked by MD5; ' +
      'untimed steps are still reported',
    async () => {
      const run = await runDownload(
        testConfig('download', {
          sourceMethod: 'chunked,sdk',
          fileSizeBytes: 300_000,
          concurrency: 2,
          runs: 2,
          warmup: 1,
          container: 'verify-fixture-test',
        }),
      );
      expect(run.results).toHaveLength(6);
      for (const r of run.results) {
        expect(r.verified, `${r.strategy}: ${r.verification}`).toBe(true);
        expect(r.verification).toMatch(
          /^md5 \S+ \(\d+ range\(s\) checked, byte for byte against the fixture regenerated from its seed\)$/,
        );
        expect(Object.keys(r.untimedMs ?? {}).sort()).toEqual(['cleanup', 'collect', 'setup', 'verify']);
      }
      const file = await runDownload(
        testConfig('download', {
          sourceMethod: 'chunked',
          fileSizeBytes: 300_000,
          concurrency: 2,
          sink: 'sparse-file',
          container: 'verify-fixture-test',
        }),
      );
      expect(file.results[0]!.verification).toMatch(/^md5 \S+ \(2 range\(s\) checked\)$/);
    },
  );
});
