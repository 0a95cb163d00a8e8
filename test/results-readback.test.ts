// Every results file the tool writes reads back: each strategy of both directions (every download
// workload, every upload method), a sweep and a tune, written by the CLI against embedded Azurite and
// read again by `report` (every format), `compare` and collect's reader (the client file's parser and
// the merge). A file the tool wrote and cannot read is a lost run.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { COORDINATOR } from '../src/metrics/records.js';
import { RECORD_COLUMNS, type ResultsFile } from '../src/results/schema.js';
import { parseResultsDoc } from '../src/results/validate.js';
import {
  CLIENT_RESULTS_SCHEMA,
  CLIENT_RESULTS_VERSION,
  parseClientResults,
} from '../src/scaleout/client-results.js';
import { mergeClients } from '../src/scaleout/collect.js';
import { DOWNLOAD_STRATEGIES, UPLOAD_STRATEGIES, workloadOf } from '../src/strategies/index.js';
import { runCli } from './helpers/cli.js';
import { freshDirs } from './helpers/temp-dirs.js';

const tempDir = freshDirs('blob-cacher-readback-');
const LIMIT_MS = 120_000;
const limits = (cwd: string) => ({ cwd, limitMs: LIMIT_MS });
const ONCE = ['--runs', '1', '--warmup', '0'];
const SMALL = [...ONCE, '--file-count', '6', '--file-size', '4KiB'];

/** The download strategies by workload: one session can hold one workload only. */
const downloadGroups = [...new Set(DOWNLOAD_STRATEGIES.map(workloadOf))].map((w) =>
  DOWNLOAD_STRATEGIES.filter((s) => workloadOf(s) === w).map((s) => s.name),
);
const BLOCKS = ['--upload-method', 'blocks', '--blob-size', '1MiB', '--block-size', '256KiB'];

const writer = (name: string, strategies: string[], ...args: string[]) => ({ name, args, strategies });
const UPLOADS = UPLOAD_STRATEGIES.map((s) => s.name);
const WRITERS = [
  ...downloadGroups.map((names) =>
    writer(`download ${names}`, names, 'download', `--source-method=${names}`, ...SMALL),
  ),
  writer(
    'upload all',
    UPLOADS,
    'upload',
    '--upload-method=all',
    '--blob-size=2MiB',
    '--block-size=512K',
    ...SMALL,
  ),
  writer('sweep upload blocks', ['blocks'], 'sweep', 'upload', ...BLOCKS, '--concurrency', '1,4', ...SMALL),
  writer(
    'sweep download chunked',
    ['chunked'],
    'sweep',
    'download',
    '--source-method=chunked',
    '--file-size=256KiB',
    '--concurrency',
    '1,4',
    ...ONCE,
  ),
  // The fewest runs a tune takes (its rank test's minimum), and its smallest budget.
  writer(
    'tune upload blocks',
    ['blocks'],
    'tune',
    'upload',
    ...BLOCKS,
    '--runs=4',
    '--warmup=0',
    '--budget=1s',
  ),
];

/** A client file of a scale-out run holding `doc`, as collect reads it from storage. */
const asClient = (doc: unknown) =>
  JSON.stringify({
    schema: CLIENT_RESULTS_SCHEMA,
    schemaVersion: CLIENT_RESULTS_VERSION,
    runId: 'readback',
    index: 0,
    parallelism: 1,
    host: 'here',
    results: doc,
  });

describe('every results file the tool writes reads back', () => {
  const name = "$name: report (every format), compare and collect's merge read it";
  it.each(WRITERS)(name, { timeout: 4 * LIMIT_MS }, async ({ args, strategies }) => {
    const cwd = await tempDir();
    const wrote = await runCli([...args, '--results', 'r.json', '--log-level', 'error'], limits(cwd));
    expect(wrote.code, wrote.stderr).toBe(0);
    const text = await readFile(join(cwd, 'r.json'), 'utf8');
    const doc = JSON.parse(text) as ResultsFile;
    expect([...new Set(doc.runs.map((r) => r.strategy))].sort()).toEqual([...strategies].sort());
    const parsed = parseResultsDoc(doc);
    expect('problem' in parsed ? parsed.problem : '').toBe('');
    // Every Put Block List is the coordinator's own request: in a file, no worker and no item.
    if (strategies.includes('blocks')) {
      const rows = doc.runs.filter((r) => r.strategy === 'blocks').flatMap((r) => r.records);
      const commits = rows.filter((row) => row[RECORD_COLUMNS.indexOf('worker')] === null);
      expect(commits.length).toBeGreaterThan(0);
      for (const row of commits) expect(row[RECORD_COLUMNS.indexOf('item')]).toBeNull();
      expect(rows.some((row) => row[0] === COORDINATOR)).toBe(false);
    }
    for (const format of ['console', 'md', 'csv', 'json', 'html']) {
      const report = await runCli(['report', 'r.json', '--format', format], limits(cwd));
      expect(report.code, `report --format ${format}: ${report.stderr}`).toBe(0);
      expect(report.stdout.length).toBeGreaterThan(0);
    }
    const compared = await runCli(['compare', 'r.json', 'r.json'], limits(cwd));
    expect(compared.code, compared.stderr).toBe(0);
    expect(compared.stdout).toMatch(/^compare r\.json -> r\.json/);
    const client = parseClientResults(asClient(doc));
    expect('problem' in client ? client.problem : '').toBe('');
    const merge = mergeClients('readback', 1, 'doc' in client ? [client.doc] : []);
    expect(merge.missing).toEqual([]);
    expect(merge.totals.requests).toBe(doc.runs.filter((r) => !r.warmup).reduce((s, r) => s + r.requests, 0));
    expect(merge.contenders.length).toBeGreaterThan(0);
  });

  it("a file from before null marked the coordinator's request (worker, item -1) still reads", async () => {
    const cwd = await tempDir();
    const args = ['upload', ...BLOCKS, '--runs', '1', '--warmup', '0', '--results', 'r.json'];
    const wrote = await runCli(args, limits(cwd));
    expect(wrote.code, wrote.stderr).toBe(0);
    const doc = JSON.parse(await readFile(join(cwd, 'r.json'), 'utf8')) as ResultsFile;
    let older = 0;
    for (const row of doc.runs.flatMap((r) => r.records)) {
      if (row[0] !== null) continue;
      row[0] = -1;
      row[1] = -1;
      older++;
    }
    expect(older).toBeGreaterThan(0);
    expect('doc' in parseResultsDoc(doc)).toBe(true);
    // -1 anywhere else is still damage.
    doc.runs[0]!.records[0]![RECORD_COLUMNS.indexOf('bytes')] = -1;
    const damaged = 'run 1 has bad records; it is damaged, re-run the benchmark';
    expect(parseResultsDoc(doc)).toEqual({ problem: damaged });
  });
});
