// The column model (analysis/columns.ts): each table of the Report is one list of columns, and every
// renderer draws the columns its medium's view names. Checked by relabelling: every header a medium
// shows is replaced in the model by a marker, and each marker must appear in what the renderer
// prints. A header a renderer listed itself would keep its own words and fail.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Column, Medium, Table } from '../src/analysis/columns.js';
import { buildReport, type Report } from '../src/analysis/report-model.js';
import { parseThresholds, type Threshold } from '../src/config/thresholds.js';
import { renderReport } from '../src/report/render.js';
import type { ResultsFile } from '../src/results/schema.js';

const golden = (name: string) =>
  JSON.parse(readFileSync(join(import.meta.dirname, 'golden', name), 'utf8')) as ResultsFile;

function thresholds(raw: string, doc: ResultsFile): Threshold[] {
  const parsed = parseThresholds(raw, [...new Set(doc.runs.map((r) => r.strategy))]);
  if (!Array.isArray(parsed)) throw new Error(parsed.problem);
  return parsed;
}

/** Every table of the report, by name. */
const tablesOf = (r: Report): [string, Table][] => [
  ['ranked', r.tables.ranked],
  ...r.tables.sizeBuckets.map((t) => [`sizes ${t.contender}`, t.table] as [string, Table]),
  ...r.tables.steady.map((t) => [`steady ${t.contender}`, t.table] as [string, Table]),
  ...(r.tables.thresholds ? [['thresholds', r.tables.thresholds] as [string, Table]] : []),
];

/** The report with each shown header of one medium (and each CSV id) replaced by a marker. */
function relabelled(
  r: Report,
  table: (r: Report) => Table,
  medium: Medium,
): { report: Report; markers: string[] } {
  const copy = structuredClone(r);
  const t = table(copy);
  const shown = new Set(t.views[medium] ?? []);
  const markers: string[] = [];
  (t.columns as Column[]).forEach((c, i) => {
    if (!shown.has(c.id) || (c.header === '' && !c.headers)) return;
    const marker = `HDR${i}X`;
    markers.push(marker);
    c.header = marker;
    c.headers = Object.fromEntries(Object.keys(c.headers ?? {}).map((m) => [m, marker]));
    if (medium === 'csv') c.id = marker;
  });
  if (medium === 'csv')
    (t.views as Record<string, string[]>).csv = t.columns
      .map((c) => c.id)
      .filter((id) => shown.has(id) || id.startsWith('HDR'));
  return { report: copy, markers };
}

describe('the column model', async () => {
  const sizes = golden('sizes.json');
  const check = JSON.parse(
    readFileSync(join(import.meta.dirname, 'golden', 'check', 'new.json'), 'utf8'),
  ) as ResultsFile;
  const reports = {
    sweep: buildReport(golden('sweep.json'), { title: 't' }),
    sizes: buildReport(sizes, { title: 't' }),
    steady: buildReport(golden('steady.json'), { title: 't' }),
    gated: buildReport(check, { title: 't', thresholds: thresholds('p99<1ms; errors==0', check) }),
  };

  it('every view names columns of its table, and every column has a value per row', () => {
    for (const r of Object.values(reports))
      for (const [name, t] of tablesOf(r)) {
        const ids = new Set(t.columns.map((c) => c.id));
        expect(ids.size, `${name}: ids are unique`).toBe(t.columns.length);
        for (const view of Object.values(t.views)) for (const id of view) expect(ids, name).toContain(id);
        const rows = new Set(t.columns.map((c) => c.values.length));
        expect(rows.size, `${name}: one value per row in every column`).toBeLessThanOrEqual(1);
      }
    expect(reports.sweep.tables.ranked.columns.map((c) => c.values.length)[0]).toBe(
      reports.sweep.contenders.length,
    );
  });

  type Case = [
    string,
    keyof typeof reports,
    Medium,
    'console' | 'md' | 'html' | 'csv',
    (r: Report) => Table,
    true?,
  ];
  const cases: Case[] = [
    ['ranked', 'sweep', 'console', 'console', (r) => r.tables.ranked],
    ['ranked', 'sweep', 'md', 'md', (r) => r.tables.ranked],
    ['ranked', 'sweep', 'html', 'html', (r) => r.tables.ranked],
    ['ranked', 'sweep', 'csv', 'csv', (r) => r.tables.ranked],
    ['ranked', 'sizes', 'csv', 'csv', (r) => r.tables.ranked],
    ['size buckets', 'sizes', 'console', 'console', (r) => r.tables.sizeBuckets[0]!.table, true],
    ['size buckets', 'sizes', 'console-brief', 'console', (r) => r.tables.sizeBuckets[0]!.table],
    ['size buckets', 'sizes', 'md', 'md', (r) => r.tables.sizeBuckets[0]!.table],
    ['size buckets', 'sizes', 'html', 'html', (r) => r.tables.sizeBuckets[0]!.table],
    ['thresholds', 'gated', 'md', 'md', (r) => r.tables.thresholds!],
    ['thresholds', 'gated', 'html', 'html', (r) => r.tables.thresholds!],
  ];
  it.each(cases)(
    "the %s table of %s: each %s header is the model's",
    async (_n, input, medium, format, table, details) => {
      const { report, markers } = relabelled(reports[input], table, medium);
      expect(markers.length).toBeGreaterThan(2);
      const out = await renderReport(report, format, { color: false, details: details === true });
      for (const m of markers) expect(out, `${m} in the ${format} output`).toContain(m);
    },
  );
});
