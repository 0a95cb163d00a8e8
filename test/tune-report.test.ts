// A tune's report from a results file, nothing run: the answer is never a failed or unmeasured
// cell, its words agree with its own neighbours, a start already throttled is said as such, a
// damaged path cannot throw in a renderer, and a long path costs one comparison per distinct cell.
import { describe, expect, it } from 'vitest';
import { buildReport } from '../src/analysis/report-model.js';
import { FORMATS } from '../src/config/options.js';
import { renderReport } from '../src/report/render.js';
import { newResultsFile } from '../src/results/file.js';
import type { Cell, ResultsFile, RunRecord, TuneStep } from '../src/results/schema.js';
import { parseResultsDoc } from '../src/results/validate.js';

const MiB = 1024 * 1024;
const AXES = [
  { flag: '--concurrency', values: ['1', '2', '4', '8', '16'], ordered: true },
  { flag: '--max-sockets', values: ['4', '8', '16'], ordered: true },
];

/** One measured run of chunked in `cell`: 8 MiB in `wallMs`; `verified` false makes it a failed run. */
function run(cell: Cell, index: number, wallMs: number, verified = true): RunRecord {
  return {
    strategy: 'chunked',
    cell,
    description: 'N ranged GETs of one blob',
    unit: 'MiB/s',
    run: index,
    warmup: false,
    objectSizeBytes: 8 * MiB,
    wallMs,
    bytes: verified ? 8 * MiB : 0,
    requests: 4,
    failedRequests: verified ? 0 : 4,
    reusedSockets: 0,
    retries: 0,
    throttled: 0,
    backoffMs: 0,
    phaseSumsMs: {},
    requestSumMs: wallMs * 4,
    histograms: {},
    verified,
    verification: verified ? 'md5 ok' : '4 request(s) failed: wrong Content-Range',
    ...(verified ? {} : { error: 'wrong Content-Range' }),
    workers: [],
    records: [],
    recordsSampled: false,
  };
}

const cellOf = (c: string, s: string): Cell => ({ '--concurrency': c, '--max-sockets': s });
const step = (cell: Cell, reason: TuneStep['reason'], throttled = 0): TuneStep => ({
  cell,
  reason,
  spentMs: 500,
  throttled,
  ...(throttled ? { throttleClass: 'operations' as const } : {}),
});
type Tune = NonNullable<ResultsFile['tune']>;

function tuneDoc(runs: RunRecord[], path: TuneStep[], best?: Cell, extra: Partial<Tune> = {}): ResultsFile {
  const doc = newResultsFile('download', {}, { kind: 'url', label: 'url example.test' });
  doc.complete = true;
  doc.runs = runs;
  doc.tune = {
    direction: 'download',
    axes: AXES,
    budgetMs: 60_000,
    fixed: { '--source-method': 'chunked' },
    stopped: 'converged',
    path,
    throttling: [],
    ...(best ? { best } : {}),
    ...extra,
  };
  return doc;
}

const times = (base: number, jitter = [0, 0.4, -0.3, 0.2, -0.1]) => jitter.map((j) => base + j);
const runsOf = (cell: Cell, ms: number[]) => ms.map((t, i) => run(cell, i, t));
async function render(doc: ResultsFile): Promise<Record<string, string>> {
  const report = buildReport(doc, { title: 't' });
  const out = await Promise.all(FORMATS.map(async (f) => [f, await renderReport(report, f)] as const));
  return Object.fromEntries(out);
}

describe('a tune report never names a failed or unmeasured cell best', () => {
  it('every cell failed: no best, no deploy lines, no recommendation, in any format', async () => {
    const start = cellOf('8', '16');
    const other = cellOf('16', '16');
    const failed = (cell: Cell, ms: number) => [0, 1].map((i) => run(cell, i, ms, false));
    const runs = [...failed(start, 15), ...failed(other, 14)];
    // As an older build wrote it: the start named best although it failed.
    const doc = tuneDoc(runs, [step(start, 'start'), step(other, 'grow')], start);
    const report = buildReport(doc, { title: 't' });
    expect(report.tune!.best).toBeUndefined();
    expect(report.tune!.deploy).toBeUndefined();
    expect(report.recommendation).toBeUndefined();
    const out = await render(doc);
    expect(out.console).toMatch(/^best: none — no cell measured ran without failing/m);
    expect(out.console).toMatch(/^tune: 2 cells .*; ended: no cell left to try$/m);
    for (const f of ['console', 'md', 'html']) {
      expect(out[f], f).not.toMatch(/MiB\/s, [\d.]+ ms a run/);
      expect(out[f], f).not.toContain('k8s-manifest');
      expect(out[f], f).not.toContain('SOURCE_METHOD=');
    }
  });

  it('a tune stopped before any run: no best and no deploy lines for the start cell', async () => {
    const out = await render(tuneDoc([], [], cellOf('8', '16'), { stopped: 'signal' }));
    expect(out.console).toMatch(/^best: none — no cell was measured/m);
    expect(out.console).not.toMatch(/^deploy:/m);
    expect(out.html).not.toContain('k8s-manifest');
  });
});

describe('a tune report says what its own figures say', () => {
  it('a neighbour faster by under 2% says why it was not taken, and the stop line allows it', async () => {
    const best = cellOf('4', '8');
    const more = cellOf('8', '8');
    const runs = [...runsOf(best, times(100)), ...runsOf(more, times(98.6))];
    const out = await render(tuneDoc(runs, [step(best, 'start'), step(more, 'grow')], best));
    const line = out.console!.split('\n').find((l) => l.startsWith('  concurrency 8:'))!;
    expect(line).toMatch(/0\.99x faster \(95% CI .*\), not taken: under the 2% worth asking more for$/);
    const stop = /converged: no unthrottled neighbour of the best was significantly faster by 2% or more/;
    expect(out.console).toMatch(stop);
  });

  it('a start already throttled is said as such', async () => {
    const start = cellOf('8', '16');
    const fewer = cellOf('4', '16');
    const runs = [...runsOf(start, times(100)), ...runsOf(fewer, times(110))];
    const out = await render(tuneDoc(runs, [step(start, 'start', 12), step(fewer, 'refine')], fewer));
    expect(out.console).toMatch(/^throttled from the start: concurrency 8, max-sockets 16 met throttling/m);
    expect(out.console).not.toMatch(/^throttling began at/m);
  });

  it('the best that asks for less than the fastest is called as fast as it, not the fastest', async () => {
    const fast = cellOf('8', '8');
    const less = cellOf('4', '8');
    const spread = [0, 3, -3, 2, -2];
    const runs = [...runsOf(fast, times(100, spread)), ...runsOf(less, times(100.5, spread))];
    const doc = tuneDoc(runs, [step(fast, 'start'), step(less, 'refine')], less);
    const report = buildReport(doc, { title: 't' });
    const said = /— [\d.]+ MiB\/s, as fast as the fastest cell the search found \(--concurrency 8 --max-/;
    expect(report.recommendation?.text).toMatch(said);
    expect(report.recommendation?.text).not.toContain('the fastest the search found');
  });
});

describe('a damaged or long tune path', () => {
  it('a path cell without a searched axis is refused on read, and the HTML renderer takes one', async () => {
    const best = cellOf('4', '8');
    const partial = { '--concurrency': '8' };
    const doc = tuneDoc(runsOf(best, times(100)), [step(best, 'start'), step(partial, 'grow')], best);
    const read = parseResultsDoc(JSON.parse(JSON.stringify(doc)));
    expect(read).toEqual({ problem: 'has a bad tune description; it is damaged' });
    const html = await renderReport(buildReport(doc, { title: 't' }), 'html');
    expect(html).toContain('data-chart="tune---max-sockets"');
  });

  it('a 20,000-step path compares each distinct neighbour once', () => {
    const cells = [cellOf('4', '8'), cellOf('8', '8'), cellOf('4', '16')];
    const runs = cells.flatMap((c, k) => runsOf(c, times(100 + 10 * k)));
    const path = Array.from({ length: 20_000 }, (_, i) => step(cells[i % 3]!, i ? 'refine' : 'start'));
    const report = buildReport(tuneDoc(runs, path, cells[0]), { title: 't' });
    expect(report.tune!.path).toHaveLength(20_000);
    const neighbours = report.tune!.neighbours.map((n) => `${n.axis} ${n.value}`).sort();
    expect(neighbours).toEqual(['--concurrency 8', '--max-sockets 16']);
  });

  it('a schemaVersion that is a string is not called "version 3" by a reader of 2 to 3', () => {
    const parsed = parseResultsDoc({ ...tuneDoc([], [], undefined), schemaVersion: '3' });
    expect('problem' in parsed && parsed.problem).toMatch(/^has schemaVersion "3", not a number/);
    expect('problem' in parsed && parsed.problem).not.toMatch(/has schema version 3/);
  });
});
