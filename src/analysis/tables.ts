// The report's smaller tables as columns (analysis/columns.ts): the figures per size bucket of one
// contender, --threshold's pass/fail rows, and a steady run's series.
import type { Column, Table } from './columns.js';
import type { SizeBucket } from './size-buckets.js';
import type { ThresholdRow } from './thresholds.js';

/** One contender's size buckets, a row each: the console, Markdown, HTML and (per bucket) CSV. */
export function sizeBucketTable(buckets: readonly SizeBucket[]): Table {
  const col = (id: string, header: string, format: Column['format'], of: (b: SizeBucket) => number) => ({
    id,
    header,
    format,
    values: buckets.map(of),
  });
  const columns: Column[] = [
    {
      id: 'size',
      header: 'size',
      format: 'bucket',
      values: buckets.map((b) => ({ fromBytes: b.fromBytes, upToBytes: b.upToBytes })),
    },
    col('requests', 'requests', 'int', (b) => b.requests),
    { ...col('mibps', 'MiB/s', 'num', (b) => b.perRequestMiBps), unit: 'MiB/s' },
    { ...col('ops_per_s', 'req/s', 'whole', (b) => b.perRequestOpsPerSecond), unit: 'req/s' },
    { ...col('p50_ms', 'p50 ms', 'num', (b) => b.p50Ms), unit: 'ms' },
    { ...col('p90_ms', 'p90 ms', 'num', (b) => b.p90Ms), unit: 'ms' },
    { ...col('p99_ms', 'p99 ms', 'num', (b) => b.p99Ms), unit: 'ms' },
  ];
  const all = columns.map((c) => c.id);
  return {
    columns,
    views: {
      console: all,
      // The console's default: five figures, a bucket a column.
      'console-brief': ['size', 'requests', 'mibps', 'p50_ms', 'p99_ms'],
      md: all,
      html: all,
      csv: all.filter((id) => id !== 'size'),
    },
  };
}

/** --threshold's rows: each rule against each contender it names, passed or failed, and the figure. */
export function thresholdTable(rows: readonly ThresholdRow[]): Table {
  const columns: Column[] = [
    { id: 'result', header: 'result', format: 'pass', values: rows.map((x) => x.passed) },
    { id: 'threshold', header: 'threshold', format: 'text', values: rows.map((x) => x.threshold) },
    { id: 'contender', header: 'contender', format: 'text', values: rows.map((x) => x.contender) },
    { id: 'measured', header: 'measured', format: 'text', values: rows.map((x) => x.note) },
  ];
  const all = columns.map((c) => c.id);
  return { columns, views: { console: all, md: all, html: all } };
}

/** A steady run's series as the text report draws it: a row per bucket of intervals, its rate. */
export function steadyTable(buckets: readonly number[]): Table {
  const rate: Column = {
    id: 'rate',
    header: 'rate',
    format: 'num',
    values: buckets,
    highest: Math.max(0, ...buckets),
  };
  return { columns: [rate], views: { console: ['rate'] } };
}
