// How a download of one object is checked after the timed section: every range against the
// regenerated fixture (byte for byte in the worker, or its MD5 here), the bytes delivered, and an
// output file as a whole.
import type { RecordTable } from '../metrics/record-table.js';
import { contentMd5, FIXTURE_SEED } from '../payload/content.js';
import type { Items } from '../plan/items.js';
import { notVerified, type Verification } from '../results/record.js';
import type { TargetInfo } from '../storage/target.js';
import { failedRequests } from './failed.js';
import { md5OfFileRange } from '../sinks/sinks.js';
import { nodeFsPromises } from '../startup/lazy.js';
import type { VerifyInput } from './input.js';
import { verifyMany } from './many.js';
import { bearerOf, traitsOf } from '../storage/target-info.js';

/** A GET kind's verification: one object's ranges, or each file of the many-blob set. */
export function verifyGets(v: VerifyInput): Promise<Verification> {
  if (v.workload.verifyAs === 'blob')
    return verifyDownload(
      v.items,
      v.records,
      v.expectedBytes,
      v.whole,
      v.target,
      v.outPath,
      v.equalToFixture,
    );
  return Promise.resolve(verifyMany('files', v.items, v.records, !traitsOf(v.target).storesMd5, v.tally));
}

export async function md5OfFile(path: string): Promise<string> {
  const fh = await nodeFsPromises().open(path, 'r');
  try {
    return await md5OfFileRange(fh, 0, (await fh.stat()).size);
  } finally {
    await fh.close();
  }
}

/**
 * Every delivered byte is checked: each item against the regenerated fixture (the SDK's one item is
 * the whole blob), and an output file as a whole. An item in `equalToFixture` was compared byte for
 * byte by its worker and carries no MD5; any other carries the MD5 of what came, compared here.
 */
export async function verifyDownload(
  items: Items,
  records: RecordTable,
  size: number,
  whole: boolean,
  info: TargetInfo,
  filePath?: string,
  equalToFixture: ReadonlySet<number> = new Set(),
): Promise<Verification> {
  const failed = failedRequests(records, bearerOf(info) !== undefined);
  if (failed) return failed;
  const bytes = records.reduce((s, r) => s + r.bytes, 0);
  if (bytes !== size) return { verified: false, verification: `delivered ${bytes} bytes, expected ${size}` };
  // A plain URL vouches for no content: the counts and each range's Content-Range were checked, the bytes
  // not.
  if (!traitsOf(info).objectIsFixture)
    return notVerified(
      `plain URL: no source MD5 to compare the bytes with; ${bytes} bytes in the ranges asked for`,
      filePath && (await md5OfFile(filePath)),
    );
  const rowOf = records.rowsByItem();
  let compared = 0;
  for (const item of items) {
    const got = records.md5(rowOf.get(item.index) ?? -1);
    // Compared in full by the worker, and equal: an item that differed came with its MD5 instead.
    if (got === undefined && equalToFixture.has(item.index)) {
      compared++;
      continue;
    }
    const expected = contentMd5(FIXTURE_SEED, item.destOffsetBytes, item.lengthBytes);
    if (got !== expected) {
      return {
        verified: false,
        verification:
          `MD5 MISMATCH in ${item.blob} at offset ${item.destOffsetBytes}: ` +
          `got ${got}, expected ${expected}`,
      };
    }
  }
  const how = checkedHow(items.length, compared);
  // A scale-out client's share is checked range by range; only the whole object has a whole MD5.
  if (!whole)
    return { verified: true, verification: `${items.length} range(s) of this client's share checked${how}` };
  const wholeMd5 = contentMd5(FIXTURE_SEED, 0, size);
  if (filePath) {
    const got = await md5OfFile(filePath);
    if (got !== wholeMd5)
      return {
        verified: false,
        verification: `MD5 MISMATCH of ${filePath}: got ${got}, expected ${wholeMd5}`,
      };
  }
  return { verified: true, verification: `md5 ${wholeMd5} (${items.length} range(s) checked${how})` };
}

/** How the ranges were checked, when not all by MD5: the label says so. */
function checkedHow(ranges: number, compared: number): string {
  if (compared === 0) return '';
  const what = 'byte for byte against the fixture regenerated from its seed';
  return compared === ranges ? `, ${what}` : `: ${compared} ${what}, ${ranges - compared} by MD5`;
}
