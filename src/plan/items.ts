// A plan's items by position. Most plans are a few items (ranges, copies, blocks) and stay arrays;
// a set of many small files is a FileSet: a few numbers, each item made from its index when it is
// asked for, so that 1,000,000 files are not 1,000,000 objects in the coordinator, over IPC and in
// every worker (an item object and its name, copied into each process).
// The bottom of the layers: every folder that handles items (storage, metrics, workers, kinds,
// strategies) imports them from here, and this imports nothing of ours but the file names.
import { smallFileName, smallFileOffset } from './names.js';
import { sizeAt, type SizeDraw } from './size-draw.js';

/** A byte range of an object: `offsetBytes` to `offsetBytes + lengthBytes - 1`. */
export interface ByteRange {
  offsetBytes: number;
  lengthBytes: number;
}

export interface WorkItem {
  index: number;
  /** Blob to read; absent for a plain URL target. */
  blob?: string;
  /** Range header to send; absent for a whole-object GET. */
  range?: ByteRange;
  /** Where the bytes go in the delivered object, and how many are expected. */
  destOffsetBytes: number;
  lengthBytes: number;
  /** Uploads only: stage as this block (base64 id) instead of a whole Put Blob. */
  blockId?: string;
  /**
   * Where its expected content starts in the seed's stream, when not at destOffsetBytes (many small files).
   */
  contentOffsetBytes?: number;
  /**
   * Listings: one stream of List Blobs pages over a prefix, expected to name files first .. first + count -
   * 1.
   */
  list?: ListSpec;
}

export interface ListSpec {
  prefix: string;
  /** maxresults of each page. */
  pageSize: number;
  /** '/': a hierarchical listing. */
  delimiter?: string;
  first: number;
  count: number;
}

/** A fixture blob: bytes [offsetBytes, offsetBytes + lengthBytes) of the seed's content stream. */
export interface FixtureSpec {
  blob: string;
  offsetBytes: number;
  lengthBytes: number;
}

/** Things by position; a plain array is one. */
export interface ByPosition<T> extends Iterable<T> {
  readonly length: number;
  /** The one at `position` (negative counts from the end, as Array.prototype.at does). */
  at(position: number): T | undefined;
}

/** A plan's items by position. */
export type Items = ByPosition<WorkItem>;

/**
 * A strategy's fixtures: a few blobs as an array, or a set of many made one by one when asked for
 * (strategies/many-blobs.ts, SetFixtures), so that FILE_COUNT fixtures are never FILE_COUNT objects at once.
 */
export type FixtureList = ByPosition<FixtureSpec>;

/**
 * Files `first`, `first + step`, … (`count` of them), each `sizeBytes` and named smallFileName(prefix,
 * index). 'upload': a file's content and its place in the payload are the seed's stream at smallFileOffset;
 * 'set': a fixture set read back whole, each file at index x size of the delivered whole.
 */
export interface FileSetSpec {
  kind: 'files';
  prefix: string;
  first: number;
  step: number;
  count: number;
  /** Each file's size; with `sizes`, the largest file of the whole set (its contents' stride). */
  sizeBytes: number;
  layout: 'upload' | 'set';
  /** Each file's own size, drawn from a distribution by its index (plan/size-draw.ts). */
  sizes?: SizeDraw;
  /** With `sizes`: files in the whole set, of which this is a part (its prefix sums' extent). */
  setCount?: number;
}

/** Prefix sums of a drawn set's sizes every PREFIX_STEP files: the rest are summed from there. */
const PREFIX_STEP = 64;
const prefixTables = new Map<string, Float64Array>();

function prefixTable(spec: FileSetSpec): Float64Array {
  const key = `${JSON.stringify(spec.sizes)}|${spec.setCount}`;
  let table = prefixTables.get(key);
  if (!table) {
    const count = spec.setCount ?? 0;
    table = new Float64Array(Math.floor(count / PREFIX_STEP) + 1);
    let sum = 0;
    for (let i = 0; i < count; i++) {
      if (i % PREFIX_STEP === 0) table[i / PREFIX_STEP] = sum;
      sum += sizeAt(spec.sizes!, i);
    }
    if (count % PREFIX_STEP === 0) table[count / PREFIX_STEP] = sum;
    if (prefixTables.size >= 8) prefixTables.clear();
    prefixTables.set(key, table);
  }
  return table;
}

/** Where file `index` starts in a drawn set's delivered whole: every file before it, end to end. */
function drawnOffset(spec: FileSetSpec, index: number): number {
  const step = Math.floor(index / PREFIX_STEP);
  let at = prefixTable(spec)[step]!;
  for (let i = step * PREFIX_STEP; i < index; i++) at += sizeAt(spec.sizes!, i);
  return at;
}

type Layout = FileSetSpec['layout'];

export class FileSet implements Items {
  readonly spec: FileSetSpec;

  constructor(spec: FileSetSpec) {
    this.spec = spec;
  }

  static of(prefix: string, count: number, sizeBytes: number, layout: Layout, sizes?: SizeDraw): FileSet {
    const spec = { kind: 'files', prefix, first: 0, step: 1, count, layout } as const;
    if (!sizes || sizes.distribution.kind === 'fixed') return new FileSet({ ...spec, sizeBytes });
    let largest = 0;
    for (let i = 0; i < count; i++) largest = Math.max(largest, sizeAt(sizes, i));
    return new FileSet({ ...spec, sizeBytes: largest, sizes, setCount: count });
  }

  /** File `index`'s size. */
  sizeOf(index: number): number {
    return this.spec.sizes ? sizeAt(this.spec.sizes, index) : this.spec.sizeBytes;
  }

  get length(): number {
    return this.spec.count;
  }

  /** The index of the item at `position`, without making the item. */
  indexAt(position: number): number {
    return this.spec.first + position * this.spec.step;
  }

  at(position: number): WorkItem | undefined {
    const p = position < 0 ? this.spec.count + position : position;
    if (!Number.isInteger(p) || p < 0 || p >= this.spec.count) return undefined;
    const { prefix, sizeBytes, layout } = this.spec;
    const index = this.indexAt(p);
    // A drawn file's content starts where a file of the set's largest size would: a prefix of it.
    const content = smallFileOffset(index, sizeBytes);
    const blob = smallFileName(prefix, index);
    const lengthBytes = this.sizeOf(index);
    const dest = this.spec.sizes ? drawnOffset(this.spec, index) : index * sizeBytes;
    return layout === 'upload'
      ? { index, blob, destOffsetBytes: content, lengthBytes }
      : { index, blob, destOffsetBytes: dest, contentOffsetBytes: content, lengthBytes };
  }

  *[Symbol.iterator](): Iterator<WorkItem> {
    for (let p = 0; p < this.spec.count; p++) yield this.at(p)!;
  }

  /** Positions [start, end) as a set of their own. */
  slice(start: number, end: number): FileSet {
    const s = Math.max(0, Math.min(start, this.spec.count));
    const e = Math.max(s, Math.min(end, this.spec.count));
    return new FileSet({ ...this.spec, first: this.indexAt(s), count: e - s });
  }

  /** Every `every`-th item from position `from`: still a set. */
  every(from: number, every: number): FileSet {
    const count = from < this.spec.count ? Math.ceil((this.spec.count - from) / every) : 0;
    return new FileSet({ ...this.spec, first: this.indexAt(from), step: this.spec.step * every, count });
  }
}

/** What crosses the IPC channel: an array as it is, a file set as its few numbers. */
export type EncodedItems = WorkItem[] | FileSetSpec;

export const encodeItems = (items: Items): EncodedItems =>
  items instanceof FileSet ? items.spec : [...items];

export const decodeItems = (e: EncodedItems): Items => (Array.isArray(e) ? e : new FileSet(e));

/** Each item's bytes in order: a file set's from its sizes alone (no items, no offsets made). */
function* lengthsOf(items: Items): Generator<number> {
  if (items instanceof FileSet) {
    for (let p = 0; p < items.length; p++) yield items.sizeOf(items.indexAt(p));
  } else {
    for (const i of items) yield i.lengthBytes;
  }
}

/** Every item's bytes together. */
export function totalBytes(items: Items): number {
  if (items instanceof FileSet && !items.spec.sizes) return items.length * items.spec.sizeBytes;
  let sum = 0;
  for (const bytes of lengthsOf(items)) sum += bytes;
  return sum;
}

/** The largest item's bytes. */
export function largestBytes(items: Items): number {
  if (items instanceof FileSet && !items.spec.sizes) return items.length ? items.spec.sizeBytes : 0;
  let most = 0;
  for (const bytes of lengthsOf(items)) most = Math.max(most, bytes);
  return most;
}

/** Positions [start, end): a file set stays one, an array is sliced. */
export function sliceItems(items: Items, start: number, end: number): Items {
  if (items instanceof FileSet) return items.slice(start, end);
  return Array.isArray(items) ? items.slice(start, end) : [...items].slice(start, end);
}

/** Items at positions from, from + every, …: a file set stays one. */
export function everyItem(items: Items, from: number, every: number): Items {
  if (items instanceof FileSet) return items.every(from, every);
  return [...items].filter((_, position) => position % every === from);
}

/** The items `keep` accepts, as an array; all of them, as they are, when it accepts every one. */
export function keepItems(items: Items, keep: (item: WorkItem) => boolean): Items {
  let out: WorkItem[] | undefined;
  let position = 0;
  for (const item of items) {
    if (!keep(item)) out ??= sliceToArray(items, position);
    else out?.push(item);
    position++;
  }
  return out ?? items;
}

function sliceToArray(items: Items, end: number): WorkItem[] {
  const out: WorkItem[] = [];
  for (let p = 0; p < end; p++) out.push(items.at(p)!);
  return out;
}

/** `parts` shares in order, their sizes differing by at most one: a file set's shares stay sets. */
export const splitItems = (items: Items, parts: number): Items[] =>
  fairBounds(items.length, parts).map(([start, end]) => sliceItems(items, start, end));

/** [start, end) of `parts` consecutive shares of `length` positions, their sizes differing by at most one. */
export function fairBounds(length: number, parts: number): [number, number][] {
  const base = Math.floor(length / parts);
  const extra = length % parts;
  const out: [number, number][] = [];
  let at = 0;
  for (let w = 0; w < parts; w++) {
    const take = base + (w < extra ? 1 : 0);
    out.push([at, at + take]);
    at += take;
  }
  return out;
}
