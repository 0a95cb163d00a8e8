// How the many-blob workloads are checked, after the timed section: every file's MD5 against its
// own content (small-files), every HEAD's length and Content-MD5 (head), and every name a listing
// returned, in order, against the set's names (list). Nothing is taken on trust from a count alone.
import { contentMd5, FIXTURE_SEED } from '../payload/content.js';
import type { Verification } from '../results/record.js';
import { namesMd5 } from '../storage/list-blobs.js';
import { setFileName } from '../strategies/many-blobs.js';
import type { Items } from '../strategies/items.js';
import type { DownloadWorkloadKind, WorkItem } from '../strategies/strategy.js';
import type { RecordTable } from '../metrics/record-table.js';
import { failedRequests } from './failed.js';

const expectedMd5 = (item: WorkItem) => contentMd5(FIXTURE_SEED, item.contentOffsetBytes ?? item.destOffsetBytes, item.lengthBytes);

export function verifyMany(kind: DownloadWorkloadKind, items: Items, records: RecordTable, plainUrl: boolean): Verification {
  const failed = failedRequests(records);
  if (failed) return failed;
  if (kind === 'list') return verifyListing(items, records);
  const rowOf = records.rowsByItem();
  for (const item of items) if (!rowOf.has(item.index)) return { verified: false, verification: `no answer for ${item.blob}` };
  const md5Of = (item: WorkItem) => records.md5(rowOf.get(item.index)!);
  if (kind === 'head') {
    // A plain server sends no Content-MD5: its lengths were checked as each HEAD came back.
    let withMd5 = 0;
    for (const item of items) {
      const got = md5Of(item);
      if (got === undefined) continue;
      withMd5++;
      if (got !== expectedMd5(item)) return { verified: false, verification: `Content-MD5 MISMATCH for ${item.blob}: got ${got}, expected ${expectedMd5(item)}` };
    }
    if (!plainUrl && withMd5 < items.length) return { verified: false, verification: `${items.length - withMd5} HEAD(s) without Content-MD5` };
    return { verified: true, verification: `${items.length} HEAD(s): Content-Length${withMd5 ? ' and Content-MD5' : ''} match` };
  }
  for (const item of items) {
    const bytes = records.get('bytes', rowOf.get(item.index)!);
    if (bytes !== item.lengthBytes) return { verified: false, verification: `${item.blob}: delivered ${bytes} bytes, expected ${item.lengthBytes}` };
    if (md5Of(item) !== expectedMd5(item)) return { verified: false, verification: `MD5 MISMATCH in ${item.blob}: got ${md5Of(item)}, expected ${expectedMd5(item)}` };
  }
  return { verified: true, verification: `${items.length} file(s): every byte matches its MD5` };
}

/** Each listing stream's names, hashed in order by the worker, against the names its prefix holds. */
function verifyListing(items: Items, records: RecordTable): Verification {
  let names = 0;
  for (const item of items) {
    const spec = item.list!;
    const pages = records.filter((r) => r.item === item.index);
    const got = pages.at(-1)?.md5;
    const setPrefix = spec.prefix.slice(0, spec.prefix.lastIndexOf('/file-'));
    const expected = namesMd5(Array.from({ length: spec.count }, (_, k) => setFileName(setPrefix, spec.first + k)));
    const listed = pages.reduce((s, r) => s + (r.objects ?? 0), 0);
    if (got !== expected) {
      return { verified: false, verification: `listing of ${spec.prefix} returned ${listed} name(s) in ${pages.length} page(s), not the ${spec.count} expected (names differ)` };
    }
    names += listed;
  }
  return { verified: true, verification: `${names} name(s) in ${records.length} page(s) over ${items.length} prefix(es): every name as expected` };
}
