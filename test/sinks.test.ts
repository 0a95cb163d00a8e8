// The ordered file sink's bound: ranges ahead of the write position are held in memory only up to a
// limit; past it their writers wait (their sockets pause) until the head range moves on. A real file
// in a temp dir; the items are fed in the order that stresses the bound most (the head last).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { FileSet } from '../src/plan/items.js';
import { OrderedFileSink, openSink } from '../src/sinks/sinks.js';
import type { WorkItem } from '../src/plan/items.js';
import { deterministicBuffer } from './helpers/http-servers.js';

const dir = mkdtempSync(join(tmpdir(), 'bc-sinks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const RANGE = 1024 * 1024;
const CHUNK = 64 * 1024;
const LIMIT = 256 * 1024;
const body = deterministicBuffer(4 * RANGE);
const items: WorkItem[] = Array.from({ length: 4 }, (_, i) => ({
  index: i,
  destOffsetBytes: i * RANGE,
  lengthBytes: RANGE,
}));
const settled = (p: unknown) =>
  Promise.race([Promise.resolve(p).then(() => true), new Promise((r) => setTimeout(() => r(false), 20))]);

describe('ordered file sink', () => {
  it(
    'holds at most the bound of later ranges; their writers wait until the head ' + 'range has been written',
    async () => {
      const path = join(dir, 'ordered.out');
      const sink = new OrderedFileSink(await open(path, 'w+'), items, LIMIT);
      const writers = items.map((i) => sink.writer(i));
      // Ranges 1-3 arrive first: the fifth chunk of later data is over the bound and must wait.
      const pending: unknown[] = [];
      for (let c = 0; c < 5; c++)
        pending.push(writers[1]!.onData(body.subarray(RANGE + c * CHUNK, RANGE + (c + 1) * CHUNK)));
      expect(await settled(pending[3])).toBe(true);
      expect(await settled(pending[4])).toBe(false);
      expect(sink.peakHeldBytes).toBeLessThanOrEqual(LIMIT + CHUNK);
      // The head range goes straight to the file, whatever is held.
      for (let c = 0; c < RANGE / CHUNK; c++)
        await writers[0]!.onData(body.subarray(c * CHUNK, (c + 1) * CHUNK));
      await writers[0]!.done();
      // The head moved on to range 1: its held chunks were written and its writer was woken.
      expect(await settled(pending[4])).toBe(true);
      for (let c = 5; c < RANGE / CHUNK; c++)
        await writers[1]!.onData(body.subarray(RANGE + c * CHUNK, RANGE + (c + 1) * CHUNK));
      // Range 3 before range 2, waiting whenever over the bound: it is woken when range 2 finishes.
      const r3 = (async () => {
        for (let c = 0; c < RANGE / CHUNK; c++)
          await writers[3]!.onData(body.subarray(3 * RANGE + c * CHUNK, 3 * RANGE + (c + 1) * CHUNK));
        await writers[3]!.done();
      })();
      await writers[1]!.done();
      for (let c = 0; c < RANGE / CHUNK; c++)
        await writers[2]!.onData(body.subarray(2 * RANGE + c * CHUNK, 2 * RANGE + (c + 1) * CHUNK));
      await writers[2]!.done();
      await r3;
      await sink.close();
      expect(sink.peakHeldBytes).toBeLessThanOrEqual(LIMIT + CHUNK);
      expect(readFileSync(path).equals(body)).toBe(true);
    },
  );
});

describe('discard sink', () => {
  const md5 = (b: Buffer) => createHash('md5').update(b).digest('base64');
  const feed = async (sink: Awaited<ReturnType<typeof openSink>>, item: WorkItem, bytes: Buffer) => {
    const w = sink.writer(item);
    for (let at = 0; at < bytes.length; at += 100) await w.onData(bytes.subarray(at, at + 100));
    return w.done();
  };

  it("answers each item's MD5 as it ends, keeping nothing per item, items interleaved", async () => {
    const share = FileSet.of('many/10x256', 10, 256, 'set').every(1, 2);
    const sink = await openSink('discard', share, 0);
    expect(sink.hashesAsItGoes).toBe(true);
    const bodies = [...share].map((item) => deterministicBuffer(256, item.index + 1));
    // Two writers open at once, fed in turns: each hash is its own.
    const [a, b] = [sink.writer(share.at(0)!), sink.writer(share.at(1)!)];
    for (let at = 0; at < 256; at += 64) {
      await a.onData(bodies[0]!.subarray(at, at + 64));
      await b.onData(bodies[1]!.subarray(at, at + 64));
    }
    expect([await a.done(), await b.done()]).toEqual([md5(bodies[0]!), md5(bodies[1]!)]);
    expect(await feed(sink, share.at(4)!, bodies[4]!)).toBe(md5(bodies[4]!));
  });

  it('without hashing, drops the bytes unseen and answers no MD5', async () => {
    const unhashed = await openSink('discard', items, 4 * RANGE, undefined, false);
    expect(unhashed.hashesAsItGoes).toBe(false);
    expect(await feed(unhashed, items[3]!, body.subarray(3 * RANGE))).toBeUndefined();
  });
});
