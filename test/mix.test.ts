// --mix: operations drawn from the seed over the many-blob set, each through its own request kind.
// The draw and the plan as pure functions; bad --mix text and what cannot be mixed refused by the
// built CLI in one line (exit 2); the five operations on the embedded Azurite, verified, with
// per-operation figures in every format and the same sequence in every run; and get:70,put:30 on
// nginx's WebDAV, whose access log must hold the counts the report gives.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BadMix, parseMix } from '../src/config/mix.js';
import { findAxes } from '../src/config/sweep.js';
import { loadDownloadConfig } from '../src/config/load.js';
import { axesFor } from '../src/cli/tune-plan.js';
import { estimateSession } from '../src/analysis/estimate.js';
import { DEFAULT_PRICES } from '../src/analysis/prices.js';
import { FileSet } from '../src/plan/items.js';
import { MIX_OPS, opAt, type MixDraw, type MixOp } from '../src/plan/mix.js';
import { mixItems } from '../src/strategies/mix.js';
import { expectOneLine, runCliIn } from './helpers/bad-input.js';
import { CLI_JS, startCli } from './helpers/cli.js';
import { startNginxDav, type NginxDav } from './helpers/nginx-dav.js';
import { requires } from './helpers/requires.js';

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'bc-mix-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Each operation's count among the first `count` requests of a mix. */
function planned(mix: MixDraw, count: number): Partial<Record<MixOp, number>> {
  const out: Partial<Record<MixOp, number>> = {};
  for (let i = 0; i < count; i++) {
    const op = opAt(mix, i);
    out[op] = (out[op] ?? 0) + 1;
  }
  return out;
}

describe('the draw and the plan', () => {
  it('parses weights by operation and refuses what is not a mix', () => {
    expect(parseMix('get:60,put:20,head:10,list:5,delete:5')).toEqual([60, 20, 10, 5, 5]);
    expect(parseMix(' PUT:3 , get:1 ')).toEqual([1, 3, 0, 0, 0]);
    for (const bad of ['get:0', 'fetch:10', 'get', 'get:x', 'get:1,get:2', 'get:-1', ''])
      expect(parseMix(bad), bad).toBeInstanceOf(BadMix);
  });

  it('draws the same sequence from the same seed, another from another, in the weights shares', () => {
    const mix = { weights: [60, 20, 10, 5, 5], seed: 7 };
    const a = Array.from({ length: 20_000 }, (_, i) => opAt(mix, i));
    expect(Array.from({ length: 20_000 }, (_, i) => opAt({ ...mix }, i))).toEqual(a);
    const other = Array.from({ length: 20_000 }, (_, i) => opAt({ ...mix, seed: 8 }, i));
    expect(other).not.toEqual(a);
    MIX_OPS.forEach((op, k) => {
      const share = a.filter((o) => o === op).length / a.length;
      expect(Math.abs(share - mix.weights[k]! / 100), op).toBeLessThan(0.01);
    });
  });

  it("estimates a session's operations by each request's own class", () => {
    const mix = { weights: [40, 20, 15, 10, 15], seed: 2 };
    const want = planned(mix, 500);
    const e = estimateSession(
      {
        command: 'download',
        strategies: ['small-files', 'sdk-small-files'],
        runsPerContender: 3,
        cells: 1,
        atLeast: false,
        objectSizeBytes: 1000,
        concurrency: 1,
        fileCount: 500,
        mix,
      },
      DEFAULT_PRICES,
    );
    expect(e.operations).toEqual({
      read: 6 * want.get!,
      write: 6 * want.put!,
      list: 6 * want.list!,
      other: 6 * (want.head! + want.delete!),
    });
  });

  it('is one value in a sweep, however many commas it has', () => {
    const { axes, fixed } = findAxes(['--mix', 'get:70,put:30', '--max-sockets', '4,16']);
    expect(axes).toEqual([{ flag: '--max-sockets', values: ['4', '16'] }]);
    expect(fixed).toEqual(['--mix=get:70,put:30']);
  });

  it('plans GETs and HEADs of the set, fresh PUT and DELETE names, and one-page listings', () => {
    const set = FileSet.of('many/300x1000', 300, 1000, 'set');
    const mix = { weights: [30, 30, 10, 10, 20], seed: 3 };
    const items = mixItems({ set, mix, prefix: 'mix-x', pageSize: 50 });
    expect(items.map((i) => i.index)).toEqual(Array.from({ length: 300 }, (_, i) => i));
    expect(mixItems({ set, mix, prefix: 'mix-x', pageSize: 50 })).toEqual(items);
    const setNames = new Set([...set].map((f) => f.blob));
    const written = items.filter((i) => ['put', 'delete'].includes(opAt(mix, i.index))).map((i) => i.blob);
    expect(new Set(written).size).toBe(written.length);
    for (const item of items) {
      const op = opAt(mix, item.index);
      if (op === 'get' || op === 'head') expect(setNames.has(item.blob!), item.blob).toBe(true);
      if (op === 'put' || op === 'delete') expect(item.blob!.startsWith(`mix-x/${op}-`)).toBe(true);
      if (op === 'list') {
        expect(item.list!.count).toBeLessThanOrEqual(50);
        expect(item.list!.prefix.startsWith('many/300x1000/file-')).toBe(true);
      }
    }
  });
});

describe('tune over a mix', () => {
  it('searches the sockets and processes, never --concurrency, which a mix does not read', () => {
    const env = { BLOB_CACHER_MIX: 'get:70,put:30', SOURCE_METHOD: 'small-files' };
    const config = loadDownloadConfig({}, { env });
    expect(axesFor('download', config, []).map((a) => a.flag)).not.toContain('--concurrency');
    const plain = loadDownloadConfig({}, { env: { SOURCE_METHOD: 'chunked' } });
    expect(axesFor('download', plain, []).map((a) => a.flag)).toContain('--concurrency');
  });
});

describe('bad --mix input: exit 2, one line naming the problem and the fix', () => {
  const cases: { args: string[]; fix: string }[] = [
    { args: ['download', '--mix', 'get:0,put:0'], fix: 'sum to more than 0' },
    { args: ['download', '--mix', 'fetch:10'], fix: 'not fetch' },
    { args: ['upload', '--mix', 'get:ten'], fix: 'operation:weight pairs' },
    { args: ['download', '--mix', 'get:1,get:2'], fix: 'named twice' },
    { args: ['download', '--mix', 'get:1', '--source-method', 'single'], fix: 'drop it' },
    { args: ['download', '--mix', 'list:1', '--url', 'http://127.0.0.1:1/d/'], fix: 'drop list' },
    { args: ['download', '--mix', 'get:1', '--duration', '2s'], fix: 'drop --duration' },
    { args: ['download', '--mix', 'get:1', '--sink', 'sparse-file'], fix: '--sink memory' },
    { args: ['upload', '--mix', 'put:1', '--file-count', '300000'], fix: 'lower --file-count' },
  ];
  it.each(cases)('$args', ({ args, fix }) => {
    const line = expectOneLine(runCliIn(tmp, [CLI_JS, ...args], {}, 15_000));
    expect(line).toContain('--mix');
    expect(line).toContain(fix);
  });
});

interface ReportMixJson {
  ops: MixOp[];
  contenders: { contender: string; ops: { op: MixOp; requests: number; failed: number }[] }[];
}

async function runJson(args: string[], limitMs = 90_000) {
  const cli = startCli([...args, '--format', 'json'], { cwd: tmp, limitMs });
  const done = await cli.exited;
  expect(done.code, done.stderr).toBe(0);
  return JSON.parse(done.stdout) as {
    mix?: ReportMixJson;
    contenders: {
      label: string;
      verified: boolean;
      cost: { operations: Record<'read' | 'write' | 'list' | 'other', number> };
    }[];
    recommendation?: { contender: string };
  };
}

describe('a mix on the embedded Azurite', () => {
  it('runs all five operations, verified, the same sequence every run, in every format', async () => {
    const mix = { weights: [40, 20, 15, 10, 15], seed: 5 };
    const results = join(tmp, 'embedded.json');
    const report = await runJson([
      'download',
      '--source-method',
      'small-files',
      '--mix',
      'get:40,put:20,head:15,list:10,delete:15',
      '--seed',
      '5',
      '--file-count',
      '120',
      '--file-size',
      '4KiB..16KiB',
      '--runs',
      '2',
      '--results',
      results,
    ]);
    const want = planned(mix, 120);
    expect(report.mix!.ops).toEqual([...MIX_OPS]);
    for (const o of report.mix!.contenders[0]!.ops) {
      expect(o.requests, o.op).toBe(2 * want[o.op]!);
      expect(o.failed).toBe(0);
    }
    // Each request billed as its own operation (no retries against the embedded target).
    expect(report.contenders[0]!.cost.operations).toEqual({
      read: 2 * want.get!,
      write: 2 * want.put!,
      list: 2 * want.list!,
      other: 2 * (want.head! + want.delete!),
    });
    const doc = JSON.parse(readFileSync(results, 'utf8')) as {
      runs: { warmup: boolean; verified: boolean; verification: string; records: unknown[][] }[];
    };
    const measured = doc.runs.filter((r) => !r.warmup);
    expect(measured).toHaveLength(2);
    // The same sequence in both runs: the same count of each operation, checked the same way.
    expect(measured[1]!.verification).toBe(measured[0]!.verification);
    for (const run of measured) {
      expect(run.verified, run.verification).toBe(true);
      for (const op of MIX_OPS) expect(run.verification).toContain(`${op}: `);
      const items = run.records.map((row) => row[1] as number).sort((a, b) => a - b);
      expect(items).toEqual(Array.from({ length: 120 }, (_, i) => i));
    }
    for (const [format, mark] of [
      ['csv', 'mix_delete_p99_ms'],
      ['md', '### By operation'],
      ['html', '<section id="mix">'],
      ['console', 'combined'],
    ] as const) {
      const shown = startCli(['report', results, '--format', format], { cwd: tmp });
      const out = await shown.exited;
      expect(out.code, out.stderr).toBe(0);
      expect(out.stdout, format).toContain(mark);
    }
  }, 120_000);

  it("compares our contender and the SDK's under the same mix, each operation counted alike", async () => {
    const report = await runJson([
      'download',
      '--source-method',
      'small-files,sdk-small-files',
      '--mix',
      'get:40,put:20,head:15,list:10,delete:15',
      '--file-count',
      '80',
    ]);
    expect(report.contenders.map((c) => [c.label, c.verified]).sort()).toEqual([
      ['sdk-small-files', true],
      ['small-files', true],
    ]);
    const [ours, sdk] = report.mix!.contenders;
    expect(sdk!.ops.map((o) => [o.op, o.requests])).toEqual(ours!.ops.map((o) => [o.op, o.requests]));
    expect(['small-files', 'sdk-small-files']).toContain(report.recommendation?.contender);
  }, 120_000);

  it('runs on upload too: GETs, PUTs and DELETEs verified', async () => {
    const report = await runJson(['upload', '--mix', 'get:50,put:25,delete:25', '--file-count', '40']);
    const ops = report.mix!.contenders[0]!.ops;
    expect(ops.map((o) => o.op)).toEqual(['get', 'put', 'delete']);
    expect(ops.reduce((a, o) => a + o.requests, 0)).toBe(40);
  }, 120_000);
});

const nginx = requires('nginx');

nginx.describe('get:70,put:30 on nginx WebDAV', () => {
  let dav: NginxDav;
  beforeAll(async () => {
    dav = await startNginxDav(join(tmp, 'nginx'), { accessLog: true });
  });
  afterAll(() => dav?.stop());

  it("reports per-operation counts within 1% of nginx's access log", async () => {
    const report = await runJson([
      'download',
      '--mix',
      'get:70,put:30',
      '--url',
      `${dav.url}/dav/`,
      '--file-count',
      '1000',
      '--file-size',
      '2KiB',
    ]);
    const ops = Object.fromEntries(report.mix!.contenders[0]!.ops.map((o) => [o.op, o]));
    expect(ops.get!.failed + ops.put!.failed).toBe(0);
    // The timed GETs read the set's files; the PUTs write put-NNNNNNN names (read back by GETs of
    // those names after the run, which are not counted here).
    const log = readFileSync(dav.accessLog!, 'utf8').split('\n');
    const gets = log.filter((l) => /"GET \/dav\/many\/[^ ]*\/file-\d+ HTTP/.test(l)).length;
    const puts = log.filter((l) => /"PUT \/dav\/mix-[^ ]*\/put-\d+ HTTP/.test(l)).length;
    expect(gets).toBeGreaterThan(600);
    expect(Math.abs(ops.get!.requests - gets) / gets).toBeLessThanOrEqual(0.01);
    expect(Math.abs(ops.put!.requests - puts) / puts).toBeLessThanOrEqual(0.01);
  }, 120_000);

  it('takes HEADs and DELETEs too, each verified, and leaves no name of its own behind', async () => {
    const results = join(tmp, 'nginx-all.json');
    const report = await runJson([
      'download',
      '--mix',
      'get:40,put:20,head:20,delete:20',
      '--url',
      `${dav.url}/dav/`,
      '--file-count',
      '200',
      '--results',
      results,
    ]);
    expect(report.mix!.ops).toEqual(['get', 'put', 'head', 'delete']);
    const doc = JSON.parse(readFileSync(results, 'utf8')) as {
      runs: { verified: boolean; verification: string }[];
    };
    for (const run of doc.runs) expect(run.verified, run.verification).toBe(true);
    expect(readdirSync(join(dav.rootDir, 'dav')).filter((n) => n.startsWith('mix-'))).toEqual([]);
  }, 120_000);
});
