// Histograms from several workers are merged by adding their encoded forms; the result equals one
// histogram that saw every value. Averaging per-worker percentiles does not.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import * as hdr from 'hdr-histogram-js';
import {
  asDecoded,
  decodeHistogram,
  encodeHistogram,
  HistogramSum,
  METRICS,
  newHistogram,
  PhaseHistograms,
  summarizeHistogram,
  valuesAtPercentiles,
  withIntegerIndex,
  type MetricName,
} from '../src/metrics/histograms.js';
import type { PhaseDurationsMs } from '../src/transport/phases.js';

/** mulberry32: a small seeded PRNG, so every run sees the same values. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Sample {
  phases: PhaseDurationsMs;
  totalMs: number;
}

/** A request: fresh sockets have a tcp phase, reused ones none; `scale` stretches firstByte. */
function sample(rand: () => number, fresh: boolean, scale: number): Sample {
  const phases: PhaseDurationsMs = { wait: rand() * 2 };
  if (fresh) phases.tcp = 0.2 + rand() * 3;
  phases.send = rand() * 0.5;
  // Long-tailed, as latencies are.
  phases.firstByte = scale * (1 + 20 * rand() ** 4);
  phases.download = rand() * 30;
  const totalMs = Object.values(phases).reduce((s, v) => s + v, 0);
  return { phases, totalMs };
}

function recordAll(samples: readonly Sample[]): PhaseHistograms {
  const h = new PhaseHistograms();
  for (const s of samples) h.record(s.phases, s.totalMs);
  return h;
}

const summary = (h: PhaseHistograms, m: MetricName) => {
  const hist = h.byMetric.get(m);
  return hist ? summarizeHistogram(hist) : undefined;
};

describe('PhaseHistograms across workers', () => {
  // Skewed on purpose: one worker fast and busy, the other slow with few requests.
  const rand = seeded(20240601);
  const fastWorker = Array.from({ length: 3000 }, (_, i) => sample(rand, i % 10 === 0, 5));
  const slowWorker = Array.from({ length: 400 }, () => sample(rand, false, 200));

  const direct = recordAll([...fastWorker, ...slowWorker]);
  const a = recordAll(fastWorker);
  const b = recordAll(slowWorker);
  const merged = new PhaseHistograms();
  // Encoded and decoded as they would be when sent over IPC.
  merged.addEncoded(JSON.parse(JSON.stringify(a.encode())));
  merged.addEncoded(JSON.parse(JSON.stringify(b.encode())));

  it('merges encoded histograms into the same count and percentiles as one histogram of all values', () => {
    const recorded = METRICS.filter((m) => direct.byMetric.has(m));
    expect(recorded).toEqual(['wait', 'tcp', 'send', 'firstByte', 'download', 'total']);
    expect(METRICS.filter((m) => merged.byMetric.has(m))).toEqual(recorded);
    for (const m of recorded) {
      const want = summary(direct, m)!;
      const got = summary(merged, m)!;
      expect({ ...got, max: 0 }, m).toEqual({ ...want, max: 0 });
      // A decoded histogram knows the max only to its bucket: the top of the bucket holding the
      // true max, within HDR's 3 significant digits of it.
      expect(got.max, m).toBe(direct.byMetric.get(m)!.getValueAtPercentile(100) / 1000);
      expect(Math.abs(got.max - want.max), m).toBeLessThanOrEqual(want.max * 0.001);
    }
    expect(summary(merged, 'total')!.count).toBe(3400);
  });

  it('keeps a phase only some workers saw: tcp comes from the fresh sockets alone', () => {
    expect(b.byMetric.has('tcp')).toBe(false);
    expect(summary(merged, 'tcp')!.count).toBe(300);
    expect({ ...summary(merged, 'tcp')!, max: 0 }).toEqual({ ...summary(a, 'tcp')!, max: 0 });
  });

  it('gives a merged p99 that the average of the workers p99s does not', () => {
    const p99a = summary(a, 'firstByte')!.p99;
    const p99b = summary(b, 'firstByte')!.p99;
    const mergedP99 = summary(merged, 'firstByte')!.p99;
    const averaged = (p99a + p99b) / 2;

    expect(mergedP99).toBe(summary(direct, 'firstByte')!.p99);
    // Far apart, not within HDR's 3 significant digits of each other.
    expect(Math.abs(mergedP99 - averaged) / mergedP99).toBeGreaterThan(0.05);
  });
});

describe("HistogramSum and a reused set (a run's collection without decode/re-encode)", () => {
  it("passes one worker's encoding through, adds two, and adds a request recorded here", () => {
    const a = new PhaseHistograms();
    a.record({ firstByte: 2 }, 5);
    const b = new PhaseHistograms();
    b.record({}, 7);
    const one = new HistogramSum();
    one.addEncoded(a.encode());
    expect(one.encode()).toEqual(a.encode());
    const two = new HistogramSum();
    two.addEncoded(a.encode());
    two.addEncoded(b.encode());
    two.record({}, 9);
    const sum = two.encode();
    expect(decodeHistogram(sum.total!).totalCount).toBe(3);
    expect(decodeHistogram(sum.firstByte!).totalCount).toBe(1);
    // Reset: the next run sends only what it recorded, no empty metric of an earlier run.
    a.reset();
    a.record({}, 3);
    expect(Object.keys(a.encode())).toEqual(['total']);
    expect(decodeHistogram(a.encode().total!).totalCount).toBe(1);
  });
});

describe('a histogram as long as its data (short walks from the last answer to the report)', () => {
  it(
    'starts small, grows to the largest value, and reads the same percentiles as a ' + 'fixed 24-hour range',
    () => {
      const rand = seeded(28);
      const values = Array.from({ length: 2000 }, () => Math.round(50 + 5000 * rand() ** 6));
      values.push(3_600_000_000); // an hour: far past where it started
      const fixed = hdr.build({
        bitBucketSize: 64,
        lowestDiscernibleValue: 1,
        highestTrackableValue: 24 * 3600 * 1_000_000,
        numberOfSignificantValueDigits: 3,
      });
      const grown = newHistogram();
      const small = newHistogram();
      for (const v of values) {
        fixed.recordValue(v);
        grown.recordValue(v);
        if (v < 10_000) small.recordValue(v);
      }
      // Up to 2^14 µs: 2,048 buckets and 1,024 a doubling past 2^11; not 28,672.
      expect((small as unknown as { countsArrayLength: number }).countsArrayLength).toBeLessThanOrEqual(
        5 * 1024,
      );
      const read = (h: hdr.Histogram) => [50, 90, 99, 99.9, 100].map((p) => h.getValueAtPercentile(p));
      expect(read(grown)).toEqual(read(fixed));
      expect(read(decodeHistogram(encodeHistogram(grown)))).toEqual(read(fixed));
    },
  );

  it('adds a histogram of a results file written with the fixed range (and that one adds a new one)', () => {
    const old = hdr.build({
      bitBucketSize: 64,
      lowestDiscernibleValue: 1,
      highestTrackableValue: 24 * 3600 * 1_000_000,
      numberOfSignificantValueDigits: 3,
    });
    [120, 4_000, 90_000_000].forEach((v) => old.recordValue(v));
    const oldText = (
      old as hdr.Histogram & { encodeIntoCompressedBase64(): string }
    ).encodeIntoCompressedBase64();
    const fresh = newHistogram();
    [7, 300].forEach((v) => fresh.recordValue(v));
    const sum = new PhaseHistograms();
    sum.addEncoded({ total: encodeHistogram(fresh) });
    sum.addEncoded({ total: oldText });
    const other = new PhaseHistograms();
    other.addEncoded({ total: oldText });
    other.addEncoded({ total: encodeHistogram(fresh) });
    for (const h of [sum.byMetric.get('total')!, other.byMetric.get('total')!]) {
      expect(h.totalCount).toBe(5);
      expect(h.getValueAtPercentile(100)).toBe(old.getValueAtPercentile(100));
      expect(h.getValueAtPercentile(1)).toBe(7);
    }
  });
});

describe('valuesAtPercentiles: one walk of the counts', () => {
  it('gives what getValueAtPercentile gives, percentile by percentile, in any order', () => {
    const rand = seeded(9);
    const ps = [99.9, 0, 10, 25, 50, 75, 90, 95, 99, 100, 33.3, 1e-9];
    for (const n of [1, 2, 3, 7, 100, 5000]) {
      const h = newHistogram();
      for (let i = 0; i < n; i++) h.recordValue(Math.round(1 + 1e7 * rand() ** 5));
      expect(valuesAtPercentiles(h, ps), `${n} values`).toEqual(ps.map((p) => h.getValueAtPercentile(p)));
    }
    const one = newHistogram(2);
    one.recordValue(123_456);
    expect(valuesAtPercentiles(one, [50, 0, 100])).toEqual(
      [50, 0, 100].map((p) => one.getValueAtPercentile(p)),
    );
    // Zeros (a phase under 0.5 µs), alone and below others; and a histogram decoded from its encoding.
    const zeros = newHistogram();
    [0, 0, 0].forEach((v) => zeros.recordValue(v));
    expect(valuesAtPercentiles(zeros, ps)).toEqual(ps.map((p) => zeros.getValueAtPercentile(p)));
    [0, 5000, 70, 70].forEach((v) => zeros.recordValue(v));
    expect(valuesAtPercentiles(zeros, ps)).toEqual(ps.map((p) => zeros.getValueAtPercentile(p)));
    const decoded = decodeHistogram(encodeHistogram(zeros));
    expect(valuesAtPercentiles(decoded, ps)).toEqual(ps.map((p) => zeros.getValueAtPercentile(p)));
  });
});

describe("a run's own histograms handed to the decode that follows", () => {
  it(
    'the first decode of its encoding takes the histogram the coordinator made, as a decode would ' +
      'leave it; later ones decode',
    () => {
      const sum = new HistogramSum();
      const rand = seeded(11);
      for (let i = 0; i < 500; i++) sum.record({ firstByte: rand() * 40 }, 1 + rand() * 90);
      const waited = newHistogram();
      waited.recordValue(250);
      // A worker's metric alone passes through as it came; only what was made here is handed over.
      sum.addEncoded({ wait: encodeHistogram(waited) });
      const encoded = sum.encode();
      expect(sum.encode()).toBe(encoded);
      expect(() => sum.recordMs('total', 1)).toThrow(/after its encoding/);
      const ps = [0, 50, 90, 99, 99.9, 100];
      const read = (h: hdr.Histogram) => ({
        n: h.totalCount,
        max: h.maxValue,
        min: h.minNonZeroValue,
        at: valuesAtPercentiles(h, ps),
      });
      for (const m of ['firstByte', 'total'] as const) {
        const first = decodeHistogram(encoded[m]!);
        const again = decodeHistogram(encoded[m]!);
        expect(first).not.toBe(again);
        expect(read(first), m).toEqual(read(again));
        // And it takes what is added to it, as a decoded one does.
        first.add(again);
        expect(first.totalCount).toBe(1000);
      }
    },
  );

  it("encodes byte for byte as the package's encodeIntoCompressedBase64 does", () => {
    const rand = seeded(29);
    type PackageEncoding = hdr.Histogram & {
      encodeIntoCompressedBase64(): string;
      recordValueWithCount(v: number, n: number): void;
    };
    const cases: Array<[string, (h: PackageEncoding) => void]> = [
      ['empty', () => {}],
      ['one value', (h) => h.recordValue(1500)],
      ['zero only', (h) => h.recordValue(0)],
      [
        'latencies',
        (h) => {
          for (let i = 0; i < 2000; i++) h.recordValue(Math.round(50 + rand() * rand() * 400_000));
        },
      ],
      [
        'hours and microseconds',
        (h) => {
          h.recordValue(1);
          h.recordValue(3 * 3_600_000_000);
          h.recordValue(17);
        },
      ],
      // Counts whose ZigZag words take every length up to LEB128's 9 bytes.
      [
        'large counts',
        (h) => {
          for (const [v, n] of [
            [10, 63],
            [20, 8191],
            [40, 2 ** 20],
            [80, 2 ** 27],
            [160, 2 ** 34],
            [320, 2 ** 41],
            [640, 2 ** 48],
            [1280, 2 ** 52],
          ])
            h.recordValueWithCount(v!, n!);
        },
      ],
    ];
    for (const [name, fill] of cases) {
      for (const digits of [1, 2, 3] as const) {
        const h = newHistogram(digits) as PackageEncoding;
        fill(h);
        const ours = encodeHistogram(h);
        expect(ours, `${name}, ${digits} digits`).toBe(h.encodeIntoCompressedBase64());
        expect(decodeHistogram(ours).totalCount, name).toBe(h.totalCount);
      }
    }
  });

  it("asDecoded leaves a histogram's max, min and count as the package's walk of its counts does", () => {
    type Walkable = hdr.Histogram & { establishInternalTackingValues(): void };
    const fills: Array<(h: hdr.Histogram, rand: () => number) => void> = [
      () => {},
      (h) => h.recordValue(0),
      (h) => {
        h.recordValue(0);
        h.recordValue(7);
      },
      (h) => h.recordValue(1500),
      (h, rand) => {
        for (let i = 0; i < 500; i++) h.recordValue(Math.round(rand() * rand() * 5_000_000));
      },
      (h) => {
        h.recordValue(3 * 3_600_000_000);
        h.recordValue(1);
      },
      // Sums: what HistogramSum hands over after adding decoded parts to a histogram.
      (h) => {
        const other = newHistogram();
        other.recordValue(90_000);
        h.recordValue(40);
        h.add(decodeHistogram(encodeHistogram(other)));
      },
    ];
    for (const [i, fill] of fills.entries()) {
      for (const digits of [1, 3] as const) {
        const ours = newHistogram(digits);
        const walked = newHistogram(digits) as Walkable;
        fill(ours, seeded(i));
        fill(walked, seeded(i));
        asDecoded(ours);
        walked.establishInternalTackingValues();
        expect([ours.totalCount, ours.maxValue, ours.minNonZeroValue], `fill ${i}, ${digits} digits`).toEqual(
          [walked.totalCount, walked.maxValue, walked.minNonZeroValue],
        );
      }
    }
  });
});

describe('the counts index in integer arithmetic', () => {
  type Indexed = hdr.Histogram & { countsArrayIndex(value: number): number; autoResize: boolean };
  const Package = (
    createRequire(import.meta.url)('hdr-histogram-js/dist/JsHistogramFactory') as {
      constructorFromBucketSize(bits: 64): new (low: number, high: number, digits: number) => Indexed;
    }
  ).constructorFromBucketSize(64);
  const Ours = withIntegerIndex(Package) as unknown as typeof Package;

  it(
    "gives the package's index for every whole value up to 2^31 - 1, and takes the package's way " +
      'past it or between',
    () => {
      const rand = seeded(31);
      const values = [
        0,
        1,
        2,
        3,
        1023,
        1024,
        2047,
        2048,
        2049,
        1.5,
        0.4,
        2 ** 31 - 1,
        2 ** 31,
        2 ** 31 + 1,
        3 * 3_600_000_000,
        2 ** 40 + 7,
      ];
      for (let k = 1; k < 31; k++) values.push(2 ** k - 1, 2 ** k, 2 ** k + 1);
      for (let i = 0; i < 20_000; i++) values.push(Math.round(Math.exp(rand() * Math.log(2 ** 31))));
      for (const digits of [1, 2, 3]) {
        const theirs = new Package(1, 2, digits),
          ours = new Ours(1, 2, digits);
        for (const v of values)
          expect(ours.countsArrayIndex(v), `${v}, ${digits} digits`).toBe(theirs.countsArrayIndex(v));
        expect(() => ours.countsArrayIndex(-1)).toThrow(/cannot be negative/);
      }
    },
  );

  it('records into the same counts: the encodings of the same values are equal', () => {
    const rand = seeded(37);
    const values = Array.from({ length: 5000 }, () => Math.round(rand() * rand() * 2_000_000));
    values.push(0, 1, 2 ** 31 - 1, 2 ** 31 + 5, 7_200_000_000);
    for (const digits of [1, 2, 3] as const) {
      const theirs = new Package(1, 2, digits);
      theirs.autoResize = true;
      const ours = newHistogram(digits);
      for (const v of values) {
        theirs.recordValue(v);
        ours.recordValue(v);
      }
      expect(encodeHistogram(ours), `${digits} digits`).toBe(encodeHistogram(theirs));
    }
  });
});
