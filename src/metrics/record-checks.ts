// Checking many files against their records, as counts: how many items have each kind of problem,
// with the first of each. A tally is made where the records are (the coordinator for a small run;
// each worker, over its own share, for a large one, which then sends a sample of its records and
// not all of them) and tallies add up, so the verdict is the same either way.
import { contentMd5, FIXTURE_SEED } from '../payload/content.js';
import type { Items } from '../plan/items.js';
import type { WorkItem } from '../plan/items.js';
import type { RecordTable } from './record-table.js';

export type Problem = 'missing' | 'unreadable' | 'noMd5' | 'length' | 'md5';

export interface Tally {
  /** Items checked. */
  items: number;
  /** By kind of problem: how many items have it, and the first (in item order) in words. */
  found: Partial<Record<Problem, { count: number; first: string }>>;
}

/**
 * What a worker checks over its share before it sends a sample of its records: uploads, GETs of many files,
 * or HEADs.
 */
export type TallyKind = 'upload' | 'files' | 'head';

const expectedMd5 = (item: WorkItem) =>
  contentMd5(FIXTURE_SEED, item.contentOffsetBytes ?? item.destOffsetBytes, item.lengthBytes);

function note(t: Tally, problem: Problem, first: () => string): void {
  const f = t.found[problem];
  if (f) f.count++;
  else t.found[problem] = { count: 1, first: first() };
}

/**
 * Every item against its row: uploads by the MD5 the service answered or of what was read back,
 * GETs by length and MD5, HEADs by the Content-MD5 they carried. One pass, no string
 * or array per item.
 */
export function tallyRecords(kind: TallyKind, items: Items, records: RecordTable): Tally {
  const rowOf = records.rowsByItem();
  const t: Tally = { items: items.length, found: {} };
  for (const item of items) {
    const row = rowOf.get(item.index) ?? -1;
    if (row < 0) {
      note(t, 'missing', () => `no answer for ${item.blob}`);
      continue;
    }
    const error = records.readBackError(row);
    if (error !== undefined) {
      note(t, 'unreadable', () => error);
      continue;
    }
    if (kind === 'files' && records.get('bytes', row) !== item.lengthBytes) {
      note(
        t,
        'length',
        () => `${item.blob}: delivered ${records.get('bytes', row)} bytes, expected ${item.lengthBytes}`,
      );
      continue;
    }
    const got = records.md5(row);
    if (got === undefined) {
      note(t, 'noMd5', () => `${item.blob}`);
      continue;
    }
    const expected = expectedMd5(item);
    if (got === expected) continue;
    const what =
      kind === 'head'
        ? 'Content-MD5 MISMATCH for'
        : kind === 'files'
          ? 'MD5 MISMATCH in'
          : 'MD5 MISMATCH for';
    note(t, 'md5', () => `${what} ${item.blob}: got ${got}, expected ${expected}`);
  }
  return t;
}

/** Tallies of consecutive shares (in order) as one. */
export function addTallies(tallies: readonly Tally[]): Tally {
  const out: Tally = { items: 0, found: {} };
  for (const t of tallies) {
    out.items += t.items;
    for (const [problem, f] of Object.entries(t.found) as [Problem, { count: number; first: string }][]) {
      const known = out.found[problem];
      if (known) known.count += f.count;
      else out.found[problem] = { ...f };
    }
  }
  return out;
}

const more = (f: { count: number }) => (f.count > 1 ? ` (and ${f.count - 1} more)` : '');

/**
 * Uploads: undefined when some item has no MD5 at all (staged blocks; the store checks then).
 * `readBack`: a plain server's files were read back; otherwise the service's MD5 answered each Put Blob.
 */
export function uploadVerdict(
  t: Tally,
  readBack: boolean,
): { verified: boolean; verification: string } | undefined {
  const { missing, unreadable, noMd5, md5 } = t.found;
  if (missing)
    return {
      verified: false,
      verification: `${missing.count} of ${t.items} file(s) have no record; first: ${missing.first}`,
    };
  if (unreadable)
    return {
      verified: false,
      verification:
        `${unreadable.count} of ${t.items} file(s) could not be read back; ` + `first: ${unreadable.first}`,
    };
  if (noMd5) return undefined;
  if (md5) {
    return {
      verified: false,
      verification:
        `${md5.count} of ${t.items} ` +
        (readBack ? 'file(s) read back wrong' : 'blob(s) stored wrong, by the MD5 the service answered') +
        `; first: ${md5.first}`,
    };
  }
  return {
    verified: true,
    verification: readBack
      ? `${t.items} file(s) read back with GET: length and MD5 match what was sent`
      : `${t.items} blob(s): the MD5 the service answered each Put Blob with matches what was sent`,
  };
}

/**
 * GETs of many files, or HEADs (a plain server sends no Content-MD5: its lengths were checked as each HEAD
 * came back).
 */
export function manyFilesVerdict(
  kind: 'files' | 'head',
  t: Tally,
  plainUrl: boolean,
): { verified: boolean; verification: string } {
  const { missing, length, noMd5, md5 } = t.found;
  if (missing) return { verified: false, verification: `${missing.first}${more(missing)}` };
  if (kind === 'head') {
    if (noMd5 && !plainUrl)
      return { verified: false, verification: `${noMd5.count} HEAD(s) without Content-MD5` };
    if (md5) return { verified: false, verification: `${md5.first}${more(md5)}` };
    return {
      verified: true,
      verification:
        `${t.items} HEAD(s): Content-Length` +
        `${(noMd5?.count ?? 0) < t.items ? ' and Content-MD5' : ''} match`,
    };
  }
  const wrong = length ?? md5 ?? (noMd5 && { count: noMd5.count, first: `no MD5 for ${noMd5.first}` });
  if (wrong) return { verified: false, verification: `${wrong.first}${more(wrong)}` };
  return { verified: true, verification: `${t.items} file(s): every byte matches its MD5` };
}
