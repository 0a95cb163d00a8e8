// Each number in a report's table says its unit: a large blob (MiB/s) beside many small files
// (ops/s) in one upload session must not print ops under a MiB/s header, in any format.
import { describe, expect, it } from 'vitest';
import { renderReport } from '../src/report/render.js';
import type { RunRecord, Unit } from '../src/results/schema.js';
import { reportOf } from './helpers/report.js';

const MiB = 1024 * 1024;

/** One verified run moving `bytes` in `requests` (over `files` files, counted in ops/s). */
function run(
  strategy: string,
  unit: Unit,
  index: number,
  wallMs: number,
  bytes: number,
  requests: number,
  files?: number,
): RunRecord {
  return {
    strategy,
    description: strategy,
    unit,
    run: index,
    warmup: false,
    wallMs,
    objectSizeBytes: files ? bytes / files : bytes,
    ...(files ? { params: { processes: 1, maxSockets: 16, concurrency: 16, fileCount: files } } : {}),
    bytes,
    requests,
    failedRequests: 0,
    reusedSockets: 0,
    retries: 0,
    throttled: 0,
    backoffMs: 0,
    phaseSumsMs: {},
    requestSumMs: wallMs * requests,
    histograms: {},
    verified: true,
    verification: 'md5 ok',
    workers: [],
    records: [],
    recordsSampled: false,
  };
}

/** blocks: 4 MiB in ~60 ms (~67 MiB/s); small-files: 50 files of 4 KiB in ~80 ms (~625 ops/s). */
const mixed = () =>
  reportOf(
    [
      ...[60, 61, 59, 62, 60].map((t, i) => run('blocks', 'MiB/s', i, t, 4 * MiB, 6)),
      ...[80, 81, 79, 82, 80].map((t, i) => run('small-files', 'ops/s', i, t, 50 * 4096, 50, 50)),
    ],
    { command: 'upload' },
  );

describe('a table mixing MiB/s and ops/s', () => {
  it('console: the column is "rate" and each row names its own unit', async () => {
    const lines = (await renderReport(mixed(), 'console')).split('\n');
    const head = lines.find((l) => l.startsWith('#'))!;
    expect(head).not.toMatch(/MiB\/s|ops\/s/);
    expect(head).toMatch(/\brate\b/);
    expect(lines.find((l) => /\bblocks\b/.test(l) && /^\d/.test(l))).toMatch(/\b6\d\.\d MiB\/s\b/);
    expect(lines.find((l) => /\bsmall-files\b/.test(l) && /^\d/.test(l))).toMatch(/\b6\d\d ops\/s\b/);
  });

  it('Markdown: the same', async () => {
    const rows = (await renderReport(mixed(), 'md')).split('\n').filter((l) => l.startsWith('|'));
    const cells = (l: string) =>
      l
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim());
    const col = cells(rows[0]!).indexOf('rate');
    expect(col).toBeGreaterThan(0);
    expect(cells(rows.find((l) => l.includes('small-files'))!)[col]).toMatch(/^6\d\d ops\/s$/);
    expect(cells(rows.find((l) => l.includes('blocks'))!)[col]).toMatch(/^6\d\.\d MiB\/s$/);
  });

  it('CSV keeps a unit per row and HTML a column per unit', async () => {
    const report = mixed();
    const csv = (await renderReport(report, 'csv')).split('\n').map((l) => l.split(','));
    const unit = csv[0]!.indexOf('unit');
    const units = Object.fromEntries(csv.slice(1).map((r) => [r[1], r[unit]]));
    expect(units).toEqual({ blocks: 'MiB/s', 'small-files': 'ops/s' });
    const html = await renderReport(report, 'html');
    expect(html).toMatch(/<th[^>]*>MiB\/s<\/th>/);
    expect(html).toMatch(/<th[^>]*>ops\/s<\/th>/);
  });

  it('one unit throughout keeps it in the header', async () => {
    const runs = [60, 61, 59].map((t, i) => run('blocks', 'MiB/s', i, t, 4 * MiB, 6));
    const report = reportOf(runs, { command: 'upload' });
    const head = (await renderReport(report, 'console')).split('\n').find((l) => l.startsWith('#'))!;
    expect(head).toMatch(/\bMiB\/s\b/);
  });
});
