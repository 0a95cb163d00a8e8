// A session's raw records stay within one run's worth, all its runs together,
// in memory and in the results file: each run cut to its even share, every failed request kept.
import { describe, expect, it } from 'vitest';
import type { OpRecord } from '../src/metrics/records.js';
import { RecordTable } from '../src/metrics/record-table.js';
import { failedRun, toRunRecord, type MeasuredRun } from '../src/results/record.js';
import {
  MAX_RECORDS_PER_SESSION,
  measuredRunAtMost,
  RecordBudget,
  runRecordAtMost,
} from '../src/results/record-budget.js';
import { MAX_RECORDS_PER_RUN } from '../src/results/schema.js';

const record = (item: number, error?: string): OpRecord => ({
  worker: 0,
  item,
  offsetBytes: item,
  bytes: 1,
  status: error ? 503 : 201,
  startEpochMs: item,
  totalMs: 1,
  phases: {},
  reused: true,
  retries: 0,
  throttled: 0,
  backoffMs: 0,
  ...(error ? { error } : {}),
});

/** A run of `n` records, item 7 failed. */
function run(n: number, index: number): MeasuredRun {
  const base = failedRun(
    { strategy: 'small-files', description: 'd', run: index, warmup: index === 0, objectSizeBytes: 0 },
    'x',
  );
  return {
    ...base,
    records: RecordTable.from(
      Array.from({ length: n }, (_, i) => record(i, i === 7 ? '503 Slow Down' : undefined)),
    ),
  };
}

describe('RecordBudget', () => {
  it(
    "one run's worth for the whole session: six runs of 20,000 hold 20,000 records (and their " +
      'failures), in memory and as rows',
    () => {
      expect(MAX_RECORDS_PER_SESSION).toBe(MAX_RECORDS_PER_RUN);
      const inMemory: MeasuredRun[] = [];
      const rows = [] as ReturnType<typeof toRunRecord>[];
      const memory = new RecordBudget(inMemory, measuredRunAtMost);
      const stored = new RecordBudget(rows, runRecordAtMost);
      for (let i = 0; i < 6; i++) {
        const r = run(MAX_RECORDS_PER_RUN, i);
        memory.push(r);
        stored.push(toRunRecord(r));
      }
      const share = Math.floor(MAX_RECORDS_PER_SESSION / 6);
      for (const list of [inMemory.map((r) => r.records.length), rows.map((r) => r.records.length)]) {
        // Each run its even share, plus its failed request where the spacing missed it.
        for (const n of list) expect(n).toBeGreaterThanOrEqual(share);
        for (const n of list) expect(n).toBeLessThanOrEqual(share + 1);
        expect(list.reduce((a, b) => a + b, 0)).toBeLessThanOrEqual(MAX_RECORDS_PER_SESSION + 6);
      }
      for (const r of inMemory) {
        expect(r.recordsSampled).toBe(true);
        expect(r.records.failed().map((f) => f.item)).toEqual([7]);
      }
      for (const r of rows) {
        expect(r.recordsSampled).toBe(true);
        expect(r.records.filter((row) => row.includes('503 Slow Down'))).toHaveLength(1);
      }
      // Evenly spread over the run, not its first rows.
      const items = inMemory[5]!.records.map((r) => r.item);
      expect(items.at(-1)).toBeGreaterThan(MAX_RECORDS_PER_RUN * 0.99);
    },
  );

  it('leaves runs alone while the session is within budget: a thousand runs of one record', () => {
    const runs: MeasuredRun[] = [];
    const budget = new RecordBudget(runs, measuredRunAtMost);
    const one = run(1, 1);
    for (let i = 0; i < 1000; i++) budget.push(one);
    expect(runs.every((r) => r === one)).toBe(true);
  });
});

describe('RecordBudget.room', () => {
  it('lets a run keep all its records while the session is within budget, else its share of it', () => {
    const runs: MeasuredRun[] = [];
    const budget = new RecordBudget(runs, measuredRunAtMost, 100);
    expect(budget.room(60)).toBe(60);
    budget.push(run(60, 0));
    expect(budget.room(40)).toBe(40);
    expect(budget.room(60)).toBe(50);
    budget.push(measuredRunAtMost(run(60, 1), budget.room(60)));
    expect(runs.map((r) => r.records.length)).toEqual([50, 50]);
  });
});
