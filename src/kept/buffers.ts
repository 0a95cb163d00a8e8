// What a worker process keeps from one job to the next, so that a run does not rebuild what the
// last one made: the memory sink's buffer, and the fixture's bytes regenerated from its seed, which
// each run's ranges are compared with byte for byte (a compare costs a fraction of an MD5 of them).
import { totalmem } from 'node:os';
import { contentPieces } from '../payload/content.js';
import { JsMd5Budget } from '../payload/md5.js';
import { CompareThread } from './compare-ranges.js';
import type { Items } from '../plan/items.js';
import { PhaseHistograms } from '../metrics/histograms.js';
import type { Payloads } from './payloads.js';

/**
 * Past this size the fixture is not kept, and its ranges are checked by MD5: the copy holds as much
 * again as the memory sink (each process only its share's ranges, so about the object once over
 * all of them), next to the embedded Azurite's copy of the fixtures.
 */
export const FIXTURE_COPY_MAX_BYTES = Math.floor(totalmem() / 8);

interface FixtureCopy {
  seed: string;
  bytes: Buffer;
  /** The parts regenerated so far, as sorted, disjoint [start, end) spans: a share needs only its ranges. */
  made: [number, number][];
}

/**
 * Past this many items a share's slots are not touched before the barrier (a file set's are touched as its
 * files land).
 */
const TOUCHED_ITEMS = 10_000;

/** Small things kept by key (a hedger's estimate per contender): at most this many, the oldest dropped. */
const KEPT_BY_KEY = 16;

/**
 * The worker process's state, made once by its entry (workers/worker.ts) and handed to every job and,
 * through the kind's context, to its kind: whatever a run reuses of the last one is here, never in a
 * module variable, so that what a job does depends on this object and not on which module ran first.
 */
export class KeptBuffers {
  /** The memory sink's buffer, and which of its slots are touched (their pages faulted in). */
  private object?: { bytes: Buffer; touched: [number, number][] };
  /** The fixture's bytes regenerated from its seed, as far as a share asked for them. */
  private fixture?: FixtureCopy;
  /** The thread that takes half of a large compare, once a job started it. */
  private thread?: CompareThread;
  /** Small things kept by key (a hedger's estimate per contender), at most KEPT_BY_KEY. */
  private readonly byKey = new Map<string, unknown>();
  /** A file sink's read-back buffer: one for every read-back of this process's jobs. */
  private readBack?: Buffer;
  /** The histograms a run's records go into (workers/result.ts), emptied and filled again each run. */
  private histograms?: PhaseHistograms;
  /**
   * The last run's upload payloads (Payloads.of): every run of a contender, and the other upload
   * contenders, which share the fixture's content, take their buffers from it.
   */
  payloads?: Payloads;
  /** The bytes this process hashed in JavaScript (payload/md5.ts): past its budget, node:crypto. */
  readonly jsMd5 = new JsMd5Budget();

  /** The read-back buffer, of `sizeBytes`, made the first time it is asked for. */
  readBuffer(sizeBytes: number): Buffer {
    if (this.readBack?.length !== sizeBytes) this.readBack = Buffer.allocUnsafeSlow(sizeBytes);
    return this.readBack;
  }

  /** The run histograms, emptied: one set per process, not a new set of counts arrays every run. */
  emptyHistograms(): PhaseHistograms {
    this.histograms ??= new PhaseHistograms();
    this.histograms.reset();
    return this.histograms;
  }

  /**
   * The thread that takes half of a large compare (compare-ranges.ts), started the first time it is asked
   * for.
   */
  compareThread(): CompareThread {
    return (this.thread ??= new CompareThread());
  }

  /** That thread, if a job has started it. */
  get startedCompareThread(): CompareThread | undefined {
    return this.thread;
  }

  /**
   * What `key` names, made by `make` the first time: state one contender's runs share in this
   * process (a hedger's estimate of its requests' times). The caller's key must say everything the
   * state depends on.
   */
  keep<T>(key: string, make: () => T): T {
    if (this.byKey.has(key)) return this.byKey.get(key) as T;
    if (this.byKey.size >= KEPT_BY_KEY) this.byKey.delete(this.byKey.keys().next().value!);
    const made = make();
    this.byKey.set(key, made);
    return made;
  }

  /**
   * The memory sink's buffer, the same one while the object's size is. A fresh large buffer a run
   * costs set-up (allocation and the collection it sets off) and puts its page faults inside the
   * timed section, a large share of a short run: `items`' slots are touched here, before the
   * barrier, the first time they are used, so that no run pays them, a first one included. Its
   * old bytes stay: a range a run counts as delivered was written over in full (a short body is an
   * error), and a range that failed is not checked.
   */
  objectBuffer(sizeBytes: number, items?: Items): Buffer {
    if (this.object?.bytes.length !== sizeBytes) {
      // Let go of the old buffer first: a collection set off by the new one's allocation may free it.
      this.object = undefined;
      // In shared memory: the compare thread reads it where it is (compare-ranges.ts).
      this.object = { bytes: sharedBuffer(sizeBytes), touched: [] };
    }
    const object = this.object;
    if (items && items.length <= TOUCHED_ITEMS) {
      const gaps = [...items].flatMap((i) =>
        missing(object.touched, i.destOffsetBytes, Math.min(sizeBytes, i.destOffsetBytes + i.lengthBytes)),
      );
      for (const [start, end] of gaps) object.bytes.fill(0, start, end);
      if (gaps.length) object.touched = merged([...object.touched, ...gaps]);
    }
    return object.bytes;
  }

  /**
   * The fixture's bytes [offset, offset + length) in an object of `sizeBytes`, regenerated from its
   * seed the first time they are asked for (once per process, not once per run);
   * undefined past FIXTURE_COPY_MAX_BYTES.
   */
  fixtureRange(seed: string, sizeBytes: number, offset: number, length: number): Buffer | undefined {
    if (sizeBytes > FIXTURE_COPY_MAX_BYTES || offset + length > sizeBytes) return undefined;
    if (this.fixture?.seed !== seed || this.fixture.bytes.length !== sizeBytes) {
      this.fixture = undefined;
      this.fixture = { seed, bytes: sharedBuffer(sizeBytes), made: [] };
    }
    const copy = this.fixture;
    const gaps = missing(copy.made, offset, offset + length);
    for (const [start, end] of gaps) {
      let at = start;
      for (const piece of contentPieces(seed, start, end - start)) at += piece.copy(copy.bytes, at);
    }
    if (gaps.length) copy.made = merged([...copy.made, ...gaps]);
    return copy.bytes.subarray(offset, offset + length);
  }
}

/**
 * A buffer over shared memory (zeroed by the kernel as its pages are first touched, like a slow unsafe one).
 */
const sharedBuffer = (sizeBytes: number): Buffer => Buffer.from(new SharedArrayBuffer(sizeBytes));

/** The parts of [from, to) that no span of `made` (sorted, disjoint) covers. */
export function missing(made: readonly [number, number][], from: number, to: number): [number, number][] {
  const gaps: [number, number][] = [];
  let at = from;
  for (const [start, end] of made) {
    if (end <= at) continue;
    if (start >= to) break;
    if (start > at) gaps.push([at, start]);
    at = Math.max(at, end);
    if (at >= to) break;
  }
  if (at < to) gaps.push([at, to]);
  return gaps;
}

function merged(spans: [number, number][]): [number, number][] {
  const out: [number, number][] = [];
  for (const [start, end] of spans.sort((a, b) => a[0] - b[0])) {
    const last = out.at(-1);
    if (last && start <= last[1]) last[1] = Math.max(last[1], end);
    else out.push([start, end]);
  }
  return out;
}
