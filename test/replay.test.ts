// `blob-cacher replay` through the built CLI: a StorageBlobLogs sample the test writes, replayed
// against the embedded Azurite, reproduces its operation counts and its recorded pace; our CSV and
// --keep-names against a plain URL folder; operations it does not send are named and counted; bad
// files end with one line and exit 2.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOneLine, runCliIn } from './helpers/bad-input.js';
import { CLI_JS, startCli } from './helpers/cli.js';
import { startPutServer, type PutServer } from './helpers/put-server.js';
import { storageLogSample } from './helpers/storage-logs.js';
import type { ReplayResults } from '../src/results/replay.js';

/** StorageBlobLogs' names for the operations the replay's results name. */
const AZURE_NAMES: Record<string, string> = {
  get: 'GetBlob',
  put: 'PutBlob',
  head: 'GetBlobProperties',
  delete: 'DeleteBlob',
};

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'replay-test-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function replay(args: string[], limitMs = 60_000) {
  const run = startCli(['replay', ...args], { cwd: dir, env: { LOG_LEVEL: 'warn' }, limitMs });
  return run.exited;
}

const readResults = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as ReplayResults;

describe('replay of a StorageBlobLogs export against the embedded target', () => {
  const sample = storageLogSample({
    lines: 2000,
    names: 200,
    spanMs: 10_000,
    unsupported: [{ operation: 'SetBlobMetadata', count: 3 }],
  });

  it('sends every operation the log recorded, each once, at the recorded pace', async () => {
    const log = join(dir, 'StorageBlobLogs.csv');
    const results = join(dir, 'sample.json');
    writeFileSync(log, sample.csv);
    const r = await replay([log, '--results', results]);
    expect(r.code, r.stderr).toBe(0);
    const doc = readResults(results);
    const sent = Object.fromEntries(doc.ops.map((o) => [AZURE_NAMES[o.op], o.sent]));
    const { SetBlobMetadata: unsupported, ...replayable } = sample.counts;
    expect(sent).toEqual(replayable);
    // Every step went, none skipped, and each answer was the one the log recorded (a deleted name's
    // 404 included), but where a write on this shared machine took longer than the log's gap before
    // the next step on its name: the open loop never waits for it, as the recorded client did.
    for (const o of doc.ops) {
      expect({ op: o.op, skipped: o.skipped, answered: o.succeeded + o.failed }).toEqual({
        op: o.op,
        skipped: 0,
        answered: o.sent,
      });
    }
    const failed = doc.ops.reduce((n, o) => n + o.failed, 0);
    expect(failed / 2000, JSON.stringify(doc.ops.map((o) => o.firstError))).toBeLessThan(0.005);
    expect(doc.source.unsupported).toEqual({ SetBlobMetadata: unsupported });
    expect(r.stderr).toMatch(/not replayed \(counted in the report\): 3 SetBlobMetadata/);
    // The recorded pace: the replay's start to its last answer within 5% of the log's span.
    expect(doc.source.spanMs).toBe(sample.spanMs);
    expect(Math.abs(doc.pace.wallMs - sample.spanMs) / sample.spanMs).toBeLessThan(0.05);
    expect(r.stdout).toMatch(/recorded p50\/p90\/p99 ms/);
  }, 90_000);

  it('reads JSON lines and keeps the pace scaled by --speed', async () => {
    const log = join(dir, 'StorageBlobLogs.json');
    const results = join(dir, 'sample-fast.json');
    const light = storageLogSample({ lines: 500, names: 100, spanMs: 10_000, seed: 11 });
    writeFileSync(log, light.jsonLines);
    const r = await replay([log, '--speed', '2x', '--results', results, '--format', 'json']);
    expect(r.code, r.stderr).toBe(0);
    const doc = readResults(results);
    expect(doc.source.format).toBe('storage-logs-json');
    expect(Object.fromEntries(doc.ops.map((o) => [AZURE_NAMES[o.op], o.sent]))).toEqual(light.counts);
    const scaled = light.spanMs / 2;
    expect(doc.pace.scheduledMs).toBe(scaled);
    expect(Math.abs(doc.pace.wallMs - scaled) / scaled).toBeLessThan(0.05);
    const report = JSON.parse(r.stdout) as { total: { sent: number; planned: number } };
    expect(report.total.sent).toBe(report.total.planned);
    // `report` reads the results file back into the same figures, in every format.
    for (const format of ['console', 'md', 'csv', 'json', 'html']) {
      const back = runCliIn(dir, [CLI_JS, 'report', results, '--format', format]);
      expect(back.status, back.stderr).toBe(0);
      expect(back.stdout).toMatch(/get|GetBlob/);
    }
    const back = runCliIn(dir, [CLI_JS, 'report', results, '--format', 'json']);
    expect(JSON.parse(back.stdout).total).toEqual(report.total);
    const gated = runCliIn(dir, [CLI_JS, 'report', results, '--threshold', 'p99<200ms']);
    expect(expectOneLine(gated)).toMatch(/--threshold .* a replay's report has none/);
  }, 60_000);
});

describe('replay of blocks, listings and a stop against the embedded target', () => {
  it('stages blocks, commits them, reads the blob back whole and lists the set', async () => {
    const log = join(dir, 'blocks.csv');
    const lines = [
      'offset_ms,operation,name,size_bytes',
      '0,put-block,big.bin,3000',
      '10,put-block,big.bin,2000',
      '20,put-block-list,big.bin,0',
      '200,get,big.bin,5000',
      '210,head,big.bin,0',
      '220,list,,0',
    ];
    writeFileSync(log, `${lines.join('\n')}\n`);
    const results = join(dir, 'blocks.json');
    const r = await replay([log, '--results', results]);
    expect(r.code, r.stderr).toBe(0);
    const ops = Object.fromEntries(readResults(results).ops.map((o) => [o.op, o]));
    for (const op of ['put-block', 'put-block-list', 'get', 'head', 'list'])
      expect({ op, failed: ops[op]!.failed, error: ops[op]!.firstError }).toEqual({
        op,
        failed: 0,
        error: undefined,
      });
    // The GET got the committed blocks, end to end (the writes' bytes are counted with the answers').
    expect(ops.get!.bytes).toBe(5000);
    expect(ops['put-block']!.bytes).toBe(5000);
  });

  it('a stop ends the schedule and writes what was measured, marked incomplete', async () => {
    const log = join(dir, 'long.csv');
    const rows = Array.from({ length: 200 }, (_, i) => `${i * 0.1},put,n${i},100`);
    writeFileSync(log, ['offset_s,operation,name,size_bytes', '0,CopyBlob,x,0', ...rows, ''].join('\n'));
    const results = join(dir, 'long.json');
    const run = startCli(['replay', log, '--results', results], { cwd: dir, limitMs: 60_000 });
    expect(await run.waitFor(/not replayed/)).toBe(true);
    await new Promise((done) => setTimeout(done, 1500));
    run.child.kill('SIGINT');
    const r = await run.exited;
    expect(r.code, r.stderr).toBe(130);
    const doc = readResults(results);
    expect(doc.complete).toBe(false);
    const put = doc.ops[0]!;
    expect(put.sent).toBeGreaterThan(0);
    expect(put.sent).toBeLessThan(200);
    expect(r.stdout).toMatch(/INCOMPLETE/);
  });
});

describe('replay of our CSV against a plain URL folder', () => {
  let server: PutServer;
  beforeAll(async () => {
    server = await startPutServer();
  });
  afterAll(() => server.server.close());

  const csv = [
    'offset_s,operation,name,size_bytes,latency_ms',
    '0,get,logs/a.txt,1000,3',
    '0.05,put,logs/b.txt,2KiB,4',
    '0.1,head,logs/b.txt,0,1',
    '0.15,get,logs/b.txt,2048,2',
    '0.2,delete,logs/a.txt,0,2',
    '0.25,list,logs/,0,5',
    '',
  ].join('\n');

  it('keeps the names with --keep-names, creating what it reads first', async () => {
    const log = join(dir, 'ours.csv');
    writeFileSync(log, csv);
    const results = join(dir, 'ours.json');
    const r = await replay([log, '--url', `${server.url}/dav/`, '--keep-names', '--results', results]);
    expect(r.code, r.stderr).toBe(0);
    const doc = readResults(results);
    expect(doc.created).toEqual({ objects: 1, bytes: 1000, existing: 0 });
    expect(Object.fromEntries(doc.ops.map((o) => [o.op, o.succeeded]))).toEqual({
      get: 2,
      put: 1,
      head: 1,
      delete: 1,
    });
    // A plain folder has no listing: counted and named, not sent.
    expect(doc.source.unsupported).toEqual({ 'list (a plain URL has none)': 1 });
    expect([...server.files.keys()]).toEqual(['/dav/logs/b.txt']);
    expect(server.files.get('/dav/logs/b.txt')!.length).toBe(2048);
  });

  it('never overwrites a kept name before the start, whatever its size', async () => {
    const mine = Buffer.from('mine\n');
    server.files.set('/dav/keep/mine.txt', mine);
    const log = join(dir, 'mine.csv');
    writeFileSync(log, 'offset_s,operation,name,size_bytes\n0,get,keep/mine.txt,1000\n');
    const results = join(dir, 'mine.json');
    const r = await replay([log, '--url', `${server.url}/dav/`, '--keep-names', '--results', results]);
    expect(r.code, r.stderr).toBe(0);
    const doc = readResults(results);
    expect(doc.created).toEqual({ objects: 1, bytes: 0, existing: 1 });
    expect(server.files.get('/dav/keep/mine.txt')).toEqual(mine);
    expect(doc.ops[0]).toMatchObject({ op: 'get', succeeded: 1, bytes: mine.length });
  });

  it('hashes the names by default: the same name, the same blob, under replay/', async () => {
    server.files.clear();
    const log = join(dir, 'ours.csv');
    writeFileSync(log, csv);
    const r = await replay([log, '--url', `${server.url}/dav/`, '--results', join(dir, 'hashed.json')]);
    expect(r.code, r.stderr).toBe(0);
    const kept = [...server.files.keys()];
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatch(/^\/dav\/replay\/[0-9a-f]{16}$/);
    const again = await replay([log, '--url', `${server.url}/dav/`, '--results', join(dir, 'hashed2.json')]);
    expect(again.code, again.stderr).toBe(0);
    expect([...server.files.keys()]).toEqual(kept);
  });

  it('names and counts operations it does not send, their text escaped everywhere', async () => {
    const log = join(dir, 'unknown.csv');
    const evil = 'Copy\u001b[31mBlob|<b>';
    writeFileSync(
      log,
      `offset_s,operation,name,size_bytes\n0,put,x,10\n0.01,"${evil}",x,0\n0.02,${evil},y,0\n`,
    );
    const results = join(dir, 'unknown.json');
    const r = await replay([log, '--url', `${server.url}/dav/`, '--results', results]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('not replayed (counted in the report): 2 Copy\\x1b[31mBlob|<b>');
    expect(readResults(results).source.unsupported).toEqual({ [evil]: 2 });
    expect(readResults(results).ops.map((o) => [o.op, o.sent])).toEqual([['put', 1]]);
    for (const format of ['console', 'md', 'html', 'csv', 'json']) {
      const back = runCliIn(dir, [CLI_JS, 'report', results, '--format', format]);
      expect(back.stdout).not.toContain('\u001b');
    }
    const md = runCliIn(dir, [CLI_JS, 'report', results, '--format', 'md']).stdout;
    expect(md).toContain('2 Copy\\\\x1b[31mBlob\\|\\<b>');
  });

  it('refuses a kept name that climbs out of the folder', () => {
    const log = join(dir, 'climb.csv');
    writeFileSync(log, 'offset_s,operation,name,size_bytes\n0,put,logs/../../etc/x,10\n');
    const before = [...server.files.keys()];
    const puts = server.log.puts;
    const r = runCliIn(dir, [CLI_JS, 'replay', log, '--url', `${server.url}/dav/`, '--keep-names']);
    const line = expectOneLine(r);
    expect(line).toMatch(
      /line 2: name "logs\/\.\.\/\.\.\/etc\/x" .*"\.\." path segment.*without --keep-names/,
    );
    // Refused before anything is sent: not even the preflight's probe.
    expect([...server.files.keys()]).toEqual(before);
    expect(server.log.puts).toBe(puts);
  });
});

describe('bad replay files end with one line and exit 2', () => {
  const cases: { name: string; text: string; says: RegExp }[] = [
    { name: 'no header', text: 'hello\nworld\n', says: /is not a log a replay reads.*offset_s,operation/ },
    {
      name: 'a bad time',
      text: 'TimeGenerated,OperationName,ObjectKey\nyesterday,GetBlob,/a/c/x\n',
      says: /line 2: TimeGenerated "yesterday" is not a time/,
    },
    {
      name: 'a bad size',
      text: 'offset_s,operation,name,size_bytes\n0,get,x,lots\n',
      says: /line 2: size_bytes "lots" is not a size/,
    },
    {
      name: 'nothing it sends',
      text: 'offset_s,operation,name,size_bytes\n0,CopyBlob,x,1\n',
      says: /has no operation a replay sends \(1 lines read\)/,
    },
    {
      name: 'too many lines',
      text: `offset_s,operation,name,size_bytes${'\n'.repeat(1_000_001)}`,
      says: /more than the 1000000 a replay reads/,
    },
    { name: 'broken JSON', text: '{"OperationName":"GetBlob"\n', says: /line 1 is not JSON/ },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const log = join(dir, `bad-${c.name.replace(/ /g, '-')}.csv`);
      writeFileSync(log, c.text);
      expect(expectOneLine(runCliIn(dir, [CLI_JS, 'replay', log]))).toMatch(c.says);
    });
  }

  it('a missing file, a directory and --format junit', () => {
    expect(expectOneLine(runCliIn(dir, [CLI_JS, 'replay', join(dir, 'none.csv')]))).toMatch(/does not exist/);
    expect(expectOneLine(runCliIn(dir, [CLI_JS, 'replay', dir]))).toMatch(/not a regular file/);
    const log = join(dir, 'j.csv');
    writeFileSync(log, 'offset_s,operation,name,size_bytes\n0,get,x,1\n');
    expect(expectOneLine(runCliIn(dir, [CLI_JS, 'replay', log, '--format', 'junit']))).toMatch(
      /--format.*console, md, csv, json, html/,
    );
    expect(expectOneLine(runCliIn(dir, [CLI_JS, 'replay', log, '--speed', 'fast']))).toMatch(/--speed/);
  });
});
