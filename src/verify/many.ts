// How the many-blob workloads are checked, after the timed section: every file's MD5 against its
// own content (small-files), every HEAD's length and Content-MD5 (head), and every name a listing
// returned, in order, against the set's names (list). Nothing is taken on trust from a count alone.
import { manyFilesVerdict, tallyRecords, type Tally } from '../metrics/record-checks.js';
import type { Verification } from '../results/record.js';
import { namesMd5 } from '../storage/list-blobs.js';
import { smallFileName as setFileName } from '../plan/names.js';
import type { Items } from '../plan/items.js';
import type { RecordTable } from '../metrics/record-table.js';
import { failedRequests } from './failed.js';
import type { VerifyInput } from './input.js';
import { traitsOf } from '../storage/target-info.js';

/** The listing kinds' verification. */
export const verifyListings = async (v: VerifyInput): Promise<Verification> =>
  verifyMany('list', v.items, v.records, !traitsOf(v.target).storesMd5, v.tally);

/** The HEAD kinds' verification. */
export const verifyHeads = async (v: VerifyInput): Promise<Verification> =>
  verifyMany('head', v.items, v.records, !traitsOf(v.target).storesMd5, v.tally);

/** `tally`: the workers' own, when they checked their shares and sent a sample of the records. */
export function verifyMany(
  kind: 'files' | 'list' | 'head',
  items: Items,
  records: RecordTable,
  plainUrl: boolean,
  tally?: Tally,
): Verification {
  const failed = failedRequests(records);
  if (failed) return failed;
  if (kind === 'list') return verifyListing(items, records);
  const files = kind === 'head' ? 'head' : 'files';
  return manyFilesVerdict(files, tally ?? tallyRecords(files, items, records), plainUrl);
}

/** Each listing stream's names, hashed in order by the worker, against the names its prefix holds. */
function verifyListing(items: Items, records: RecordTable): Verification {
  let names = 0;
  for (const item of items) {
    const spec = item.list!;
    const pages = records.filter((r) => r.item === item.index);
    const got = pages.at(-1)?.md5;
    const setPrefix = spec.prefix.slice(0, spec.prefix.lastIndexOf('/file-'));
    const expected = namesMd5(
      Array.from({ length: spec.count }, (_, k) => setFileName(setPrefix, spec.first + k)),
    );
    const listed = pages.reduce((s, r) => s + (r.objects ?? 0), 0);
    if (got !== expected) {
      return {
        verified: false,
        verification:
          `listing of ${spec.prefix} returned ${listed} name(s) in ${pages.length} page(s), ` +
          `not the ${spec.count} expected (names differ)`,
      };
    }
    names += listed;
  }
  return {
    verified: true,
    verification:
      `${names} name(s) in ${records.length} page(s) over ${items.length} prefix(es): ` +
      'every name as expected',
  };
}
