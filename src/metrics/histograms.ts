// Mergeable latency histograms: integer microseconds, HDR, shipped encoded between processes and
// added, never averaged. hdr-histogram-js is required when the first set of histograms is made, not
// on import: `--help` and a command's --help never pay it, a worker pays it when it turns its records
// into histograms after its timed section, the coordinator when it merges.
import { createRequire } from 'node:module';
import type * as Hdr from 'hdr-histogram-js';
import { PHASES, phasesInto, type Phase, type PhaseDurationsMs } from '../transport/phases.js';
import { nodeZlib, once } from '../startup/lazy.js';

/** `object`: whole-object completion (first request's start to its last part's end), one per object. */
export type MetricName = Phase | 'total' | 'object';
export const METRICS: readonly MetricName[] = [...PHASES, 'total', 'object'];
export type EncodedHistograms = Partial<Record<MetricName, string>>;

/**
 * A new histogram covers 1 µs to 2 µs and grows (autoResize) to the largest value it is given: its
 * counts array is as long as its data needs (2,048 buckets up to 2 ms, 1,024 more per doubling),
 * not the 28,672 that a fixed 24-hour range takes. Encoding, decoding, adding and reading
 * percentiles each walk that array, on the path from a run's last answer to its report.
 */
const INITIAL_HIGHEST_US = 2;

/**
 * The package's JavaScript histogram and its V2 compressed encoding, by their own files: its index
 * also loads the WebAssembly build (a base64 module and its loader) and the log reader and writer,
 * whose load makes an Intl.NumberFormat (ICU, costly alone): loading the index roughly doubles the
 * cost, paid by every worker and the coordinator. The encoding is the same code, byte for byte.
 */
interface HdrParts {
  Float64: new (
    lowestDiscernibleValue: number,
    highestTrackableValue: number,
    digits: number,
  ) => Hdr.Histogram;
  /** JsHistogram.decode, from an uncompressed V2 payload. */
  doDecode(data: Uint8Array, bitBucketSize: 64): Hdr.Histogram;
  /** The V2 compressed envelope (cookie, length, deflate) off. */
  decompress(data: Uint8Array): Uint8Array;
}

type HdrFiles = { constructorFromBucketSize(bits: 64): HdrParts['Float64'] } & Pick<
  HdrParts,
  'doDecode' | 'decompress'
>;

/**
 * The two files, packed into one by `npm run build` (scripts/bundle.ts: metrics/hdr-parts.cjs, one
 * file to read instead of ~40); a build by tsc alone has only the package's. The path is the same
 * from this module unbundled (dist/metrics/) and from a bundle that holds it (dist/cli/, dist/workers/).
 */
function hdrFiles(): HdrFiles {
  const require = createRequire(import.meta.url);
  try {
    return require('../metrics/hdr-parts.cjs') as HdrFiles;
  } catch (err) {
    if ((err as { code?: string }).code !== 'MODULE_NOT_FOUND') throw err;
    // Loading the encoding gives JsHistogram its encodeIntoCompressedBase64 and decode.
    return {
      ...require('hdr-histogram-js/dist/JsHistogramFactory'),
      ...require('hdr-histogram-js/dist/JsHistogram.encoding'),
    } as HdrFiles;
  }
}

/** What the index below reads of the package's histogram: its bucket layout. */
interface Indexed {
  countsArrayIndex(value: number): number;
  readonly subBucketHalfCountMagnitude: number;
  readonly subBucketHalfCount: number;
  readonly unitMagnitude: number;
}

/** The largest value the integer index takes: 2^31 - 1 µs, about 36 minutes. */
const INT_INDEX_MAX = 0x7fffffff;

/**
 * The package's histogram, its counts index found in integer arithmetic. Its own takes a log2 and
 * two powers of two per value, several times the integer index's cost: a steady run records each
 * request's phases, total and interval latency inside its worker's timed section, other runs after
 * it. The same index for every whole value from 0 to INT_INDEX_MAX (what Math.round of µs gives);
 * any other value goes the package's way.
 */
export function withIntegerIndex(Base: HdrParts['Float64']): HdrParts['Float64'] {
  const Histogram = Base as unknown as new (...args: ConstructorParameters<HdrParts['Float64']>) => Indexed;
  return class extends Histogram {
    override countsArrayIndex(value: number): number {
      if (!(value >= 0 && value <= INT_INDEX_MAX) || value !== Math.floor(value))
        return super.countsArrayIndex(value);
      // floor(log2(value)) is 31 - clz32(value) for such a value; 0 goes to bucket 0, as the package's
      // -Infinity does.
      const bucket = Math.max(
        31 - Math.clz32(value) - this.subBucketHalfCountMagnitude - this.unitMagnitude,
        0,
      );
      return (
        ((bucket + 1) << this.subBucketHalfCountMagnitude) +
        (value >>> (bucket + this.unitMagnitude)) -
        this.subBucketHalfCount
      );
    }
  } as unknown as HdrParts['Float64'];
}

const hdr = once((): HdrParts => {
  const { constructorFromBucketSize, doDecode, decompress } = hdrFiles();
  return { Float64: withIntegerIndex(constructorFromBucketSize(64)), doDecode, decompress };
});

/**
 * Loads the histogram code (and its deflate) now, once: a process calls this while it would
 * otherwise wait (a worker before its job, the coordinator while its workers prepare, for every
 * run), so that no process loads it on the path from the last request to the report.
 */
export const loadHistograms: () => void = once(() => {
  hdr();
  // The encoding's deflate: its first call loads zlib's code and binding, so it is made here as well.
  nodeZlib().deflateSync(Buffer.alloc(1));
});

/** `digits`: significant digits kept (3 for what is reported; fewer is cheaper to read percentiles from). */
export function newHistogram(digits: 1 | 2 | 3 = 3): Hdr.Histogram {
  // As the package's build() with bitBucketSize 64: Float64 counts, growing past the highest value.
  const h = new (hdr().Float64)(1, INITIAL_HIGHEST_US, digits);
  h.autoResize = true;
  return h;
}

/** What the encoding reads of a JsHistogram besides its public fields. */
type Countable = Hdr.Histogram & {
  countsArrayIndex(value: number): number;
  getCountAtIndex(index: number): number;
  lowestDiscernibleValue: number;
  _counts?: Float64Array;
};

/** V2's cookies (HdrHistogram's encoding), the low nibble's 0x10 marking its zero-run (TLZE) counts. */
const V2_ENCODING_COOKIE = 0x1c849303 | 0x10;
const V2_COMPRESSED_COOKIE = 0x1c849304 | 0x10;
const V2_HEADER_BYTES = 40;
/** A ZigZag LEB128 word takes at most 9 bytes. */
const V2_MAX_WORD_BYTES = 9;
const TWO_POW_32 = 2 ** 32;

/** The one buffer every encode writes into, grown when a histogram needs more (its bytes never read). */
class Scratch {
  private bytes = Buffer.allocUnsafeSlow(4096);
  atLeast(sizeBytes: number): Buffer {
    if (this.bytes.length < sizeBytes)
      this.bytes = Buffer.allocUnsafeSlow(Math.max(sizeBytes, this.bytes.length * 2));
    return this.bytes;
  }
}
const scratch = new Scratch();

/**
 * The histogram in HdrHistogram's V2 compressed encoding, base64: byte for byte what the package's
 * `encodeIntoCompressedBase64` writes (its header, ZigZag LEB128 counts with zero runs, deflated by
 * node:zlib with the same options), written into one reused buffer. The package's grows its buffer
 * a byte at a time and reverses an array per header word, for seven histograms a contender, on the
 * path from the last answer to the report.
 */
export const encodeHistogram = (histogram: Hdr.Histogram): string => {
  const h = histogram as Countable;
  const countsLimit = h.countsArrayIndex(h.maxValue) + 1;
  const bound = V2_HEADER_BYTES + V2_MAX_WORD_BYTES * countsLimit;
  const b = scratch.atLeast(bound);
  b.writeInt32BE(V2_ENCODING_COOKIE, 0);
  // The payload's length at 4, once known; the normalizing index offset the package writes as 1.
  b.writeInt32BE(1, 8);
  b.writeInt32BE(h.numberOfSignificantValueDigits, 12);
  writeInt64(b, 16, h.lowestDiscernibleValue);
  writeInt64(b, 24, h.highestTrackableValue);
  // The integer-to-double conversion ratio, written by the package as the integer 1.
  writeInt64(b, 32, 1);
  let at = V2_HEADER_BYTES;
  // The counts array itself (every histogram here is a Float64 one), not a method call per bucket:
  // those calls would be most of the walk.
  const counts =
    h._counts instanceof Float64Array
      ? h._counts
      : Float64Array.from({ length: countsLimit }, (_, i) => h.getCountAtIndex(i));
  for (let i = 0; i < countsLimit; ) {
    const count = counts[i++]!;
    if (count < 0)
      throw new Error(`histogram: a negative count (${count}) at index ${i - 1} cannot be encoded`);
    let word = count;
    if (count === 0) {
      const from = i - 1;
      while (i < countsLimit && counts[i] === 0) i++;
      if (i - from > 1) word = from - i;
    }
    at = putZigZag(b, at, word);
  }
  b.writeInt32BE(at - V2_HEADER_BYTES, 4);
  const compressed = nodeZlib().deflateSync(b.subarray(0, at), {});
  const out = Buffer.allocUnsafe(8 + compressed.length);
  out.writeInt32BE(V2_COMPRESSED_COOKIE, 0);
  out.writeInt32BE(compressed.length, 4);
  compressed.copy(out, 8);
  return out.toString('base64');
};

/** As the package's putInt64: the high 32 bits, then the low 32, each big-endian. */
function writeInt64(b: Buffer, at: number, value: number): void {
  b.writeInt32BE(Math.floor(value / TWO_POW_32) | 0, at);
  b.writeUInt32BE(value >>> 0, at + 4);
}

/** One ZigZag LEB128-64b9B word (HdrHistogram's ZigZagEncoding): 7 bits a byte, the 9th byte whole. */
function putZigZag(b: Buffer, at: number, value: number): number {
  let v = value >= 0 ? value * 2 : -value * 2 - 1;
  for (let n = 0; n < 8; n++) {
    if (v < 128) {
      b[at++] = v;
      return at;
    }
    b[at++] = (v % 128) | 0x80;
    v = Math.floor(v / 128);
  }
  b[at++] = v & 0xff;
  return at;
}
/**
 * Histograms this process made, encoded and will not change again, by their encoding, for the one
 * decode that follows: a report built right after a run reads the histograms the run was just
 * encoded with, and takes each as it is instead of inflating and parsing its text again (7 a
 * contender, on the path from the last answer to the report). Bounded: a longer
 * session's report decodes the rest.
 */
const handedOver = new Map<string, Hdr.Histogram>();
const HANDED_OVER_MAX = 64;

/** What asDecoded reads and sets of a JsHistogram. */
type Trackable = Omit<Countable, 'maxValue' | 'minNonZeroValue'> & {
  maxValue: number;
  minNonZeroValue: number;
  valueFromIndex(index: number): number;
  highestEquivalentValue(value: number): number;
  updatedMaxValue(value: number): void;
  updateMinNonZeroValue(value: number): void;
};

/**
 * Leaves `h` as a decode of its encoding would be: a decode knows the largest and the smallest
 * non-zero value only to their buckets' edges. The package's establishInternalTackingValues finds
 * those buckets by walking the whole counts array (a method call per bucket); the histogram's own
 * max and min already name them.
 */
export function asDecoded(histogram: Hdr.Histogram): void {
  const h = histogram as unknown as Trackable;
  const { maxValue, minNonZeroValue } = h;
  h.maxValue = 0;
  h.minNonZeroValue = Number.MAX_VALUE;
  if (h.totalCount === 0) return;
  h.updatedMaxValue(h.highestEquivalentValue(h.valueFromIndex(h.countsArrayIndex(maxValue))));
  // A non-zero value was recorded (the max is one): the min is a recorded value, not the package's start
  // value.
  if (maxValue > 0) h.updateMinNonZeroValue(h.valueFromIndex(h.countsArrayIndex(minNonZeroValue)));
}

function handOver(text: string, h: Hdr.Histogram): void {
  asDecoded(h);
  h.autoResize = true;
  if (handedOver.size >= HANDED_OVER_MAX) handedOver.delete(handedOver.keys().next().value!);
  handedOver.set(text, h);
}

export const decodeHistogram = (text: string): Hdr.Histogram => {
  const own = handedOver.get(text);
  if (own) {
    // Once: the caller may add others to it.
    handedOver.delete(text);
    return own;
  }
  const { doDecode, decompress } = hdr();
  const h = doDecode(decompress(new Uint8Array(Buffer.from(text.trim(), 'base64'))), 64);
  // As newHistogram's: it may take what it is added to it, whatever the range.
  h.autoResize = true;
  return h;
};

/**
 * The sum of encoded histograms: the first as decoded, the others added to it. A new empty one (a
 * 240 KB counts array) and an add walking its 30,000 buckets per part are a visible share of a short
 * session's start-up, which bench case 8 measures.
 */
export function sumEncoded(texts: Iterable<string>): Hdr.Histogram | undefined {
  let sum: Hdr.Histogram | undefined;
  for (const text of texts) {
    const h = decodeHistogram(text);
    if (sum) sum.add(h);
    else sum = h;
  }
  return sum;
}

export class PhaseHistograms {
  readonly byMetric = new Map<MetricName, Hdr.Histogram>();
  /** The phases' histograms by PHASES' index, and the total's: record() finds them without a Map lookup. */
  private readonly byPhase: (Hdr.Histogram | undefined)[] = PHASES.map(() => undefined);
  private total: Hdr.Histogram | undefined;
  private readonly scratch = new Float64Array(PHASES.length);

  constructor() {
    // Loaded where a set is made, so that no record() ever pays it.
    hdr();
  }

  private get(metric: MetricName): Hdr.Histogram {
    let h = this.byMetric.get(metric);
    if (!h) {
      h = newHistogram();
      this.byMetric.set(metric, h);
    }
    return h;
  }

  record(phases: PhaseDurationsMs, totalMs: number): void {
    const ms = phasesInto(phases, this.scratch);
    for (let k = 0; k < ms.length; k++) {
      const v = ms[k]!;
      if (!Number.isNaN(v))
        (this.byPhase[k] ??= this.get(PHASES[k]!)).recordValue(Math.max(0, Math.round(v * 1000)));
    }
    (this.total ??= this.get('total')).recordValue(Math.max(0, Math.round(totalMs * 1000)));
  }

  recordMs(metric: MetricName, ms: number): void {
    this.get(metric).recordValue(Math.max(0, Math.round(ms * 1000)));
  }

  encode(): EncodedHistograms {
    const out: EncodedHistograms = {};
    // A reset set keeps the metrics of earlier runs: only those this run recorded are sent.
    for (const [metric, h] of this.byMetric) if (h.totalCount > 0) out[metric] = encodeHistogram(h);
    return out;
  }

  /** Empty again, its counts arrays kept: a worker's next run reuses them instead of 240 KB per metric. */
  reset(): void {
    for (const h of this.byMetric.values()) h.reset();
  }

  /** Adds encoded histograms from another worker; the first of a metric is taken as decoded (sumEncoded). */
  addEncoded(encoded: EncodedHistograms): void {
    for (const metric of METRICS) {
      const text = encoded[metric];
      if (!text) continue;
      const h = this.byMetric.get(metric);
      if (h) h.add(decodeHistogram(text));
      else this.byMetric.set(metric, decodeHistogram(text));
    }
  }
}

/**
 * A run's histograms as they arrive from its workers, added only when they must be: a metric that
 * one worker alone sent is passed on in its own encoding, with no decode, add and re-encode (each
 * a 240 KB counts array and a deflate, per metric, per run: most of a short run's collection).
 */
export class HistogramSum {
  private readonly parts = new Map<MetricName, string[]>();
  private local?: PhaseHistograms;
  /** Its encoding, made once: what it made itself is handed over to the decode that follows. */
  private encoded?: EncodedHistograms;

  addEncoded(encoded: EncodedHistograms): void {
    for (const metric of METRICS) {
      const text = encoded[metric];
      if (!text) continue;
      const list = this.parts.get(metric);
      if (list) list.push(text);
      else this.parts.set(metric, [text]);
    }
  }

  /** One more request measured here (an upload's commit). */
  record(phases: PhaseDurationsMs, totalMs: number): void {
    this.open().record(phases, totalMs);
  }

  /** One more value of one metric measured here (an object's completion, from all its requests). */
  recordMs(metric: MetricName, ms: number): void {
    this.open().recordMs(metric, ms);
  }

  private open(): PhaseHistograms {
    if (this.encoded) throw new Error('HistogramSum: a value recorded after its encoding');
    return (this.local ??= new PhaseHistograms());
  }

  /** The run's histograms, encoded; the last step of a sum (nothing is added after it). */
  encode(): EncodedHistograms {
    if (this.encoded) return this.encoded;
    const out: EncodedHistograms = {};
    for (const metric of METRICS) {
      const parts = this.parts.get(metric) ?? [];
      const own = this.local?.byMetric.get(metric);
      // What is made here is not changed after its encoding: the run's report may take it as it is.
      if (parts.length === 1 && !own) {
        out[metric] = parts[0]!;
      } else if (!parts.length && own) {
        handOver((out[metric] = encodeHistogram(own)), own);
      } else if (parts.length) {
        const sum = sumEncoded(parts)!;
        if (own) sum.add(own);
        handOver((out[metric] = encodeHistogram(sum)), sum);
      }
    }
    this.encoded = out;
    return out;
  }
}

export interface LatencySummaryMs {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/**
 * What valuesAtPercentiles reads of the package's JavaScript histogram (its own getValueAtPercentile's
 * parts).
 */
interface Walkable {
  countsArrayLength: number;
  minNonZeroValue: number;
  maxValue: number;
  countsArrayIndex(value: number): number;
  getCountAtIndex(index: number): number;
  valueFromIndex(index: number): number;
  lowestEquivalentValue(value: number): number;
  highestEquivalentValue(value: number): number;
}

/** The unit in the last place of a double, as the package computes it. */
const ulp = (x: number) => 2 ** (Math.floor(Math.log2(x)) - 52);

/**
 * The values at several percentiles in one walk of the counts, each as getValueAtPercentile gives it
 * (the same rank rounding and bucket edge): that walks from the first bucket for every percentile,
 * ten times over for a report's latency table, on the path from a run's last answer to its report.
 * The walk starts at the smallest value recorded (the counts below it are zero; a zero's is first).
 */
export function valuesAtPercentiles(h: Hdr.Histogram, percentiles: readonly number[]): number[] {
  const w = h as unknown as Walkable;
  const total = h.totalCount;
  const wanted = percentiles
    .map((p, at) => {
      const fp = (Math.min(p, 100) / 100) * total;
      return { p, at, count: Math.max(Math.ceil(fp - ulp(fp)), 1) };
    })
    .sort((a, b) => a.count - b.count);
  const out = new Array<number>(percentiles.length).fill(0);
  let next = 0;
  let sum = 0;
  // Buckets 1 up to the smallest non-zero value's hold nothing; with none recorded, only bucket 0 (zeros)
  // counts.
  const from =
    w.minNonZeroValue > w.maxValue ? w.countsArrayLength : Math.max(1, w.countsArrayIndex(w.minNonZeroValue));
  for (let i = 0; i < w.countsArrayLength && next < wanted.length; i = i === 0 ? from : i + 1) {
    sum += w.getCountAtIndex(i);
    while (next < wanted.length && sum >= wanted[next]!.count) {
      const { p, at } = wanted[next++]!;
      const value = w.valueFromIndex(i);
      out[at] = p === 0 ? w.lowestEquivalentValue(value) : w.highestEquivalentValue(value);
    }
  }
  return out;
}

export function summarizeHistogram(h: Hdr.Histogram): LatencySummaryMs {
  const [p50, p90, p99] = valuesAtPercentiles(h, [50, 90, 99]).map((us) => us / 1000);
  return { count: h.totalCount, p50: p50!, p90: p90!, p99: p99!, max: h.maxValue / 1000 };
}
