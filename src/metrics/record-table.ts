// Raw records as columns: ~110 bytes a request in typed arrays instead of ~400 as an object with a
// phases object, strings and boxed doubles. A worker fills one as its items settle, sends it to the
// coordinator as typed arrays (a copy, not a JSON walk), and the coordinator merges and reads it in
// place; an OpRecord object exists only while someone looks at one.
import { PHASES, phasesInto, type PhaseDurationsMs } from '../transport/phases.js';
import type { FaultCounts, ThrottleClass } from '../transport/answer.js';

/** A row's rare fields, kept apart from the columns. */
interface OddFields {
  md5?: string;
  error?: string;
  readBackError?: string;
  throttledBy?: ThrottleClass;
  faults?: FaultCounts;
}
import type { OpRecord } from './records.js';
import type { PhaseHistograms } from './histograms.js';

/** The numeric columns, each one number per request. */
const NUMBERS = {
  worker: Int16Array,
  item: Int32Array,
  offsetBytes: Float64Array,
  bytes: Float64Array,
  status: Uint16Array,
  startEpochMs: Float64Array,
  totalMs: Float64Array,
  reused: Uint8Array,
  retries: Uint16Array,
  throttled: Uint16Array,
  backoffMs: Float32Array,
  /** List Blobs: the names a page held; -1 when not a listing. */
  objects: Int32Array,
  /**
   * --hedge: 0 not hedged, 1 the original won, 2 the duplicate won; when it went, what the loser received.
   */
  hedge: Uint8Array,
  hedgeAfterMs: Float32Array,
  hedgeLoserBytes: Float64Array,
} as const;
type NumberColumn = keyof typeof NUMBERS;
type Column = InstanceType<(typeof NUMBERS)[NumberColumn]>;
const NUMBER_COLUMNS = Object.keys(NUMBERS) as NumberColumn[];
const MD5_BYTES = 16;
/** A row's phases, read once (phasesInto). */
const scratch = new Float64Array(PHASES.length);
/** Base64 of exactly 16 bytes, as Content-MD5 writes it: decoding it and encoding back gives it again. */
const CANONICAL_MD5 = /^[A-Za-z0-9+/]{21}[AQgw]==$/;

/** What crosses the IPC channel: the columns cut to length, and the rare strings by row. */
export interface EncodedRecords {
  length: number;
  numbers: Record<NumberColumn, Column>;
  /** Phase durations in ms, NaN where the request had no such phase. */
  phases: Float32Array[];
  /** MD5s, 16 bytes a row; `hasMd5` marks rows that have one. */
  md5: Uint8Array;
  hasMd5: Uint8Array;
  /** Rows with an MD5 that is not 16 bytes of base64 (none in practice), an error, or a read-back error. */
  odd: [number, OddFields][];
}

export class RecordTable implements Iterable<OpRecord> {
  private cols: Record<NumberColumn, Column>;
  private phaseCols: Float32Array[];
  private md5Bytes: Uint8Array;
  private hasMd5: Uint8Array;
  private readonly odd = new Map<number, OddFields>();
  private rows = 0;

  constructor(capacity = 16) {
    const n = Math.max(1, capacity);
    this.cols = Object.fromEntries(NUMBER_COLUMNS.map((c) => [c, new NUMBERS[c](n)])) as Record<
      NumberColumn,
      Column
    >;
    this.phaseCols = PHASES.map(() => new Float32Array(n));
    this.md5Bytes = new Uint8Array(n * MD5_BYTES);
    this.hasMd5 = new Uint8Array(n);
  }

  static from(records: Iterable<OpRecord>): RecordTable {
    const t = new RecordTable(Array.isArray(records) ? records.length : 16);
    for (const r of records) t.push(r);
    return t;
  }

  get length(): number {
    return this.rows;
  }

  private get capacity(): number {
    return this.hasMd5.length;
  }

  private grow(min: number): void {
    if (min <= this.capacity) return;
    const n = Math.max(min, this.capacity * 2);
    const widen = <T extends Column | Float32Array | Uint8Array>(a: T, per = 1): T => {
      const b = new (a.constructor as new (n: number) => T)(n * per);
      b.set(a as never);
      return b;
    };
    for (const c of NUMBER_COLUMNS) this.cols[c] = widen(this.cols[c]);
    this.phaseCols = this.phaseCols.map((p) => widen(p));
    this.md5Bytes = widen(this.md5Bytes, MD5_BYTES);
    this.hasMd5 = widen(this.hasMd5);
  }

  push(r: OpRecord): void {
    this.grow(this.rows + 1);
    this.set(this.rows, r);
  }

  /**
   * Writes row `i` (growing the table to it): a steady run's item writes its latest request over the last
   * one.
   */
  set(i: number, r: OpRecord): void {
    this.grow(i + 1);
    const c = this.cols;
    c.worker[i] = r.worker;
    c.item[i] = r.item;
    c.offsetBytes[i] = r.offsetBytes;
    c.bytes[i] = r.bytes;
    c.status[i] = r.status;
    c.startEpochMs[i] = r.startEpochMs;
    c.totalMs[i] = r.totalMs;
    c.reused[i] = r.reused ? 1 : 0;
    c.retries[i] = r.retries;
    c.throttled[i] = r.throttled;
    c.backoffMs[i] = r.backoffMs;
    c.objects[i] = r.objects ?? -1;
    c.hedge[i] = r.hedge ? (r.hedge.won === 'first' ? 1 : 2) : 0;
    c.hedgeAfterMs[i] = r.hedge?.afterMs ?? 0;
    c.hedgeLoserBytes[i] = r.hedge?.loserBytes ?? 0;
    const phases = phasesInto(r.phases, scratch);
    for (let k = 0; k < phases.length; k++) this.phaseCols[k]![i] = phases[k]!;
    this.odd.delete(i);
    this.hasMd5[i] = 0;
    if (r.md5 !== undefined) this.setMd5(i, r.md5);
    if (r.error !== undefined) this.oddOf(i).error = r.error;
    if (r.readBackError !== undefined) this.oddOf(i).readBackError = r.readBackError;
    if (r.throttledBy !== undefined) this.oddOf(i).throttledBy = r.throttledBy;
    if (r.faults !== undefined) this.oddOf(i).faults = r.faults;
    this.rows = Math.max(this.rows, i + 1);
  }

  private oddOf(i: number) {
    let o = this.odd.get(i);
    if (!o) this.odd.set(i, (o = {}));
    return o;
  }

  /** Whether row `i` was written (a table made for a share's items has a row per item). */
  has(i: number): boolean {
    return i < this.rows && this.cols.startEpochMs[i] !== 0;
  }

  setMd5(i: number, md5: string): void {
    // Set as a request settles, in the timed section: the form is checked, not decoded and encoded back.
    if (CANONICAL_MD5.test(md5)) {
      this.md5Bytes.set(Buffer.from(md5, 'base64'), i * MD5_BYTES);
      this.hasMd5[i] = 1;
      if (this.odd.get(i)?.md5 !== undefined) delete this.oddOf(i).md5;
    } else {
      this.hasMd5[i] = 0;
      this.oddOf(i).md5 = md5;
    }
  }

  setReadBackError(i: number, error: string): void {
    this.oddOf(i).readBackError = error;
  }

  md5(i: number): string | undefined {
    if (i < 0 || i >= this.rows) return undefined;
    if (this.hasMd5[i])
      return Buffer.from(this.md5Bytes.buffer, this.md5Bytes.byteOffset + i * MD5_BYTES, MD5_BYTES).toString(
        'base64',
      );
    return this.odd.get(i)?.md5;
  }

  error(i: number): string | undefined {
    return this.odd.get(i)?.error;
  }

  readBackError(i: number): string | undefined {
    return this.odd.get(i)?.readBackError;
  }

  /** A number of row `i` without making its record. */
  get<C extends NumberColumn>(column: C, i: number): number {
    return this.cols[column][i]!;
  }

  /** A phase of row `i` in ms, 0 where the request had none, without making its record. */
  phaseMs(phase: (typeof PHASES)[number], i: number): number {
    const v = this.phaseCols[PHASES.indexOf(phase)]![i]!;
    return Number.isNaN(v) ? 0 : v;
  }

  /** Row `i` as a record (a new object each time). */
  at(i: number): OpRecord | undefined {
    if (i < 0) i += this.rows;
    if (i < 0 || i >= this.rows) return undefined;
    const c = this.cols;
    const phases: PhaseDurationsMs = {};
    PHASES.forEach((p, k) => {
      const v = this.phaseCols[k]![i]!;
      if (!Number.isNaN(v)) phases[p] = v;
    });
    const odd = this.odd.get(i);
    const md5 = this.md5(i);
    return {
      worker: c.worker[i]!,
      item: c.item[i]!,
      offsetBytes: c.offsetBytes[i]!,
      bytes: c.bytes[i]!,
      status: c.status[i]!,
      startEpochMs: c.startEpochMs[i]!,
      totalMs: c.totalMs[i]!,
      phases,
      reused: c.reused[i] === 1,
      retries: c.retries[i]!,
      throttled: c.throttled[i]!,
      backoffMs: c.backoffMs[i]!,
      ...(md5 === undefined ? {} : { md5 }),
      ...(c.objects[i]! >= 0 ? { objects: c.objects[i]! } : {}),
      ...(c.hedge[i]! > 0
        ? {
            hedge: {
              won: c.hedge[i] === 1 ? 'first' : 'hedge',
              afterMs: c.hedgeAfterMs[i]!,
              loserBytes: c.hedgeLoserBytes[i]!,
            },
          }
        : {}),
      ...(odd?.error === undefined ? {} : { error: odd.error }),
      ...(odd?.readBackError === undefined ? {} : { readBackError: odd.readBackError }),
      ...(odd?.throttledBy === undefined ? {} : { throttledBy: odd.throttledBy }),
      ...(odd?.faults === undefined ? {} : { faults: odd.faults }),
    };
  }

  *[Symbol.iterator](): Iterator<OpRecord> {
    for (let i = 0; i < this.rows; i++) yield this.at(i)!;
  }

  /** Every successful request's phases and total into `h`, read from the columns (no record made). */
  recordInto(h: Pick<PhaseHistograms, 'recordMs'>): void {
    const failed = new Set(this.failedRows());
    for (let i = 0; i < this.rows; i++) {
      if (failed.has(i)) continue;
      for (let k = 0; k < PHASES.length; k++) {
        const ms = this.phaseCols[k]![i]!;
        if (!Number.isNaN(ms)) h.recordMs(PHASES[k]!, ms);
      }
      h.recordMs('total', this.cols.totalMs[i]!);
    }
  }

  /** The failed requests as records, in row order. */
  failed(): OpRecord[] {
    return this.failedRows().map((i) => this.at(i)!);
  }

  /**
   * Row of each item's record (the last, where an item has several). Items are numbered from 0, so
   * an array indexed by item: 4 bytes an item, far less than a Map's entry.
   */
  rowsByItem(): { get(item: number): number | undefined; has(item: number): boolean } {
    let top = -1;
    for (let i = 0; i < this.rows; i++) top = Math.max(top, this.cols.item[i]!);
    const rows = new Int32Array(top + 1).fill(-1);
    for (let i = 0; i < this.rows; i++) if (this.cols.item[i]! >= 0) rows[this.cols.item[i]!] = i;
    const get = (item: number) =>
      item >= 0 && item < rows.length && rows[item]! >= 0 ? rows[item] : undefined;
    return { get, has: (item) => get(item) !== undefined };
  }

  /** Rows with an error: found from the sparse strings, no row made for the others. */
  failedRows(): number[] {
    return [...this.odd.entries()]
      .filter(([i, o]) => i < this.rows && o.error !== undefined)
      .map(([i]) => i)
      .sort((a, b) => a - b);
  }

  // Array-like reading: each makes the records it looks at, one at a time.
  map<T>(f: (r: OpRecord, i: number) => T): T[] {
    return Array.from({ length: this.rows }, (_, i) => f(this.at(i)!, i));
  }
  filter(f: (r: OpRecord) => unknown): OpRecord[] {
    const out: OpRecord[] = [];
    for (const r of this) if (f(r)) out.push(r);
    return out;
  }
  some(f: (r: OpRecord) => unknown): boolean {
    for (const r of this) if (f(r)) return true;
    return false;
  }
  every(f: (r: OpRecord) => unknown): boolean {
    return !this.some((r) => !f(r));
  }
  reduce<T>(f: (acc: T, r: OpRecord) => T, initial: T): T {
    let acc = initial;
    for (const r of this) acc = f(acc, r);
    return acc;
  }
  toArray(): OpRecord[] {
    return [...this];
  }

  /** These rows, in this order, as a new table. */
  /** At most `max` rows, evenly spaced; with `failed`, every failed row besides; in row order. */
  sampledRows(max: number, failed = false): number[] {
    const step = this.rows / max;
    const even =
      this.rows <= max
        ? Array.from({ length: this.rows }, (_, i) => i)
        : Array.from({ length: max }, (_, i) => Math.floor(i * step));
    if (!failed) return even;
    return [...new Set([...even, ...this.failedRows()])].sort((a, b) => a - b);
  }

  /** From the first request's start to the last response's end; an empty table spans nothing. */
  span(): { startEpochMs: number; endEpochMs: number } {
    let start = Infinity;
    let end = -Infinity;
    const started = this.cols.startEpochMs;
    const total = this.cols.totalMs;
    for (let i = 0; i < this.rows; i++) {
      start = Math.min(start, started[i]!);
      end = Math.max(end, started[i]! + total[i]!);
    }
    return { startEpochMs: start, endEpochMs: end };
  }

  pick(rows: ArrayLike<number>): RecordTable {
    const t = new RecordTable(rows.length);
    const c = t.cols;
    for (let k = 0; k < rows.length; k++) {
      const i = rows[k]!;
      for (const name of NUMBER_COLUMNS) c[name][k] = this.cols[name][i]!;
      for (let p = 0; p < PHASES.length; p++) t.phaseCols[p]![k] = this.phaseCols[p]![i]!;
      t.md5Bytes.set(this.md5Bytes.subarray(i * MD5_BYTES, (i + 1) * MD5_BYTES), k * MD5_BYTES);
      t.hasMd5[k] = this.hasMd5[i]!;
      const odd = this.odd.get(i);
      if (odd) t.odd.set(k, { ...odd });
    }
    t.rows = rows.length;
    return t;
  }

  /**
   * Orders the rows by offset, then item, in place (a stable permutation sort: no records made).
   * Column by column, so that at most one column's copy is held beside the table: a sorted copy of
   * the whole table would raise the coordinator's peak by the table's size.
   */
  sortByOffset(): this {
    const n = this.rows;
    const off = this.cols.offsetBytes;
    const item = this.cols.item;
    const before = (a: number, b: number) => off[a]! - off[b]! || item[a]! - item[b]!;
    let sorted = true;
    for (let i = 1; i < n && sorted; i++) sorted = before(i - 1, i) <= 0;
    if (sorted) return this;
    const order = Uint32Array.from({ length: n }, (_, i) => i);
    order.sort((a, b) => before(a, b) || a - b);
    const permute = <T extends Column | Float32Array | Uint8Array>(a: T, per = 1): T => {
      const out = new (a.constructor as new (n: number) => T)(a.length);
      for (let k = 0; k < n; k++) {
        const i = order[k]!;
        if (per === 1) out[k] = a[i]!;
        else out.set(a.subarray(i * per, (i + 1) * per) as never, k * per);
      }
      return out;
    };
    for (const c of NUMBER_COLUMNS) this.cols[c] = permute(this.cols[c]);
    this.phaseCols = this.phaseCols.map((p) => permute(p));
    this.md5Bytes = permute(this.md5Bytes, MD5_BYTES);
    this.hasMd5 = permute(this.hasMd5);
    const rowOf = new Map<number, number>();
    order.forEach((i, k) => {
      if (this.odd.has(i)) rowOf.set(i, k);
    });
    const odd = [...this.odd.entries()];
    this.odd.clear();
    for (const [i, o] of odd) if (rowOf.has(i)) this.odd.set(rowOf.get(i)!, o);
    return this;
  }

  /**
   * The columns cut to length. A full table (a worker's: one row per item, made to size) hands over
   * its own columns, not copies (a copy would raise a worker's peak by their size): it is not to
   * be written after.
   */
  encode(): EncodedRecords {
    const n = this.rows;
    const cut = <T extends Column | Float32Array | Uint8Array>(a: T, per = 1): T =>
      a.length === n * per ? a : (a.slice(0, n * per) as T);
    return {
      length: n,
      numbers: Object.fromEntries(NUMBER_COLUMNS.map((c) => [c, cut(this.cols[c])])) as Record<
        NumberColumn,
        Column
      >,
      phases: this.phaseCols.map((p) => cut(p)),
      md5: cut(this.md5Bytes, MD5_BYTES),
      hasMd5: cut(this.hasMd5),
      odd: [...this.odd.entries()].filter(([i]) => i < n),
    };
  }

  static decode(e: EncodedRecords): RecordTable {
    const t = new RecordTable(0);
    t.cols = { ...e.numbers };
    t.phaseCols = [...e.phases];
    t.md5Bytes = e.md5;
    t.hasMd5 = e.hasMd5;
    for (const [i, o] of e.odd) t.odd.set(i, o);
    t.rows = e.length;
    // Capacity is hasMd5's length: an empty table still needs room to grow from.
    if (t.rows === 0) return new RecordTable();
    return t;
  }

  /**
   * Another table's rows after these. The coordinator appends each worker's table as it arrives, to
   * a table made to the run's size: one worker's message at a time is held besides it, where
   * collecting them all and concatenating would hold the run's records twice.
   */
  append(t: RecordTable): this {
    const at = this.rows;
    this.grow(at + t.rows);
    for (const c of NUMBER_COLUMNS) this.cols[c].set(t.cols[c].subarray(0, t.rows) as never, at);
    t.phaseCols.forEach((p, k) => this.phaseCols[k]!.set(p.subarray(0, t.rows), at));
    this.md5Bytes.set(t.md5Bytes.subarray(0, t.rows * MD5_BYTES), at * MD5_BYTES);
    this.hasMd5.set(t.hasMd5.subarray(0, t.rows), at);
    for (const [i, o] of t.odd) if (i < t.rows) this.odd.set(at + i, { ...o });
    this.rows = at + t.rows;
    return this;
  }
}
