// The GET kinds' sinks: opened before the barrier, and checked after every worker is done (except
// discard, which hashes as the bytes come): each range that stayed in memory is compared byte for
// byte with the fixture this process regenerated from its seed; any other, or one that differs, gets
// the MD5 of what its item delivered on its record, for the coordinator to compare.
import type { Items } from '../plan/items.js';
import type { RecordTable } from '../metrics/record-table.js';
import type { KeptBuffers } from '../kept/buffers.js';
import { rowsThatDiffer, wantsThread, type CompareThread, type RangePair } from '../kept/compare-ranges.js';
import { openSink, type Sink, type SinkOptions } from './sinks.js';

/** What opening and checking a job's sink reads of the kind's context. */
export interface SinkContext {
  job: SinkOptions & { objectSizeBytes: number; workers?: number };
  items: Items;
  /** The worker process's kept buffers: the memory sink's, the fixture's bytes; none: nothing kept. */
  kept?: KeptBuffers;
}

/** What a kind's check says besides the records. */
export interface CheckNote {
  /**
   * Items whose bytes were compared with the fixture regenerated from its seed, byte for byte, and were equal
   * (they carry no MD5).
   */
  equalToFixture?: number[];
}

/**
 * The job's sink; none for an empty share. Where its ranges will be compared with the fixture and are
 * large, the compare thread is started (or found running) here, before the barrier.
 */
export async function openJobSink({ job, items, kept }: SinkContext): Promise<Sink | undefined> {
  if (!items.length) return undefined;
  const sink = await openSink(
    job.sink,
    items,
    job.objectSizeBytes,
    job.outPath,
    job.hashRanges !== false,
    kept,
  );
  if (kept && sink.slot && job.fixtureSeed && job.hashRanges !== false) {
    const shareBytes = [...items].reduce((a, i) => a + i.lengthBytes, 0);
    if (wantsThread(shareBytes, job.workers ?? 1)) await kept.compareThread().online;
  }
  return sink;
}

/**
 * The kind's check of its sink after the timed section; none where nothing is compared (hashRanges false).
 */
export function sinkCheck(
  ctx: SinkContext,
  sink: Sink | undefined,
): ((records: RecordTable) => Promise<CheckNote>) | undefined {
  if (!sink || ctx.job.hashRanges === false) return undefined;
  const { job, items, kept } = ctx;
  const seed = job.fixtureSeed;
  const fixture =
    seed && kept && sink.slot
      ? (offset: number, length: number) => kept.fixtureRange(seed, job.objectSizeBytes, offset, length)
      : undefined;
  return (records) => checkInto(sink, items, records, fixture, kept?.startedCompareThread);
}

/**
 * Each item that did not fail is checked. With `fixture` (the memory sink, the object a fixture of
 * ours): its bytes are compared with the fixture's, and an equal item is named in the note and gets
 * no MD5. An item that differs, or any without `fixture`, gets its MD5 on its record: the coordinator
 * compares that, and names what came in a mismatch.
 */
export async function checkInto(
  sink: Sink,
  items: Items,
  records: RecordTable,
  fixture?: (offset: number, length: number) => Buffer | undefined,
  thread?: CompareThread,
): Promise<CheckNote> {
  if (sink.hashesAsItGoes) return {};
  const pairs: RangePair[] = [];
  const hashed: number[] = [];
  for (let n = 0; n < items.length; n++) {
    if (records.error(n) !== undefined) continue;
    const item = items.at(n)!;
    const expected = fixture?.(item.destOffsetBytes, item.lengthBytes);
    if (expected) pairs.push({ row: n, got: sink.slot!(item), expected });
    else hashed.push(n);
  }
  const differ = await rowsThatDiffer(pairs, thread);
  const equalToFixture: number[] = [];
  for (const { row } of pairs) {
    if (differ.has(row)) hashed.push(row);
    else equalToFixture.push(items.at(row)!.index);
  }
  for (const n of hashed.sort((a, b) => a - b)) records.setMd5(n, await sink.md5Of(items.at(n)!));
  return equalToFixture.length ? { equalToFixture } : {};
}
