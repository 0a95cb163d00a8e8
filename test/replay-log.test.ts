// Reading a recorded workload (config/replay-log.ts) and planning from it (plan/replay.ts), without a
// target: formats told apart by their first line, Azure's time forms, quoted CSV cells, hashed names,
// what is created before the start and the block ids a log's uploads get.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { csvRows } from '../src/config/csv-rows.js';
import { parseReplayLog, timeOf } from '../src/config/replay-log.js';
import { hashedName } from '../src/config/replay-names.js';
import { blockIdsOf, objectsReadFirst } from '../src/plan/replay.js';

const opts = { keepNames: true, path: 'log' };

describe('replay logs', () => {
  it('reads a portal export: its [UTC] header, its local time form and a quoted user agent', () => {
    const text = [
      'TimeGenerated [UTC],OperationName,ObjectKey,ResponseBodySize,DurationMs,UserAgentHeader',
      '"5/4/2026, 9:00:00.005 AM",GetBlob,/acct/c/a/b.bin,100,12,"sdk, ""quoted""\nnext line"',
      '"5/4/2026, 9:00:01.505 PM",GetBlob,/acct/c/a/b.bin,100,30,x',
    ].join('\n');
    const plan = parseReplayLog(text, opts);
    expect(plan.format).toBe('storage-logs-csv');
    expect(plan.steps.map((s) => [s.offsetMs, s.name, s.recordedMs])).toEqual([
      [0, 'a/b.bin', 12],
      [12 * 3600_000 + 1500, 'a/b.bin', 30],
    ]);
  });

  it('keeps the sub-millisecond digits Log Analytics writes', () => {
    const a = timeOf('2026-05-04T09:00:00.0000001Z', 'x');
    const b = timeOf('2026-05-04T09:00:00.0012345Z', 'x');
    expect(b - a).toBeCloseTo(1.2344, 3);
    expect(timeOf('2026-05-04T11:00:00+02:00', 'x')).toBe(timeOf('2026-05-04T09:00:00Z', 'x'));
  });

  it('reads JSON lines with fields at the top or under properties, in any case', () => {
    const lines = [
      {
        time: '2026-05-04T09:00:01Z',
        operationName: 'PutBlob',
        properties: { objectKey: '/a/c/x', requestBodySize: 5 },
      },
      { TimeGenerated: '2026-05-04T09:00:00Z', OperationName: 'GetBlobProperties', ObjectKey: '/a/c/x' },
    ];
    const plan = parseReplayLog(lines.map((l) => JSON.stringify(l)).join('\n'), opts);
    expect(plan.format).toBe('storage-logs-json');
    expect(plan.steps.map((s) => [s.op, s.offsetMs, s.sizeBytes])).toEqual([
      ['head', 0, 0],
      ['put', 1000, 5],
    ]);
  });

  it('counts what it does not send by name, and a blob operation without a blob', () => {
    const text = [
      'offset_ms,operation,name,size',
      '0,get,x,1',
      '1,SetBlobMetadata,x,0',
      '2,SetBlobMetadata,x,0',
      '3,get,,0',
    ].join('\n');
    expect(parseReplayLog(text, opts).unsupported).toEqual({
      SetBlobMetadata: 2,
      'get without a blob name': 1,
    });
  });

  it('hashes names stably under replay/, from the MD5 of the name', () => {
    const md5 = createHash('md5').update('data/part-0063.parquet').digest('hex');
    expect(hashedName('data/part-0063.parquet')).toBe(`replay/${md5.slice(0, 16)}`);
    const plan = parseReplayLog('offset_s,operation,name,size_bytes\n0,get,data/part-0063.parquet,1\n', {
      keepNames: false,
      path: 'log',
    });
    expect(plan.steps[0]!.name).toBe(hashedName('data/part-0063.parquet'));
  });

  it('splits CSV rows at line breaks outside quotes only', () => {
    const rows = [...csvRows('a,"b\nc",d\r\n\r\ne,f\n')];
    expect(rows).toEqual([
      { line: 1, cells: ['a', 'b\nc', 'd'] },
      { line: 4, cells: ['e', 'f'] },
    ]);
  });
});

describe('replay plans', () => {
  const step = (
    op: 'get' | 'put' | 'head' | 'delete',
    name: string,
    sizeBytes: number,
    recordedStatus?: number,
  ) => ({
    offsetMs: 0,
    op,
    name,
    sizeBytes,
    ...(recordedStatus === undefined ? {} : { recordedStatus }),
  });

  it('creates what is read before it is written, at the largest size read, never a recorded 404', () => {
    const objects = objectsReadFirst([
      step('head', 'a', 0),
      step('get', 'a', 300),
      step('put', 'b', 10),
      step('get', 'b', 10),
      step('get', 'c', 0, 404),
      step('delete', 'd', 0),
      step('get', 'd', 0, 404),
      step('put', 'a', 5),
      step('get', 'a', 5000),
    ]);
    expect(objects).toEqual([
      { name: 'a', sizeBytes: 300 },
      { name: 'd', sizeBytes: 0 },
    ]);
  });

  it('commits the blocks staged for a name since its last commit', () => {
    const ids = blockIdsOf([
      { offsetMs: 0, op: 'put-block', name: 'x', sizeBytes: 1 },
      { offsetMs: 1, op: 'put-block', name: 'y', sizeBytes: 1 },
      { offsetMs: 2, op: 'put-block', name: 'x', sizeBytes: 1 },
      { offsetMs: 3, op: 'put-block-list', name: 'x', sizeBytes: 0 },
      { offsetMs: 4, op: 'put-block-list', name: 'x', sizeBytes: 0 },
    ]);
    expect(ids.get(3)).toEqual([ids.get(0), ids.get(2)]);
    expect(ids.get(4)).toEqual([]);
    expect(new Set([ids.get(0), ids.get(1), ids.get(2)]).size).toBe(3);
  });
});
