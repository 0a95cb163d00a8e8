// Where a worker puts downloaded bytes. Memory use stays bounded by items in flight for every sink
// but `memory`. Each sink can say the MD5 of what it delivered for an item.
// A chunk handed to onData may be a view of a socket's reusable read buffer (the raw client): a sink
// uses it before returning, or returns a promise (the socket waits for it), or copies what it keeps.
import type { FileHandle } from 'node:fs/promises';
import { nodeFsPromises, nodeCrypto } from '../startup/lazy.js';
import type { SinkKind } from '../vocabulary/choices.js';
import { md5Base64, type JsMd5Budget } from '../payload/md5.js';
import type { Items } from '../plan/items.js';
import type { WorkItem } from '../plan/items.js';
import type { KeptBuffers } from '../kept/buffers.js';

/**
 * get, sdk-get: where the bytes land and whether each range is hashed (false where nothing can be compared).
 */
export interface SinkOptions {
  sink: SinkKind;
  outPath?: string;
  hashRanges?: boolean;
  /**
   * The object is our fixture of this seed: with the memory sink, each range is compared with the
   * fixture's bytes, regenerated once per worker process, instead of hashed.
   */
  fixtureSeed?: string;
}

export interface ItemWriter {
  onData(chunk: Buffer): void | Promise<void>;
  /**
   * Called once the item's body ended; resolves when its bytes are durable in the sink, with their
   * MD5 (base64) from a sink that hashes as the bytes come.
   */
  done(): Promise<string | void>;
}

export interface Sink {
  writer(item: WorkItem): ItemWriter;
  /** True: every writer's `done` answers the item's MD5, and md5Of is not asked. */
  readonly hashesAsItGoes?: boolean;
  /** MD5 (base64) of what was delivered for the item; computed after the timed section if it can be. */
  md5Of(item: WorkItem): Promise<string>;
  /**
   * The memory sink's place for the item, for a client that fills a buffer itself (the SDK's
   * downloadToBuffer).
   */
  slot?(item: WorkItem): Buffer;
  close(): Promise<void>;
}

/**
 * Drops the bytes, hashing them as they come (inside the timed section: nothing is kept to hash
 * later); each item's MD5 goes to its record as it settles. Nothing is kept per item: a hash object
 * per item, kept to the end, would hold memory in proportion to the file count.
 */
class DiscardSink implements Sink {
  /** false drops the bytes unseen (nothing to verify them against, e.g. a plain URL). */
  readonly hashesAsItGoes: boolean;
  constructor(hash: boolean) {
    this.hashesAsItGoes = hash;
  }
  writer(): ItemWriter {
    if (!this.hashesAsItGoes) return { onData: () => {}, done: async () => {} };
    const hash = nodeCrypto().createHash('md5');
    return { onData: (chunk) => void hash.update(chunk), done: async () => hash.digest('base64') };
  }
  async md5Of(): Promise<string> {
    throw new Error('the discard sink answers each MD5 as its item ends');
  }
  async close(): Promise<void> {}
}

class MemorySink implements Sink {
  readonly buffer: Buffer;
  private readonly md5Budget?: JsMd5Budget;
  constructor(buffer: Buffer, md5Budget?: JsMd5Budget) {
    this.buffer = buffer;
    this.md5Budget = md5Budget;
  }
  writer(item: WorkItem): ItemWriter {
    let at = item.destOffsetBytes;
    const end = item.destOffsetBytes + item.lengthBytes;
    return {
      onData: (chunk) => {
        // Bytes past the item's slot (a server ignoring Range) are dropped, not thrown: a throw here
        // escapes the response's 'data' handler and kills the worker. The byte count reports them.
        if (at < end) chunk.copy(this.buffer, at, 0, Math.min(chunk.length, end - at));
        at += chunk.length;
      },
      done: async () => {},
    };
  }
  async md5Of(item: WorkItem): Promise<string> {
    // A small object's check loads no node:crypto (payload/md5.ts).
    return md5Base64(this.slot(item), this.md5Budget);
  }
  slot(item: WorkItem): Buffer {
    return this.buffer.subarray(item.destOffsetBytes, item.destOffsetBytes + item.lengthBytes);
  }
  async close(): Promise<void> {}
}

/** A read-back's buffer: what one read of a file's range takes. */
export const READ_BACK_BYTES = 1024 * 1024;

/**
 * `buf`: the one read buffer for every read-back of a process (they run one after another, and the
 * worker's is kept from job to job): a fresh buffer per range would leave garbage for the collector
 * in proportion to the download's size.
 */
export async function md5OfFileRange(
  fh: FileHandle,
  offset: number,
  length: number,
  buf: Buffer = Buffer.allocUnsafeSlow(READ_BACK_BYTES),
): Promise<string> {
  const hash = nodeCrypto().createHash('md5');
  let done = 0;
  while (done < length) {
    const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, length - done), offset + done);
    if (bytesRead === 0) break;
    hash.update(buf.subarray(0, bytesRead));
    // The buffer is reused by the next read: nothing may keep a view of it (update copies).
    done += bytesRead;
  }
  return hash.digest('base64');
}

/** Positional writes at each range's offset as data arrives. */
class SparseFileSink implements Sink {
  private readonly fh: FileHandle;
  private readonly readBack: () => Buffer;
  constructor(fh: FileHandle, readBack: () => Buffer) {
    this.fh = fh;
    this.readBack = readBack;
  }
  writer(item: WorkItem): ItemWriter {
    let at = item.destOffsetBytes;
    return {
      onData: async (chunk) => {
        const position = at;
        at += chunk.length;
        await this.fh.write(chunk, 0, chunk.length, position);
      },
      done: async () => {},
    };
  }
  md5Of(item: WorkItem): Promise<string> {
    return md5OfFileRange(this.fh, item.destOffsetBytes, item.lengthBytes, this.readBack());
  }
  close(): Promise<void> {
    return this.fh.close();
  }
}

/**
 * Bytes of later ranges held in memory while an earlier one is still being written, before their
 * sockets are made to wait: without a bound a very large download would hold most of itself in memory.
 */
export const ORDERED_HOLD_BYTES = 64 * 1024 * 1024;

/**
 * One sequential stream: items are written in offset order, later ones held until their turn, up
 * to `maxHeldBytes`; past that, their onData waits (pausing their sockets) until the head moves on.
 */
export class OrderedFileSink implements Sink {
  private readonly order: number[];
  private head = 0;
  private readonly held = new Map<number, { chunks: Buffer[]; ended: boolean }>();
  private tail: Promise<unknown> = Promise.resolve();
  private heldBytes = 0;
  private waiting: (() => void)[] = [];
  /** The most bytes held at once, for tests and reports. */
  peakHeldBytes = 0;

  private readonly fh: FileHandle;
  private readonly maxHeldBytes: number;
  private readonly readBack: () => Buffer;

  constructor(fh: FileHandle, items: Items, maxHeldBytes = ORDERED_HOLD_BYTES, readBack = ownReadBuffer()) {
    this.fh = fh;
    this.maxHeldBytes = maxHeldBytes;
    this.readBack = readBack;
    this.order = [...items].sort((a, b) => a.destOffsetBytes - b.destOffsetBytes).map((i) => i.index);
    for (const i of items) this.held.set(i.index, { chunks: [], ended: false });
  }

  private append(chunk: Buffer): Promise<unknown> {
    this.tail = this.tail.then(() => this.fh.write(chunk));
    return this.tail;
  }

  /** Moves the head past finished items, flushing what the next ones held, and wakes the waiting. */
  private advance(): void {
    for (;;) {
      const state = this.held.get(this.order[this.head]!);
      if (!state) break;
      for (const c of state.chunks.splice(0)) {
        this.heldBytes -= c.length;
        void this.append(c);
      }
      if (!state.ended) break;
      this.head++;
    }
    // Everyone waiting looks again: the new head writes straight through, the others re-check the bound.
    for (const wake of this.waiting.splice(0)) wake();
  }

  writer(item: WorkItem): ItemWriter {
    const state = this.held.get(item.index)!;
    return {
      onData: (chunk) => {
        if (this.order[this.head] === item.index) return this.append(chunk).then(() => {});
        // Held for later: a copy, since the chunk may be a view of a reused read buffer.
        state.chunks.push(Buffer.from(chunk));
        this.heldBytes += chunk.length;
        this.peakHeldBytes = Math.max(this.peakHeldBytes, this.heldBytes);
        if (this.heldBytes > this.maxHeldBytes)
          return new Promise<void>((resolve) => this.waiting.push(resolve));
      },
      done: async () => {
        state.ended = true;
        this.advance();
        await this.tail;
      },
    };
  }
  md5Of(item: WorkItem): Promise<string> {
    return md5OfFileRange(this.fh, item.destOffsetBytes, item.lengthBytes, this.readBack());
  }
  async close(): Promise<void> {
    await this.tail;
    await this.fh.close();
  }
}

/** A sink's own read buffer, made at its first read-back, where no process keeps one. */
function ownReadBuffer(): () => Buffer {
  let buf: Buffer | undefined;
  return () => (buf ??= Buffer.allocUnsafeSlow(READ_BACK_BYTES));
}

/**
 * `kept`: the worker's buffers, whose memory sink buffer and read-back buffer a run reuses; without,
 * fresh ones.
 */
export async function openSink(
  kind: SinkKind,
  items: Items,
  objectSizeBytes: number,
  outPath?: string,
  hash = true,
  kept?: KeptBuffers,
): Promise<Sink> {
  switch (kind) {
    case 'discard':
      return new DiscardSink(hash);
    case 'memory':
      return new MemorySink(
        kept ? kept.objectBuffer(objectSizeBytes, items) : Buffer.allocUnsafeSlow(objectSizeBytes),
        kept?.jsMd5,
      );
    case 'sparse-file':
      // The coordinator created the file at its full (sparse) size.
      return new SparseFileSink(await nodeFsPromises().open(outPath!, 'r+'), readBackOf(kept));
    case 'file':
      return new OrderedFileSink(
        await nodeFsPromises().open(outPath!, 'w+'),
        items,
        ORDERED_HOLD_BYTES,
        readBackOf(kept),
      );
  }
}

const readBackOf = (kept?: KeptBuffers): (() => Buffer) =>
  kept ? () => kept.readBuffer(READ_BACK_BYTES) : ownReadBuffer();
