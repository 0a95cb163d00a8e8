// A run of drawn file sizes end to end through the CLI, on the embedded Azurite: a lognormal
// download (median 256 KiB, fewer files than a user would draw) and an upload of weighted buckets
// each report throughput and latency per size bucket in every format (console, Markdown, CSV,
// JSON, HTML), every request counted in the bucket its size belongs to; the same seed moves the
// same sizes again, file by file, and another seed others.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseSizeDistribution } from '../src/config/size-distribution.js';
import { SEED_BARE_SIZE_BYTES } from '../src/config/options.js';
import { bucketEdges, sizeAt, type SizeDistribution } from '../src/plan/size-draw.js';
import type { Report } from '../src/analysis/report-model.js';
import { RECORD_COLUMNS, type ResultsFile } from '../src/results/schema.js';
import { runCli } from './helpers/cli.js';

const FILES = 120;
const LOGNORMAL = 'lognormal:median=256KiB,sigma=1.2,max=4MiB';
const dir = mkdtempSync(join(tmpdir(), 'size-buckets-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const distribution = (text: string) =>
  parseSizeDistribution(text, 1, 2 ** 40, SEED_BARE_SIZE_BYTES) as SizeDistribution;

async function cli(args: string[]): Promise<{ stdout: string; stderr: string; results: string }> {
  const r = await runCli(args, { cwd: dir, limitMs: 150_000 });
  expect(r.code, r.stderr).toBe(0);
  const results = /results: (\S+\.json)/.exec(r.stderr)?.[1];
  return { stdout: r.stdout, stderr: r.stderr, results: results ? join(dir, results) : '' };
}

async function formats(results: string): Promise<{ json: Report; md: string; csv: string; html: string }> {
  const out = async (format: string) => (await cli(['report', results, '--format', format])).stdout;
  const json = JSON.parse(await out('json')) as Report;
  return { json, md: await out('md'), csv: await out('csv'), html: await out('html') };
}

/** The bytes small-files moved for each file, by its index. */
function movedSizes(results: string): number[] {
  const doc = JSON.parse(readFileSync(results, 'utf8')) as ResultsFile;
  const [item, bytes] = [RECORD_COLUMNS.indexOf('item'), RECORD_COLUMNS.indexOf('bytes')];
  const out: number[] = [];
  const run = doc.runs.find((r) => r.strategy === 'small-files')!;
  for (const row of run.records) out[row[item] as number] = row[bytes] as number;
  return out;
}

/** One CSV line's cells, quoted ones (a description with commas) whole. */
function csvRow(line: string): string[] {
  const cells: string[] = [];
  for (const m of line.matchAll(/(?:^|,)("(?:[^"]|"")*"|[^,]*)/g)) {
    cells.push(m[1]!.replace(/^"|"$/g, '').replace(/""/g, '"'));
  }
  return cells;
}

/** Each bucket's requests as the drawn sizes say they must fall. */
function expectedCounts(edges: readonly number[], sizes: readonly number[]): Map<number, number> {
  const counts = new Map<number, number>();
  for (const s of sizes) {
    const edge = edges.find((e) => s <= e) ?? edges.at(-1)!;
    counts.set(edge, (counts.get(edge) ?? 0) + 1);
  }
  return counts;
}

type Formats = Awaited<ReturnType<typeof formats>>;

function expectEveryFormat(f: Formats, contenders: readonly string[], counts: Map<number, number>): void {
  const s = f.json.sizeBuckets!;
  expect(s.contenders.map((c) => c.contender).sort()).toEqual([...contenders].sort());
  for (const c of s.contenders) {
    expect(new Map(c.buckets.map((b) => [b.upToBytes, b.requests]))).toEqual(counts);
    for (const b of c.buckets) {
      expect(b.perRequestMiBps, `${c.contender} ≤${b.upToBytes}`).toBeGreaterThan(0);
      expect(b.p99Ms).toBeGreaterThanOrEqual(b.p50Ms);
    }
  }
  expect(f.md).toContain('### By object size');
  // One table row per bucket and contender (Markdown escapes the '>' of '>4KiB≤8KiB').
  const mdRows = f.md.split('\n').filter((l) => /^\| (\\>\S+)?≤\d/.test(l));
  expect(mdRows).toHaveLength(s.contenders.reduce((n, c) => n + c.buckets.length, 0));
  const [head, ...rows] = f.csv.trimEnd().split('\n').map(csvRow);
  for (const edge of counts.keys()) {
    const col = head!.indexOf(`size_le_${edge}_mibps`);
    expect(col, `size_le_${edge}_mibps`).toBeGreaterThan(0);
    for (const row of rows) expect(Number(row[col])).toBeGreaterThan(0);
  }
  expect(f.html).toContain('<section id="size-buckets">');
  const points = f.html.match(/<circle class="datum" data-strategy="[^"]+" data-bucket="\d+"/g) ?? [];
  expect(points).toHaveLength(s.contenders.reduce((n, c) => n + c.buckets.length, 0));
}

describe('a run of drawn sizes reports per size bucket in every format', () => {
  it('downloads a lognormal set; the same seed moves the same sizes again', async () => {
    const args = [
      'download',
      '--source-method',
      'small-files,sdk-small-files',
      '--file-count',
      String(FILES),
      '--file-size',
      LOGNORMAL,
      '--seed',
      '5',
      '--processes',
      '1',
      '--max-sockets',
      '4',
      '--sink',
      'discard',
    ];
    const first = await cli(args);
    expect(first.stderr).toMatch(new RegExp(`fixtures: ${FILES} created`));
    // The default console answer carries the leader's buckets, within the 30 lines it keeps to.
    expect(first.stdout).toMatch(/by object size \(seed 5\)/);
    expect(first.stdout.trimEnd().split('\n').length).toBeLessThanOrEqual(30);
    const d = distribution(LOGNORMAL);
    const sizes = Array.from({ length: FILES }, (_, i) => sizeAt({ distribution: d, seed: 5 }, i));
    const edges = bucketEdges(d, Math.min(...sizes), Math.max(...sizes));
    const f = await formats(first.results);
    expectEveryFormat(f, ['small-files', 'sdk-small-files'], expectedCounts(edges, sizes));
    // Each file moved its own drawn size; the same seed moves the same sizes again, another seed others.
    expect(movedSizes(first.results)).toEqual(sizes);
    expect(movedSizes((await cli(args)).results)).toEqual(sizes);
    const other = movedSizes((await cli([...args.slice(0, -8), '--seed', '6', ...args.slice(-6)])).results);
    expect(other).toHaveLength(FILES);
    expect(other.filter((s, i) => s !== sizes[i]).length).toBeGreaterThan(FILES * 0.9);
  }, 300_000);

  it("uploads weighted buckets and groups them by the user's sizes", async () => {
    const text = '4KiB:50%,64KiB:30%,1MiB:20%';
    const up = await cli([
      'upload',
      '--upload-method',
      'small-files',
      '--file-count',
      '80',
      '--file-size',
      text,
      '--processes',
      '1',
      '--max-sockets',
      '4',
    ]);
    const d = distribution(text);
    const sizes = Array.from({ length: 80 }, (_, i) => sizeAt({ distribution: d, seed: 1 }, i));
    const counts = expectedCounts([4096, 65536, 1048576], sizes);
    expectEveryFormat(await formats(up.results), ['small-files'], counts);
  }, 200_000);
});
