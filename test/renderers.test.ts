// Every renderer formats one fixed Report: the same ranks, verdicts, recommendation, cost and sweep
// grid in console, Markdown, CSV, JSON and HTML; nothing runs. A figure that does not exist prints
// as "—", never NaN or Infinity.
import { describe, expect, it } from 'vitest';
import { buildReport, type Report } from '../src/analysis/report-model.js';
import { renderReport } from '../src/report/render.js';
import { newResultsFile } from '../src/results/file.js';
import type { Cell, RunRecord } from '../src/results/schema.js';
import { FORMATS } from '../src/config/options.js';
import { money, timeWentLine } from '../src/report/format.js';

const MiB = 1024 * 1024;

/** One measured run as a results file holds it: `requests` GETs moving 8 MiB in `wallMs`. */
function run(
  strategy: string,
  description: string,
  cell: Cell,
  index: number,
  wallMs: number,
  requests: number,
  verified = true,
): RunRecord {
  return {
    strategy,
    cell,
    description,
    unit: 'MiB/s',
    run: index,
    warmup: false,
    objectSizeBytes: 8 * MiB,
    wallMs,
    params: { processes: 1, maxSockets: 8, concurrency: Number(cell['--concurrency']) },
    bytes: verified ? 8 * MiB : 0,
    requests,
    failedRequests: verified ? 0 : requests,
    reusedSockets: 0,
    retries: 0,
    throttled: 0,
    backoffMs: 0,
    phaseSumsMs: {},
    requestSumMs: wallMs * requests,
    histograms: {},
    verified,
    verification: verified ? 'md5 ok' : '1 request(s) failed: HTTP 500',
    workers: [],
    records: [],
    recordsSampled: false,
  };
}

const jitter = [0, 3, -2, 1, -1];
const times = (base: number) => jitter.map((j) => base + j);

/**
 * A sweep of --concurrency 2,4: chunked at 4 and 2 tie, single trails, the SDK is 3x slower, assemble failed.
 */
function fixedReport(): Report {
  const doc = newResultsFile('download', { concurrency: 2 }, { kind: 'url', label: 'url example.test' });
  doc.sweep = [{ flag: '--concurrency', values: ['2', '4'] }];
  doc.complete = true;
  for (const c of ['2', '4']) {
    const cell = { '--concurrency': c };
    times(c === '4' ? 100 : 101).forEach((t, i) =>
      doc.runs.push(run('chunked', 'N ranged GETs of one blob', cell, i, t, Number(c))),
    );
    times(150).forEach((t, i) => doc.runs.push(run('single', 'one GET of the whole blob', cell, i, t, 1)));
    times(300).forEach((t, i) => doc.runs.push(run('sdk', 'SDK downloadToBuffer (baseline)', cell, i, t, 1)));
  }
  doc.runs.push(run('assemble', 'N part blobs concatenated', { '--concurrency': '2' }, 0, 0, 2, false));
  return buildReport(doc, { title: 'fixed sweep' });
}

describe('one Report, five formats', async () => {
  const report = fixedReport();
  const out = Object.fromEntries(
    await Promise.all(
      FORMATS.map(async (f) => [f, await renderReport(report, f, { resultsPath: 'r.json' })] as const),
    ),
  );

  it('the model itself holds what every format must show', () => {
    expect(report.recommendation?.contender).toBe('chunked [--concurrency 2]');
    expect(report.sweep?.best).toBe('chunked [--concurrency 4]');
    expect(report.sweep?.tied.sort()).toEqual(['chunked [--concurrency 2]', 'chunked [--concurrency 4]']);
    expect(report.verdicts.map((v) => v.kind)).toEqual(['tie', 'faster', 'faster', 'faster', 'faster']);
    expect(report.contenders.at(-1)).toMatchObject({ label: 'assemble [--concurrency 2]', verified: false });
  });

  it('JSON is the Report less its tables (the same figures laid out), versioned', () => {
    const { tables, ...figures } = report;
    expect(tables.ranked.columns.length).toBeGreaterThan(0);
    expect(JSON.parse(out.json!)).not.toHaveProperty('tables');
    expect(JSON.parse(out.json!)).toEqual(
      JSON.parse(
        JSON.stringify(figures, (_k, v: unknown) =>
          typeof v === 'number' && !Number.isFinite(v) ? null : v,
        ),
      ),
    );
    expect(JSON.parse(out.json!)).toMatchObject({ schema: 'blob-cacher/report', schemaVersion: 1 });
  });

  for (const format of ['console', 'md', 'html'] as const) {
    it(`${format}: ranks, verdicts, recommendation, cost and the sweep grid`, () => {
      const text =
        format === 'html'
          ? out
              .html!.replace(/&#39;/g, "'")
              .replace(/&quot;/g, '"')
              .replace(/&amp;/g, '&')
          : out[format]!;
      expect(text).toContain(report.recommendation!.text);
      for (const v of report.verdicts) expect(text, v.text).toContain(v.text);
      expect(text).toMatch(/1=/);
      // Cost: chunked at concurrency 4 makes 4 reads per object, $0.002 per 1,000 objects on the hot tier.
      expect(report.contenders[0]!.cost.tiers[0]!.tier).toBe('hot');
      expect(report.contenders[0]!.cost.tiers[0]!.per1000Objects).toBeCloseTo(
        (1000 * 4 * 0.005) / 10_000,
        12,
      );
      expect(text).toContain(money(report.contenders[0]!.cost.tiers[0]!.per1000Objects));
      // The grid: both cells of --concurrency, the best one's value.
      const best = report.sweep!.grid.values[0]![1]!;
      expect(text).toContain(best.toFixed(0));
      expect(text).toMatch(/concurrency 4/);
      for (const w of report.warnings.filter((x) => x.kind !== 'target-on-this-machine'))
        expect(text, w.kind).toContain(w.text);
    });
  }

  it(
    'csv: one row per contender, the swept option in its own column, rank, tie, ' + 'cost and verdict fields',
    () => {
      const [head, ...rows] = out.csv!.split('\n').map((l) => l.split(','));
      expect(rows).toHaveLength(report.contenders.length);
      const at = (name: string) => head!.indexOf(name);
      for (const name of [
        'rank',
        'tied',
        'concurrency',
        'cost_per_1000_objects_hot',
        'requests_per_object',
        'verdict',
        'slower_ratio',
        'recommended',
        'sweep_best',
        'sweep_tied',
      ])
        expect(at(name), name).toBeGreaterThanOrEqual(0);
      const row = (label: string) =>
        rows.find(
          (r) =>
            r[at('strategy')] === label.split(' ')[0] &&
            r[at('concurrency')] === /concurrency (\d)/.exec(label)![1],
        )!;
      expect(row('chunked [--concurrency 2]')[at('recommended')]).toBe('true');
      expect(row('chunked [--concurrency 4]')[at('sweep_best')]).toBe('true');
      expect(row('sdk [--concurrency 2]')[at('verdict')]).toBe('slower');
      expect(Number(row('sdk [--concurrency 2]')[at('slower_ratio')])).toBeCloseTo(3, 0);
      expect(Number(row('chunked [--concurrency 4]')[at('requests_per_object')])).toBe(4);
      // No server clock was read here: the columns are there, and empty.
      for (const name of ['server_span_ms_median', 'over_server_span_ms', 'server_span_bound_ms'])
        expect(row('sdk [--concurrency 2]')[at(name)], name).toBe('');
    },
  );

  it('a figure that does not exist prints as "—", never NaN, Infinity or -1±0', () => {
    for (const f of ['console', 'md', 'csv', 'html'] as const)
      expect(out[f], f).not.toMatch(/NaN|Infinity|-1±0/);
    expect(out.console).toMatch(/^\d+\s+assemble\s+2\s+—/m);
  });

  it('console: sweep rows never wrap at 120 columns', () => {
    for (const line of out.console!.split('\n').slice(0, -1))
      if (!line.startsWith('verdict') && !line.startsWith('warning') && !line.startsWith('details'))
        expect(line.length, line).toBeLessThanOrEqual(120);
  });
});

describe('where the time went, and the spread of few runs', async () => {
  // Two runs of each, as a quick run gives: the seed's phase shares, a range and never an interval.
  const doc = newResultsFile('upload', {}, { kind: 'url', label: 'url example.test' });
  doc.complete = true;
  for (const [i, wallMs] of [541, 480].entries()) {
    doc.runs.push({
      ...run('small-files', 'one Put Blob per small file', {}, i, wallMs, 2400),
      unit: 'ops/s',
      reusedSockets: 2400 - 128,
      // Per run: 2400 requests, 1000 ms of request time, 128 of them on new sockets.
      requestSumMs: 1000,
      phaseSumsMs: { wait: 910, dns: 10, tcp: 4, send: 6, firstByte: 68, download: 2 },
    });
  }
  const report = buildReport(doc, { title: 'two runs' });
  const out = Object.fromEntries(
    await Promise.all(
      FORMATS.map(async (f) => [f, await renderReport(report, f, { resultsPath: 'r.json' })] as const),
    ),
  );

  it("the model holds each phase's share of request time and the sockets opened", () => {
    expect(report.timeWent).toEqual([
      {
        contender: 'small-files',
        requestsPerRun: 2400,
        socketsOpenedPerRun: 128,
        shares: [
          ['wait', 0.91],
          ['dns', 0.01],
          ['tcp', 0.004],
          ['send', 0.006],
          ['firstByte', 0.068],
          ['download', 0.002],
        ].map(([phase, share]) => ({ phase, share })),
      },
    ]);
    expect(report.contenders[0]!.timeBounds).toEqual({
      of: 'range',
      lowMs: 480,
      highMs: 541,
      fromMedianMs: 30.5,
    });
  });

  it("console, Markdown and HTML give the line in the seed's shape", () => {
    const line =
      'small-files: wait 91%, dns 1%, tcp 0%, send 1%, firstByte 7%, download 0% of request time; ' +
      '128 new sockets for 2400 requests a run';
    expect(timeWentLine(report.timeWent[0]!)).toBe(line);
    expect(out.console!.split('\n')).toContain(line);
    expect(out.md!.split('\n')).toContain(`- ${line}`);
    expect(out.html).toContain(`<li data-strategy="small-files">${line}</li>`);
  });

  it('below five runs a range (min–max), never a ± interval', () => {
    expect(out.console).toMatch(/^1\s+small-files\s+511 \(480–541\)\s/m);
    expect(out.console).not.toMatch(/\d±\d/);
    expect(out.md).toContain('| 511 | 480–541 (range) |');
    expect(out.html).toContain('511 <span class="pm">(480–541)</span>');
  });
});

describe("the interval beside a median is the median's own", async () => {
  // Twenty runs, four of them slow: the mean's interval (about 12-32 ms) leaves the median (11 ms) out.
  const doc = newResultsFile('download', {}, { kind: 'url', label: 'url example.test' });
  doc.complete = true;
  const fast = [10, 11, 12, 10, 11, 12, 10, 11, 12, 10, 11, 12, 10, 11, 12, 11];
  for (const [i, wallMs] of [...fast, 60, 65, 70, 65].entries()) {
    doc.runs.push(run('single', 'one GET', {}, i, wallMs, 1));
  }
  const report = buildReport(doc, { title: 'two slow runs' });
  const [single] = report.contenders;
  const out = await renderReport(report, 'md', { resultsPath: 'r.json' });

  it("holds the median, from the sign test's order statistics, and ± reaches its wider end", () => {
    expect(single!.wallMs.median).toBe(11);
    expect(single!.wallMs.ci95Low).toBeGreaterThan(11);
    // n = 20: the 6th and 15th smallest, at least 95% by the binomial distribution.
    expect(single!.timeBounds).toEqual({ of: 'ci95', lowMs: 11, highMs: 12, fromMedianMs: 1 });
    expect(out).toContain('| 11.0 | 11.0–12.0 (95% CI) |');
  });
});

describe('compare: one CompareReport, five formats', async () => {
  const { buildCompareReport } = await import('../src/analysis/compare.js');
  const { renderCompare } = await import('../src/report/compare.js');
  const docOf = (base: number, cc: string) => {
    const doc = newResultsFile('download', {}, { kind: 'url', label: 'url example.test' });
    doc.complete = true;
    doc.environment.tcp = { congestionControl: cc };
    times(base).forEach((t, i) => doc.runs.push(run('chunked', 'N ranged GETs of one blob', {}, i, t, 4)));
    return doc;
  };
  const report = buildCompareReport(docOf(100, 'bbr'), docOf(150, 'cubic'), ['a.json', 'b.json']);
  const out = Object.fromEntries(FORMATS.map((f) => [f, renderCompare(report, f)] as const));

  it('every format carries the change, its verdict and the environments that differ', () => {
    expect(report.changes).toEqual([
      expect.objectContaining({ strategy: 'chunked', verdict: 'slower', significant: true }),
    ]);
    expect(report.environmentDifferences).toEqual([
      { field: 'TCP congestion control', base: 'bbr', next: 'cubic' },
    ]);
    expect(out.html!.startsWith('<!doctype html>')).toBe(true);
    expect(JSON.parse(out.json!)).toEqual(JSON.parse(JSON.stringify(report)));
    expect(out.csv!.split('\n')[1]).toMatch(/^chunked,100,150,50,1\.5,.*,true,slower,$/);
    for (const f of ['console', 'md', 'html'] as const) {
      expect(out[f], f).toMatch(/slower \(p=0\.0\d\d\)/);
      expect(out[f], f).toMatch(/TCP congestion control bbr vs cubic|TCP congestion control: bbr vs cubic/);
    }
    expect(out.md).toMatch(/^\| chunked \| 100 \| 150 \| \+50\.0% \|/m);
  });
});
