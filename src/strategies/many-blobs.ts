// The fixture set of the many-blob workloads (small-files downloads, listings, HEADs): FILE_COUNT
// blobs of FILE_SIZE under a prefix named by both, so that every count and size has a set of its
// own, made once and reused. Each file's content is the seed's stream at smallFileOffset.
import { INDEX_DIGITS, smallFileName } from '../plan/names.js';
import { FileSet, totalBytes } from '../plan/items.js';
import { drawTag, type SizeDraw } from '../plan/size-draw.js';
import type { PlanInput } from './strategy.js';
import type { FixtureList, FixtureSpec } from '../plan/items.js';

/**
 * `many/2400x102400`: the set's folder, by file count and size in bytes; a set of drawn sizes is
 * named by its draw instead (`many/5000xd1a2b3c4d`: distribution and seed), so each draw has its own.
 */
export const fixtureSetPrefix = (fileCount: number, fileSizeBytes: number, sizes?: SizeDraw) =>
  `many/${fileCount}x${sizes && sizes.distribution.kind !== 'fixed' ? `d${drawTag(sizes)}` : fileSizeBytes}`;

/** A set's files are named as uploaded small files are. */
export const setFileName = smallFileName;

export function fileCountOf(input: Pick<PlanInput, 'fileCount'>): number {
  if (input.fileCount === undefined) throw new Error('a many-blob workload needs a file count');
  return input.fileCount;
}

/**
 * A set's files as fixtures, each made from its index when asked for: a fixture object per file, each
 * checked in a promise of its own queued at once, would hold the coordinator's memory in proportion
 * to the set (bench case 10 measures a million files).
 */
export class SetFixtures implements FixtureList {
  /** The same files as a download plan reads them (perFileItems): names and contents come from there. */
  readonly files: FileSet;

  constructor(prefix: string, count: number, sizeBytes: number, sizes?: SizeDraw) {
    this.files = FileSet.of(prefix, count, sizeBytes, 'set', sizes);
  }

  get prefix(): string {
    return this.files.spec.prefix;
  }

  get length(): number {
    return this.files.length;
  }

  get sizeBytes(): number {
    return this.files.spec.sizeBytes;
  }

  at(position: number): FixtureSpec | undefined {
    const file = this.files.at(position);
    return file && { blob: file.blob!, offsetBytes: file.contentOffsetBytes!, lengthBytes: file.lengthBytes };
  }

  *[Symbol.iterator](): Iterator<FixtureSpec> {
    for (let i = 0; i < this.length; i++) yield this.at(i)!;
  }
}

/** The set's folder for a plan's input: its count and size, or its draw. */
const setPrefixOf = (input: Pick<PlanInput, 'sizeBytes' | 'fileSizes'>, count: number) =>
  fixtureSetPrefix(count, input.sizeBytes, input.fileSizes);

type SetInput = Pick<PlanInput, 'sizeBytes' | 'fileCount' | 'concurrency' | 'fileSizes'>;

export function setFixtures(input: SetInput): SetFixtures {
  const count = fileCountOf(input);
  return new SetFixtures(setPrefixOf(input, count), count, input.sizeBytes, input.fileSizes);
}

/**
 * The fixtures of several strategies, each once: the strategies of a many-blob session all name the
 * same set, which is kept once and whole (never a Map of its files); a few single blobs are merged
 * by name, and one needed with two different contents is an error.
 */
export function uniqueFixtures(lists: readonly FixtureList[]): {
  sets: SetFixtures[];
  blobs: FixtureSpec[];
  count: number;
  bytes: number;
} {
  const sets = new Map<string, SetFixtures>();
  const blobs = new Map<string, FixtureSpec>();
  for (const list of lists) {
    if (list instanceof SetFixtures) {
      sets.set(`${list.prefix}|${list.length}|${list.sizeBytes}`, list);
      continue;
    }
    for (const f of list) {
      const seen = blobs.get(f.blob);
      if (seen && (seen.offsetBytes !== f.offsetBytes || seen.lengthBytes !== f.lengthBytes))
        throw new Error(`fixture ${f.blob} is needed with two different contents`);
      blobs.set(f.blob, f);
    }
  }
  const all = [...sets.values()];
  const single = [...blobs.values()];
  return {
    sets: all,
    blobs: single,
    count: all.reduce((n, s) => n + s.length, single.length),
    bytes: all.reduce(
      (n, s) => n + totalBytes(s.files),
      single.reduce((n, f) => n + f.lengthBytes, 0),
    ),
  };
}

/**
 * One item per file: its bytes go at i x FILE_SIZE of the delivered whole (drawn sizes: after every
 * file before it), checked against its own content.
 */
export function perFileItems(input: PlanInput): FileSet {
  const count = fileCountOf(input);
  return FileSet.of(setPrefixOf(input, count), count, input.sizeBytes, 'set', input.fileSizes);
}

/** A disjoint part of the set, named by a prefix of its file names, and the files it holds. */
export interface ListGroup {
  prefix: string;
  first: number;
  count: number;
}

/**
 * Listing pages follow one another (each needs the last one's NextMarker), so parallel listing
 * needs disjoint prefixes: the names' leading index digits split the set into the fewest groups
 * that give every lane (PROCESSES x MAX_SOCKETS) one; one lane lists the whole set as one stream.
 */
export function listGroups(fileCount: number, setPrefix: string, lanes: number): ListGroup[] {
  let digits = 0;
  while (digits < INDEX_DIGITS && Math.ceil(fileCount / 10 ** (INDEX_DIGITS - digits)) < lanes) digits++;
  if (digits === 0) return [{ prefix: `${setPrefix}/file-`, first: 0, count: fileCount }];
  const span = 10 ** (INDEX_DIGITS - digits);
  return Array.from({ length: Math.ceil(fileCount / span) }, (_, g) => ({
    prefix: `${setPrefix}/file-${String(g).padStart(digits, '0')}`,
    first: g * span,
    count: Math.min(span, fileCount - g * span),
  }));
}

export function listItems(input: PlanInput, delimiter?: string) {
  const count = fileCountOf(input);
  const groups = listGroups(count, setPrefixOf(input, count), input.lanes ?? 1);
  return groups.map((g, index) => ({
    index,
    blob: g.prefix,
    destOffsetBytes: g.first,
    lengthBytes: 0,
    list: {
      prefix: g.prefix,
      pageSize: input.pageSize ?? 5000,
      ...(delimiter ? { delimiter } : {}),
      first: g.first,
      count: g.count,
    },
  }));
}
