// Results files end to end: the CLI (dist/cli.js, a clean environment, embedded Azurite) writes them,
// `report` and `compare` recompute every summary from them alone, bad files fail with one line, and
// a run whose target breaks part-way still leaves what it measured.
import { spawn } from 'node:child_process';
import { mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PhaseHistograms } from '../src/metrics/histograms.js';
import { analyze, type ContenderStats } from '../src/analysis/analyze.js';
import {
  MAX_RECORDS_PER_RUN,
  RECORD_COLUMNS,
  RESULTS_SCHEMA,
  RESULTS_SCHEMA_VERSION,
  runFailed,
  type ResultsFile,
  type RunRecord,
} from '../src/results/schema.js';
import { failedRun, toRunRecord, withSampledRecords } from '../src/results/record.js';
import type { OpRecord } from '../src/metrics/records.js';
import { RecordTable } from '../src/metrics/record-table.js';
import { close, deterministicBuffer, listen, objectServer } from './helpers/http-servers.js';
import { ONE_RUN } from './helpers/cli-env.js';

const CLI_JS = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
const STRATEGIES = ['single', 'chunked', 'round-robin', 'assemble', 'sdk'];
/** The well-known Azurite development key (its start is enough to find it anywhere). */
const AZURITE_KEY_PREFIX = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq';
const ERROR_COLUMN = RECORD_COLUMNS.indexOf('error');

interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** dist/cli.js with only PATH and HOME: no credentials, so downloads use embedded Azurite. */
function cli(cwd: string, args: readonly string[]): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const env = { ...ONE_RUN, PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? cwd };
    const child = spawn(process.execPath, [CLI_JS, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => out.push(c));
    child.stderr.on('data', (c: Buffer) => err.push(c));
    child.on('error', reject);
    child.on('close', (code) =>
      resolve({
        code,
        stdout: Buffer.concat(out).toString('utf8'),
        stderr: Buffer.concat(err).toString('utf8'),
      }),
    );
  });
}

const readDoc = async (path: string) => JSON.parse(await readFile(path, 'utf8')) as ResultsFile;

/** Rows of the ranked console table: rank, strategy, time cell, verdict. */
function rankedRows(report: string): { rank: number; strategy: string; time: string; verified: string }[] {
  return [...report.matchAll(/^(\d+)=?\s+(\S+)\s+(\S+)\s.*\s(ok|FAILED)$/gm)].map((m) => ({
    rank: Number(m[1]),
    strategy: m[2]!,
    time: m[3]!,
    verified: m[4]!,
  }));
}

/**
 * A report without its title and target lines, which say where it came from. (Both give the
 * target and the object size.) The rest must match line for line.
 */
const body = (report: string) => report.split('\n').slice(2).join('\n');
const targetLine = (report: string) => report.split('\n')[1]!;

const medianOf = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

/** Every string value in a JSON tree, with the key path leading to it. */
function stringLeaves(value: unknown, path = ''): [string, string][] {
  if (typeof value === 'string') return [[path, value]];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => stringLeaves(v, `${path}.${k}`));
}

/** A usage or input error: exit 2, nothing on stdout, one stderr line and no stack trace. */
function expectOneLineError(run: CliRun, ...mustContain: string[]): string {
  expect(run.code, run.stderr).toBe(2);
  expect(run.stdout).toBe('');
  const lines = run.stderr.split('\n').filter((l) => l !== '');
  expect(lines, run.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^blob-cacher: /);
  expect(run.stderr).not.toMatch(/\n\s+at /);
  for (const s of mustContain) expect(lines[0]).toContain(s);
  return lines[0]!;
}

let dir: string;
/** a.json: one warm-up and two measured runs; b.json: two measured runs at another concurrency. */
let runA: CliRun;
let runB: CliRun;
let docA: ResultsFile;
let docB: ResultsFile;
let pathA: string;
let pathB: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'blob-cacher-results-'));
  pathA = join(dir, 'a.json');
  pathB = join(dir, 'b.json');
  runA = await cli(dir, [
    'download',
    '--file-size',
    '256KB',
    '--runs',
    '2',
    '--warmup',
    '1',
    '--results',
    'a.json',
  ]);
  // No --results: the file goes to results/download-<timestamp>.json under the working directory.
  runB = await cli(dir, [
    'download',
    '--file-size',
    '256KB',
    '--runs',
    '2',
    '--concurrency',
    '2',
    '--log-level',
    'error',
  ]);
  expect(runA.code, runA.stderr).toBe(0);
  expect(runB.code, runB.stderr).toBe(0);
  const written = await readdir(join(dir, 'results'));
  expect(written).toHaveLength(1);
  expect(written[0]).toMatch(/^download-\d{8}T\d{6}Z\.json$/);
  await rename(join(dir, 'results', written[0]!), pathB);
  docA = await readDoc(pathA);
  docB = await readDoc(pathB);
}, 180_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('download writes a versioned results file', () => {
  it('holds every run, warm-ups flagged, raw records as rows, and no key', async () => {
    expect(docA.schema).toBe(RESULTS_SCHEMA);
    expect(docA.schemaVersion).toBe(RESULTS_SCHEMA_VERSION);
    expect(docA.command).toBe('download');
    expect(docA.complete).toBe(true);
    expect(docA.environment.targetKind).toBe('embedded-azurite');

    // Interleaved: every strategy once per run, run 0 the warm-up.
    expect(docA.runs.map((s) => `${s.run}:${s.strategy}`)).toEqual(
      [0, 1, 2].flatMap((run) => STRATEGIES.map((s) => `${run}:${s}`)),
    );
    for (const s of docA.runs) {
      expect(s.warmup, `${s.strategy} run ${s.run}`).toBe(s.run === 0);
      expect(s.verified, `${s.strategy} run ${s.run}: ${s.verification}`).toBe(true);
      expect(s.objectSizeBytes).toBe(256_000);
      expect(s.records.length, s.strategy).toBe(s.requests);
      expect(s.recordsSampled).toBe(false);
      for (const row of s.records) {
        expect(row).toHaveLength(RECORD_COLUMNS.length);
        expect(row[ERROR_COLUMN]).toBeNull();
      }
      // Every delivered byte is in the rows.
      expect(s.records.reduce((sum, row) => sum + (row[RECORD_COLUMNS.indexOf('bytes')] as number), 0)).toBe(
        256_000,
      );
    }

    expect(docA.config).toMatchObject({
      runs: 2,
      warmup: 1,
      resultsPath: 'a.json',
      credentials: { kind: 'embedded' },
    });
    for (const [path, value] of stringLeaves(docA.config)) {
      if (/key|sas|connectionstring/i.test(path)) expect(value, path).toBe('[redacted]');
    }
    const text = await readFile(pathA, 'utf8');
    expect(text.includes(AZURITE_KEY_PREFIX), 'the Azurite account key is in the results file').toBe(false);
    expect(/AccountKey=|SharedAccessSignature=|[?&]sig=/i.test(text)).toBe(false);
  });

  it('report recomputes the run’s own console report from the file', async () => {
    const report = await cli(dir, ['report', 'a.json']);
    expect(report.code, report.stderr).toBe(0);

    const fromRun = rankedRows(runA.stdout);
    const fromFile = rankedRows(report.stdout);
    expect(fromRun.map((r) => r.strategy).sort()).toEqual([...STRATEGIES].sort());
    expect(fromFile.map((r) => [r.strategy, r.time])).toEqual(fromRun.map((r) => [r.strategy, r.time]));
    expect(fromFile.every((r) => r.verified === 'ok')).toBe(true);
    // The median is of the two measured runs: the warm-up is not in it.
    for (const row of fromFile) {
      const measured = docA.runs.filter((s) => s.strategy === row.strategy && !s.warmup).map((s) => s.wallMs);
      expect(measured).toHaveLength(2);
      expect(row.time.split('±')[0], row.strategy).toBe(medianOf(measured).toFixed(0));
    }
    // Same document, same report: only the title differs.
    expect(report.stdout.split('\n')[0]).toBe('blob-cacher report: a.json');
    expect(targetLine(runA.stdout)).toBe(targetLine(report.stdout));
    expect(body(report.stdout)).toBe(body(runA.stdout));
  });

  it('report --format csv, json and md', async () => {
    const csv = await cli(dir, ['report', 'a.json', '--format', 'csv']);
    expect(csv.code, csv.stderr).toBe(0);
    const lines = csv.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1 + STRATEGIES.length);
    const header = lines[0]!.split(',');
    expect(header.slice(0, 3)).toEqual(['rank', 'strategy', 'runs']);
    const rows = lines.slice(1).map((l) => l.split(','));
    for (const row of rows) {
      expect(row).toHaveLength(header.length);
      expect(row[header.indexOf('runs')]).toBe('2');
      expect(row[header.indexOf('verified')]).toBe('true');
    }
    expect(rows.map((r) => r[1]).sort()).toEqual([...STRATEGIES].sort());
    // Two runs each cannot tell contenders apart (a rank test needs four): every one shares rank 1.
    expect(rows.map((r) => [r[0], r[header.indexOf('tied')]])).toEqual(STRATEGIES.map(() => ['1', 'true']));

    const json = await cli(dir, ['report', 'a.json', '--format', 'json']);
    expect(json.code, json.stderr).toBe(0);
    // The JSON output is the Report model itself, versioned.
    const {
      schema,
      schemaVersion,
      contenders: stats,
      verdicts,
    } = JSON.parse(json.stdout) as {
      schema: string;
      schemaVersion: number;
      contenders: (ContenderStats & { rank: number; tied: boolean })[];
      verdicts: { kind: string; n: number; text: string }[];
    };
    expect([schema, schemaVersion]).toEqual(['blob-cacher/report', 1]);
    expect(stats.map((s) => s.strategy).sort()).toEqual([...STRATEGIES].sort());
    expect(stats.every((s) => s.rank === 1 && s.tied)).toBe(true);
    expect(verdicts).toEqual([
      expect.objectContaining({
        kind: 'tie',
        n: 2,
        text: expect.stringMatching(
          new RegExp(
            '^no significant difference between .* at n=2: 4 runs each ' +
              String.raw`are the fewest a rank test can decide on: add --runs \d+$`,
          ),
        ),
      }),
    ]);
    for (const s of stats) {
      expect(s.runs, s.strategy).toBe(2);
      expect(s.wallMs.n).toBe(2);
      expect(s.verified).toBe(true);
      expect(s.latencyMs.total?.count, s.strategy).toBe(2 * s.requestsPerRun);
    }

    const md = await cli(dir, ['report', 'a.json', '--format', 'md']);
    expect(md.code, md.stderr).toBe(0);
    const table = md.stdout.split('\n').filter((l) => l.startsWith('|'));
    expect(table).toHaveLength(2 + STRATEGIES.length);
    expect(table[0]).toMatch(/^\| # \| strategy \| runs \|/);
    expect(table[1]).toMatch(/^\|( --- \|)+$/);
    const cells = (l: string) =>
      l
        .split('|')
        .slice(1, -1)
        .map((c) => c.trim());
    const mdHeader = cells(table[0]!);
    expect(mdHeader.at(-1)).toBe('verified');
    for (const l of table) expect(cells(l), l).toHaveLength(mdHeader.length);
    // Read by header name, so a cell under the wrong heading shows.
    const mdRows = table
      .slice(2)
      .map(cells)
      .map((row) => Object.fromEntries(mdHeader.map((h, i) => [h, row[i]])));
    expect(mdRows.map((r) => r.strategy).sort()).toEqual([...STRATEGIES].sort());
    for (const r of mdRows)
      expect(r, r.strategy).toMatchObject({ runs: '2', 'failed requests': '0', verified: 'ok' });
    expect(md.stdout).toMatch(/^## blob-cacher report: a\.json$/m);
  });
});

describe('compare and merge', () => {
  it('compare prints every strategy with a change and a verdict', async () => {
    expect(docB.complete).toBe(true);
    expect(docB.config).toMatchObject({ concurrency: 2, runs: 2, warmup: 0 });
    expect(docB.runs).toHaveLength(2 * STRATEGIES.length);

    const text = await cli(dir, ['compare', 'a.json', 'b.json']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout.split('\n')[0]).toBe('compare a.json -> b.json');
    for (const s of STRATEGIES) {
      // Two runs a side: the rank test cannot decide, and says what it needs.
      const line = new RegExp(
        `^${s}\\s+\\d+\\.\\d\\s+\\d+\\.\\d\\s+[+-]?\\d+\\.\\d%\\s+\\d+\\.\\d\\dx ` +
          `\\(\\d+\\.\\d\\d–\\d+\\.\\d\\d\\)\\s+~ \\(needs --runs >= 4 on both sides\\)$`,
        'm',
      );
      expect(text.stdout, s).toMatch(line);
    }
    expect(text.stdout).not.toContain('only in');

    const json = await cli(dir, ['compare', 'a.json', 'b.json', '--format', 'json']);
    expect(json.code, json.stderr).toBe(0);
    const result = JSON.parse(json.stdout) as {
      changes: { strategy: string; changePct: number; significant: boolean; note: string }[];
      onlyInBase: string[];
      onlyInNew: string[];
    };
    expect(result.changes.map((c) => c.strategy)).toEqual(STRATEGIES);
    for (const c of result.changes) {
      expect(Number.isFinite(c.changePct), c.strategy).toBe(true);
      expect(typeof c.significant).toBe('boolean');
      // Two runs a side are fewer than a rank test can decide on.
      expect(c.significant).toBe(false);
      expect(c.note).toBe('needs --runs >= 4 on both sides');
    }
    expect(result.onlyInBase).toEqual([]);
    expect(result.onlyInNew).toEqual([]);
  });

  it('compare with one file is a one-line usage error', async () => {
    expectOneLineError(await cli(dir, ['compare', 'a.json']), 'exactly 2 results files');
  });

  it('report of two files reports each on its own: runs of two sessions are never pooled', async () => {
    const both = await cli(dir, ['report', 'a.json', 'b.json', '--format', 'json']);
    expect(both.code, both.stderr).toBe(0);
    const reports = JSON.parse(both.stdout) as { contenders: ContenderStats[] }[];
    expect(reports).toHaveLength(2);
    for (const [i, doc] of [docA, docB].entries()) {
      for (const s of reports[i]!.contenders) {
        expect(s.runs, s.strategy).toBe(2);
        const requests = doc.runs
          .filter((r) => r.strategy === s.strategy && !r.warmup)
          .reduce((n, r) => n + r.requests, 0);
        expect(s.latencyMs.total?.count, s.strategy).toBe(requests);
      }
    }
    const html = await cli(dir, ['report', 'a.json', 'b.json', '--format', 'html']);
    expect(html.code).toBe(2);
    expect(html.stderr.trim()).toMatch(
      /^blob-cacher: report --format html takes one results file; .* compare$/,
    );
  });
});

describe('analyze()', () => {
  const countOf = (runs: readonly RunRecord[], metric: 'total' | 'firstByte') => {
    let n = 0;
    for (const r of runs) {
      const h = new PhaseHistograms();
      h.addEncoded(r.histograms);
      n += h.byMetric.get(metric)?.totalCount ?? 0;
    }
    return n;
  };

  it('adds the histograms of every measured run, leaving warm-ups out', () => {
    const stats = analyze(docA.runs);
    expect(stats.map((s) => s.strategy)).toEqual(STRATEGIES);
    for (const s of stats) {
      const measured = docA.runs.filter((r) => r.strategy === s.strategy && !r.warmup);
      const warmups = docA.runs.filter((r) => r.strategy === s.strategy && r.warmup);
      expect(countOf(warmups, 'total'), s.strategy).toBeGreaterThan(0);
      expect(s.latencyMs.total?.count, s.strategy).toBe(countOf(measured, 'total'));
      // One histogram entry per successful raw record.
      expect(countOf(measured, 'total')).toBe(
        measured.flatMap((r) => r.records).filter((row) => row[ERROR_COLUMN] === null).length,
      );
      if (s.strategy !== 'sdk')
        expect(s.latencyMs.firstByte?.count, s.strategy).toBe(countOf(measured, 'firstByte'));
    }
  });

  it('yields nothing for warm-ups alone', () => {
    expect(analyze(docA.runs.filter((r) => r.warmup))).toEqual([]);
    // A strategy that has only warm-ups is left out, the others stay.
    const withoutMeasuredSdk = docA.runs.filter((r) => r.strategy !== 'sdk' || r.warmup);
    expect(analyze(withoutMeasuredSdk).map((s) => s.strategy)).toEqual(STRATEGIES.filter((s) => s !== 'sdk'));
  });
});

describe('bad results files: exit 2, one line naming the file and the fix', () => {
  it('missing file', async () => {
    expectOneLineError(
      await cli(dir, ['report', 'missing.json']),
      'missing.json',
      'does not exist',
      'give the path of a file a run wrote',
    );
  });

  it('corrupt JSON (a real file cut in half)', async () => {
    const text = await readFile(pathA, 'utf8');
    await writeFile(join(dir, 'half.json'), text.slice(0, Math.floor(text.length / 2)));
    expectOneLineError(
      await cli(dir, ['report', 'half.json']),
      'half.json',
      'not valid JSON',
      're-run the benchmark',
    );
  });

  it('valid JSON that is not a results file', async () => {
    await writeFile(join(dir, 'hello.json'), '{"hello":1}\n');
    expectOneLineError(
      await cli(dir, ['report', 'hello.json']),
      'hello.json',
      'not a blob-cacher results file',
      'written by blob-cacher download or upload',
    );
  });

  it('a newer schema version says to upgrade', async () => {
    await writeFile(join(dir, 'v99.json'), JSON.stringify({ ...docA, schemaVersion: 99 }));
    expectOneLineError(
      await cli(dir, ['report', 'v99.json']),
      'v99.json',
      'schema version 99',
      'upgrade blob-cacher',
    );
  });

  it('an older schema version says to re-run', async () => {
    await writeFile(join(dir, 'v0.json'), JSON.stringify({ ...docA, schemaVersion: 0 }));
    const line = expectOneLineError(
      await cli(dir, ['report', 'v0.json']),
      'v0.json',
      'schema version 0',
      're-run the benchmark',
    );
    expect(line).not.toContain('upgrade');
  });

  it('compare names the bad file too', async () => {
    expectOneLineError(
      await cli(dir, ['compare', 'a.json', 'hello.json']),
      'hello.json',
      'not a blob-cacher results file',
    );
  });
});

describe('a results path that cannot be written', () => {
  it('fails with one line, not a crash', async () => {
    // a.json is a file, so no directory can be made under it: a usage error (exit 2) naming it.
    const run = await cli(dir, [
      'download',
      '--file-size',
      '16KB',
      '--source-method',
      'single',
      '--results',
      'a.json/r.json',
      '--log-level',
      'error',
    ]);

    expect(run.code, run.stderr).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(run.stderr.trimEnd().split('\n'), run.stderr).toEqual([
      expect.stringMatching(
        /^blob-cacher: results path a\.json\/r\.json cannot be created: \S*a\.json is not a directory/,
      ),
    ]);
  });
});

describe('a target that breaks part-way', () => {
  const SIZE_BYTES = 64 * 1024 + 3;
  // The first GET is answered (by the helper's Range-honouring server); every GET after it has its
  // socket destroyed. HEAD, which sizes the object, always works.
  const good = objectServer(deterministicBuffer(SIZE_BYTES), true);
  const answer = good.server.listeners('request')[0] as http.RequestListener;
  let gets = 0;
  const server = http.createServer((req, res) => {
    if (req.method === 'HEAD' || gets++ < 1) return answer(req, res);
    req.socket.destroy();
  });
  let url: string;

  beforeAll(async () => {
    url = `${await listen(server)}/x`;
  });
  afterAll(async () => {
    await close(server);
  });

  it('records the failed runs, finishes the file and exits 1', async () => {
    const run = await cli(dir, [
      'download',
      '--url',
      url,
      '--runs',
      '2',
      '--results',
      'p.json',
      '--log-level',
      'error',
    ]);

    expect(run.code, run.stderr).toBe(1);
    expect(good.log.getRanges).toEqual([undefined]);
    const doc = await readDoc(join(dir, 'p.json'));
    // Request failures are measured outcomes, not a crash: the run goes on and the file is complete.
    expect(doc.complete).toBe(true);
    expect(doc.environment.targetKind).toBe('url');
    expect(doc.runs.map((s) => `${s.run}:${s.strategy}:${!runFailed(s)}`)).toEqual([
      '0:single:true',
      '0:chunked:false',
      '1:single:false',
      '1:chunked:false',
    ]);
    for (const s of doc.runs.filter(runFailed)) {
      expect(s.verification, `${s.strategy} run ${s.run}`).toMatch(/^\d+ request\(s\) failed: \S+/);
      expect(s.failedRequests).toBeGreaterThan(0);
      expect(s.records.length).toBe(s.requests);
      expect(s.records.filter((row) => typeof row[ERROR_COLUMN] === 'string').length).toBe(s.failedRequests);
    }
    expect((await readdir(dir)).filter((f) => f.startsWith('p.json.tmp-'))).toEqual([]);

    // The report from the file shows the failures the run showed.
    const report = await cli(dir, ['report', 'p.json']);
    expect(report.code, report.stderr).toBe(0);
    expect(
      rankedRows(report.stdout)
        .map((r) => `${r.strategy} ${r.verified}`)
        .sort(),
    ).toEqual(['chunked FAILED', 'single FAILED']);
    expect(targetLine(run.stdout)).toBe(targetLine(report.stdout));
    expect(body(report.stdout)).toBe(body(run.stdout));
    const details = await cli(dir, ['report', 'p.json', '--details']);
    expect(details.stdout).toMatch(/^chunked: FAILED run 1: \d+ request\(s\) failed/m);
  });
});

describe('a session keeps what a results file keeps', () => {
  it(
    'a reported run is cut to MAX_RECORDS_PER_RUN evenly spaced records, and its results record says ' +
      'they were sampled',
    () => {
      const base = failedRun(
        { strategy: 'small-files', description: 'd', run: 0, warmup: false, objectSizeBytes: 0 },
        'x',
      );
      const record = (item: number): OpRecord => ({
        worker: 0,
        item,
        offsetBytes: item,
        bytes: 1,
        status: 201,
        startEpochMs: item,
        totalMs: 1,
        phases: {},
        reused: true,
        retries: 0,
        throttled: 0,
        backoffMs: 0,
      });
      const small = { ...base, records: RecordTable.from(Array.from({ length: 10 }, (_, i) => record(i))) };
      expect(withSampledRecords(small)).toBe(small);
      const big = {
        ...base,
        records: RecordTable.from(Array.from({ length: MAX_RECORDS_PER_RUN * 2 + 1 }, (_, i) => record(i))),
      };
      const kept = withSampledRecords(big);
      expect(kept.records).toHaveLength(MAX_RECORDS_PER_RUN);
      expect(kept.records.at(1)!.item - kept.records.at(0)!.item).toBe(2);
      expect(kept.recordsSampled).toBe(true);
      expect(big.records).toHaveLength(MAX_RECORDS_PER_RUN * 2 + 1);
      const stored = toRunRecord(kept);
      expect(stored.recordsSampled).toBe(true);
      expect(stored.records).toHaveLength(MAX_RECORDS_PER_RUN);
      expect(toRunRecord(small).recordsSampled).toBe(false);
    },
  );
});
