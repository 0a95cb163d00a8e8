// --file-size as a distribution: every form parses (a bare number still means KB), bad text is one
// line and exit 2 before anything runs, the seed fixes the draw (same seed, same sizes in the same
// order), a drawn set lays its files end to end and an upload's payloads stay its distinct contents.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  BadDistribution,
  describeDistribution,
  parseSizeDistribution,
} from '../src/config/size-distribution.js';
import { SEED_BARE_SIZE_BYTES } from '../src/config/options.js';
import { loadDownloadConfig, loadUploadConfig } from '../src/config/load.js';
import { FileSet, largestBytes, totalBytes } from '../src/plan/items.js';
import { bucketEdges, sizeAt, type SizeDistribution, type SizeDraw } from '../src/plan/size-draw.js';
import { Payloads } from '../src/kept/payloads.js';
import { PAYLOAD_POOL_BYTES } from '../src/plan/names.js';
import { contentBuffer, FIXTURE_SEED } from '../src/payload/content.js';
import { runCli } from './helpers/cli.js';
import { findAxes } from '../src/config/sweep.js';

const KIB = 1024;
const MIB = 1024 * KIB;
const parse = (text: string) => parseSizeDistribution(text, 1, 5000 * MIB, SEED_BARE_SIZE_BYTES);
const dist = (text: string) => parse(text) as SizeDistribution;
const draws = (draw: SizeDraw, n: number) => Array.from({ length: n }, (_, i) => sizeAt(draw, i));
const dir = mkdtempSync(join(tmpdir(), 'size-dist-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('--file-size forms', () => {
  it("keeps a fixed size and the seed's bare KB", () => {
    expect(parse('102')).toEqual({ kind: 'fixed', bytes: 102 * SEED_BARE_SIZE_BYTES });
    expect(parse('256KiB')).toEqual({ kind: 'fixed', bytes: 256 * KIB });
    const env = { FILE_SIZE: '102' };
    expect(loadUploadConfig({}, { env }).fileSizeBytes).toBe(102_000);
    expect(loadUploadConfig({}, { env }).fileSizes).toBeUndefined();
    expect(loadDownloadConfig({}, { env: { FILE_SIZE: '4096B' } }).fileSizeBytes).toBe(4096);
  });

  it('reads ranges, log ranges, lognormals and weighted buckets', () => {
    const range = (minBytes: number, maxBytes: number, log: boolean) => ({
      kind: 'range',
      minBytes,
      maxBytes,
      log,
    });
    expect(parse('4KiB..16MiB')).toEqual(range(4 * KIB, 16 * MIB, false));
    expect(parse('log:1.5KiB..2MiB')).toEqual(range(1536, 2 * MIB, true));
    expect(parse('lognormal:median=256KiB,sigma=1.2')).toEqual({
      kind: 'lognormal',
      medianBytes: 256 * KIB,
      sigma: 1.2,
      minBytes: 1,
      maxBytes: 5000 * MIB,
    });
    expect(parse('lognormal:median=256KiB,sigma=1.2,min=4KiB,max=64MiB')).toMatchObject({
      minBytes: 4 * KIB,
      maxBytes: 64 * MIB,
    });
    expect(parse('4KiB:50%,1MiB:40%,64MiB:10%')).toEqual({
      kind: 'buckets',
      buckets: [
        { bytes: 4 * KIB, share: 0.5 },
        { bytes: MIB, share: 0.4 },
        { bytes: 64 * MIB, share: 0.1 },
      ],
    });
  });

  it('writes each form back as it parses', () => {
    const forms = [
      '4KiB..16MiB',
      'log:4KiB..16MiB',
      'lognormal:median=256KiB,sigma=1.2,min=1KiB,max=64MiB',
      '4KiB:50%,1MiB:40%,64MiB:10%',
    ];
    for (const text of forms) {
      const d = dist(text);
      expect(parse(describeDistribution(d))).toEqual(d);
    }
  });

  it.each([
    ['4KiB:50%,1MiB:40%', /sum to 100%.*90%/],
    ['lognormal:median=256KiB', /median= and sigma=/],
    ['lognormal:median=256KiB,sigma=0', /sigma above 0/],
    ['lognormal:median=1KiB,sigma=1,min=4KiB', /min <= median <= max/],
    ['16MiB..4KiB', /low\.\.high/],
    ['4KiB..9000MiB', /at most|to 5000MiB/],
    ['4KiB:x%', /size:share%/],
    ['lots', /102 \(a bare number is KB\), a range \(4KiB\.\.16MiB/],
  ])('refuses %s, saying what to write', (text, said) => {
    const bad = parse(text);
    expect(bad).toBeInstanceOf(BadDistribution);
    expect((bad as BadDistribution).expected).toMatch(said);
  });

  it('exits 2 with one line before any run', async () => {
    const r = await runCli(
      ['download', '--source-method', 'small-files', '--file-size', '4KiB:50%,1MiB:40%'],
      { cwd: dir },
    );
    expect(r.code).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(/--file-size .*sum to 100%/);
    const one = await runCli(['download', '--source-method', 'single', '--file-size', '1KiB..2KiB'], {
      cwd: dir,
    });
    expect(one.code).toBe(2);
    expect(one.stderr).toMatch(/draws sizes of many files/);
  });
});

describe('the seed fixes the draw', () => {
  const d = parse('lognormal:median=256KiB,sigma=1.2') as SizeDistribution;

  it('gives the same sizes in the same order for the same seed, others for another', () => {
    const seven = draws({ distribution: d, seed: 7 }, 500);
    expect(draws({ distribution: d, seed: 7 }, 500)).toEqual(seven);
    const eight = draws({ distribution: d, seed: 8 }, 500);
    expect(eight.filter((s, i) => s !== seven[i]).length).toBeGreaterThan(450);
    // The config carries the seed given, and a default one when none is.
    const env = { FILE_SIZE: '1KiB..2KiB', SOURCE_METHOD: 'small-files', BLOB_CACHER_SEED: '7' };
    expect(loadDownloadConfig({}, { env }).fileSizes?.seed).toBe(7);
    const a = loadUploadConfig({}, { env: { FILE_SIZE: '1KiB..2KiB' } }).fileSizes!;
    const b = loadUploadConfig({}, { env: { FILE_SIZE: '1KiB..2KiB' } }).fileSizes!;
    expect(draws(a, 100)).toEqual(draws(b, 100));
  });

  it('draws each form within its bounds, in about its shares', () => {
    const n = 20_000;
    const lognormal = draws({ distribution: d, seed: 1 }, n).sort((x, y) => x - y);
    const median = lognormal[n / 2]!;
    expect(median).toBeGreaterThan(0.9 * 256 * KIB);
    expect(median).toBeLessThan(1.1 * 256 * KIB);
    const wide = dist('lognormal:median=256KiB,sigma=3,min=64KiB,max=1MiB');
    const clamped = draws({ distribution: wide, seed: 1 }, n);
    expect(Math.min(...clamped)).toBe(64 * KIB);
    expect(Math.max(...clamped)).toBe(MIB);
    const uniform = draws({ distribution: parse('4KiB..16MiB') as SizeDistribution, seed: 1 }, n);
    expect(Math.min(...uniform)).toBeGreaterThanOrEqual(4 * KIB);
    expect(Math.max(...uniform)).toBeLessThanOrEqual(16 * MIB);
    // Log-uniform: as many files below the geometric middle (256KiB) as above it.
    const log = draws({ distribution: parse('log:4KiB..16MiB') as SizeDistribution, seed: 1 }, n);
    expect(Math.abs(log.filter((s) => s <= 256 * KIB).length / n - 0.5)).toBeLessThan(0.03);
    const weighted = draws({ distribution: dist('4KiB:50%,1MiB:40%,64MiB:10%'), seed: 1 }, n);
    expect(Math.abs(weighted.filter((s) => s === 4 * KIB).length / n - 0.5)).toBeLessThan(0.02);
    expect(Math.abs(weighted.filter((s) => s === 64 * MIB).length / n - 0.1)).toBeLessThan(0.01);
  });
});

describe('a drawn file set', () => {
  const draw: SizeDraw = { distribution: dist('lognormal:median=64KiB,sigma=1.2'), seed: 3 };
  const set = FileSet.of('many/x', 1000, 1, 'set', draw);

  it('gives each file its drawn size, end to end in the delivered whole', () => {
    const files = [...set];
    expect(files.map((f) => f.lengthBytes)).toEqual(draws(draw, 1000));
    for (let i = 1; i < files.length; i++) {
      expect(files[i]!.destOffsetBytes).toBe(files[i - 1]!.destOffsetBytes + files[i - 1]!.lengthBytes);
    }
    expect(totalBytes(set)).toBe(files.reduce((a, f) => a + f.lengthBytes, 0));
    expect(largestBytes(set)).toBe(Math.max(...files.map((f) => f.lengthBytes)));
    // A worker's share (every 3rd file) keeps the same files at the same places.
    const share = set.every(1, 3);
    const mine = files.filter((_, i) => i % 3 === 1);
    expect([...share].map((f) => f.destOffsetBytes)).toEqual(mine.map((f) => f.destOffsetBytes));
    expect(totalBytes(share)).toBe(mine.reduce((a, f) => a + f.lengthBytes, 0));
  });

  it('uploads from a pool of its distinct contents, each file a prefix of one', async () => {
    const upload = FileSet.of('up', 2000, 1, 'upload', draw);
    const offsets = new Set([...upload].map((f) => f.destOffsetBytes));
    // One buffer per distinct content at the largest size: the pool's bound, not 2,000 files.
    const largest = largestBytes(upload);
    expect(offsets.size * largest).toBeLessThanOrEqual(Math.max(PAYLOAD_POOL_BYTES, largest));
    const payloads = await Payloads.of(upload);
    for (const f of [...upload].slice(0, 40)) {
      expect(payloads.of(f).equals(contentBuffer(FIXTURE_SEED, f.destOffsetBytes, f.lengthBytes))).toBe(true);
    }
  });

  it("groups a report by the user's buckets, or by powers of two", () => {
    const weighted = dist('4KiB:50%,1MiB:40%,64MiB:10%');
    expect(bucketEdges(weighted, 4 * KIB, 64 * MIB)).toEqual([4 * KIB, MIB, 64 * MIB]);
    expect(bucketEdges(draw.distribution, 3000, 70_000)).toEqual([4096, 8192, 16384, 32768, 65536, 131072]);
  });
});

describe('a distribution in a sweep', () => {
  it('is one value of --file-size, not an axis of its comma-separated parts', () => {
    const argv = ['download', '--file-size', '4KiB:50%,1MiB:50%', '--max-sockets', '1,4'];
    const { axes, fixed } = findAxes(argv);
    expect(axes.map((a) => a.flag)).toEqual(['--max-sockets']);
    expect(fixed).toContain('--file-size=4KiB:50%,1MiB:50%');
    const fixedSizes = findAxes(['--file-size', '4KiB,1MiB']).axes;
    expect(fixedSizes).toEqual([{ flag: '--file-size', values: ['4KiB', '1MiB'] }]);
  });
});
