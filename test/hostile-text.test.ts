// No text from a file reaches any output raw. A real results file (a tiny run against a local
// server) gets hostile strings (terminal escapes, BEL, CR, NUL, newlines, pipes, backticks, markup,
// spreadsheet formulas, direction overrides, over-long text) in every text field: strategy, label,
// target, every environment field, config values, sweep axes, tune fields; a --prices file and
// scale-out clients get them too. Every format of report and compare, and collect's renderer, is
// scanned: no control character (newlines and tabs aside, where a format has its own), no forged
// line, heading, table cell or markup, and no CSV cell that a spreadsheet would read as a formula.
import type http from 'node:http';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mergeClients } from '../src/scaleout/collect.js';
import {
  CLIENT_RESULTS_SCHEMA,
  CLIENT_RESULTS_VERSION,
  parseClientResults,
} from '../src/scaleout/client-results.js';
import { renderScaleout } from '../src/report/scaleout.js';
import type { ResultsFile, RunRecord } from '../src/results/schema.js';
import { runCli } from './helpers/cli.js';
import { close, deterministicBuffer, listen, objectServer } from './helpers/http-servers.js';
import { freshDirs } from './helpers/temp-dirs.js';

const fresh = freshDirs('hostile-text-');
const FORMATS = ['console', 'md', 'csv', 'json', 'html'] as const;
const STARTS = ['=', '+', '-', '@'];

/** A hostile string, tagged so a test can say where it came from; it starts with a formula character. */
const hostile = (tag: string, i = 0) =>
  `${STARTS[i % STARTS.length]}cmd|' /C calc'!A0 ${tag}\u001b]0;PWNED\u0007\u001b[2J\r\u0000\n## ` +
  `forged ${tag}\t| cell | \`tick\` <script>alert(1)</script> [x](http://e.test) \u009b31m\u202eevil`;
/** Longer than any column: a cut must not leave half an escape sequence. */
const LONG = `${'w'.repeat(300)}\u001b]0;cut in half\u0007`;

/** Control characters no output may hold: C0 but newline and tab, DEL, C1; and direction overrides. */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;

function scanCommon(what: string, text: string): void {
  expect(text.length, what).toBeGreaterThan(0);
  const bad = CONTROL.exec(text);
  expect(
    bad
      ? `${JSON.stringify(bad[0])} at ` +
          `${JSON.stringify(text.slice(Math.max(0, bad.index - 40), bad.index + 10))}`
      : undefined,
    what,
  ).toBeUndefined();
  // A newline in a field never starts a line of its own.
  expect(
    text.split('\n').filter((l) => /^\s*(- |\|\s*)?## forged/.test(l)),
    what,
  ).toEqual([]);
}

/** One CSV document's cells, quoted cells unquoted. */
function csvCells(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\n') {
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += c;
  }
  row.push(cell);
  rows.push(row);
  return rows;
}

function scan(format: (typeof FORMATS)[number], what: string, text: string): void {
  scanCommon(what, text);
  if (format === 'csv') {
    const rows = csvCells(text.replace(/\n$/, ''));
    expect(new Set(rows.map((r) => r.length)).size, `${what}: every row as wide as the header`).toBe(1);
    const formulas = rows.flat().filter((c) => /^\s*[=+\-@]/.test(c) && !Number.isFinite(Number(c)));
    expect(formulas, what).toEqual([]);
  }
  if (format === 'md') {
    // A table's rows all have the header's cells: a pipe in a field never splits one.
    const lines = text.split('\n');
    const cells = (l: string) => l.replace(/\\./g, '').split('|').length;
    for (let i = 1; i < lines.length; i++) {
      if (lines[i]!.startsWith('|') && lines[i - 1]!.startsWith('|'))
        expect(cells(lines[i]!), `${what}: ${lines[i]!.slice(0, 80)}`).toBe(cells(lines[i - 1]!));
    }
    // No markup, code span or link opened by a field (deploy lines are code spans of our own).
    for (const l of lines.filter((x) => !x.startsWith('  - `'))) {
      expect(l.replace(/\\./g, ''), what).not.toMatch(/<script|`|\]\(/);
    }
  }
  if (format === 'html') expect(text, what).not.toMatch(/<script/i);
  if (format === 'json') expect(() => JSON.parse(text) as unknown, what).not.toThrow();
}

/** Copies of a measured run: the strategy, cell and text fields given, wall time varied a little. */
function runsLike(
  base: RunRecord,
  strategy: string,
  cell: Record<string, string>,
  n: number,
  extra: Partial<RunRecord> = {},
): RunRecord[] {
  return Array.from({ length: n }, (_, i) => ({
    ...base,
    strategy,
    cell,
    description: hostile(`description ${strategy.length}`),
    verification: hostile('verification'),
    run: i,
    wallMs: base.wallMs * (1 + i / 10),
    ...extra,
  }));
}

function poisonEnvironment(doc: ResultsFile, tag: string): void {
  doc.createdAt = hostile(`createdAt ${tag}`);
  doc.interrupted = hostile(`interrupted ${tag}`);
  doc.complete = false;
  doc.config = {
    note: hostile(`config ${tag}`),
    nested: { value: hostile(`nested ${tag}`, 1) },
    list: [hostile(`list ${tag}`, 2)],
    concurrency: 4,
  };
  doc.environment = {
    ...doc.environment,
    node: hostile(`node ${tag}`, 1),
    os: hostile(`os ${tag}`, 2),
    arch: hostile(`arch ${tag}`, 3),
    cpuModel: hostile(`cpuModel ${tag}`),
    targetKind: hostile(`targetKind ${tag}`, 1),
    target: hostile(`target ${tag}`, 2),
    packageVersion: hostile(`packageVersion ${tag}`, 3),
    sdkVersion: hostile(`sdkVersion ${tag}`),
    tcp: { congestionControl: hostile(`tcp ${tag}`, 1), rmemMaxBytes: 4096, wmemMaxBytes: 4096 },
    endpoint: { host: LONG, addresses: [hostile(`address ${tag}`, 2)], connectMs: 1 },
    cloud: { provider: 'azure', vmSize: hostile(`vmSize ${tag}`, 3), location: hostile(`location ${tag}`) },
  };
}

describe('hostile text in every field of a results file reaches no output raw', () => {
  let cwd = '';
  let server: http.Server;
  const files: Record<string, string> = {};

  beforeAll(async () => {
    cwd = await fresh();
    ({ server } = objectServer(deterministicBuffer(64 * 1024), true));
    const url = await listen(server);
    const run = await runCli(
      [
        'download',
        '--url',
        `${url}/object`,
        '--source-method',
        'single',
        '--runs',
        '3',
        '--results',
        'real.json',
        '--log-level',
        'error',
      ],
      { cwd },
    );
    expect(run.code, run.stderr).toBe(0);
    const real = JSON.parse(await readFile(join(cwd, 'real.json'), 'utf8')) as ResultsFile;
    const base = real.runs.find((r) => !r.warmup)!;

    // A sweep: a hostile axis and values, hostile strategies beside a real one, a failed contender.
    const flag = `--${hostile('axis flag', 1)}`;
    const [v1, v2] = [hostile('axis value one', 2), LONG];
    const sweep = structuredClone(real);
    poisonEnvironment(sweep, 'sweep');
    sweep.sweep = [{ flag, values: [v1, v2] }];
    sweep.runs = [v1, v2].flatMap((v, i) => [
      ...runsLike(base, 'single', { [flag]: v }, 3),
      ...runsLike(base, hostile(`strategy ${i}`, i), { [flag]: v }, 3),
      ...runsLike(base, hostile(`failed ${i}`, i + 1), { [flag]: v }, 1, {
        verified: false,
        error: hostile('error', 3),
        notVerified: undefined,
      }),
    ]);
    sweep.runs.push(
      ...runsLike(base, hostile('not verified', 2), { [flag]: v1 }, 2, {
        verified: false,
        notVerified: hostile('why not verified', 3),
      }),
    );
    await writeFile(join(cwd, 'sweep.json'), JSON.stringify(sweep));

    // A tune over the same hostile axis: its path, best, fixed settings and throttling.
    const tune = structuredClone(sweep);
    delete tune.sweep;
    tune.runs = [v1, v2].flatMap((v) => runsLike(base, 'single', { [flag]: v }, 3));
    tune.tune = {
      direction: 'download',
      axes: [{ flag, values: [v1, v2], ordered: false }],
      budgetMs: 1000,
      fixed: { [`--${hostile('fixed flag', 3)}`]: hostile('fixed value') },
      stopped: 'converged',
      best: { [flag]: v1 },
      throttling: [{ axis: flag, value: v2, throttleClass: 'other' }],
      path: [
        { cell: { [flag]: v1 }, reason: 'start', spentMs: 10, throttled: 0 },
        {
          cell: { [flag]: v2 },
          reason: 'grow',
          axis: hostile('step axis', 1),
          spentMs: 10,
          throttled: 1,
          throttleClass: 'other',
        },
      ],
    };
    await writeFile(join(cwd, 'tune.json'), JSON.stringify(tune));

    // The other side of a compare, in a folder whose name is hostile too (its path is compare's label).
    const next = structuredClone(sweep);
    poisonEnvironment(next, 'next');
    const dir = '\u001b]0;folder\u0007\n## forged folder';
    await mkdir(join(cwd, dir));
    await writeFile(join(cwd, dir, 'next.json'), JSON.stringify(next));
    files.next = join(dir, 'next.json');

    await writeFile(
      join(cwd, 'prices.json'),
      JSON.stringify({
        name: hostile('prices name').slice(0, 190),
        asOf: hostile('asOf', 1).slice(0, 190),
        currency: hostile('currency', 2).slice(0, 190),
        tiers: {
          hot: {
            per10kOperations: { read: 0.005, write: 0.065, list: 0.065, other: 0.005 },
            retrievalPerGiB: 0,
          },
        },
      }),
    );
  }, 60_000);

  afterAll(async () => {
    if (server) await close(server);
  });

  for (const file of ['sweep.json', 'tune.json']) {
    for (const [format, details] of [
      ['console', false],
      ...FORMATS.map((f) => [f, f === 'console'] as const),
    ] as const) {
      it(`report ${file} --format ${format}${details ? ' --details' : ''}`, async () => {
        const run = await runCli(
          ['report', file, '--format', format, '--prices', 'prices.json', ...(details ? ['--details'] : [])],
          { cwd },
        );
        expect(run.code, run.stderr).toBe(0);
        scan(format, `report ${file} ${format}`, run.stdout);
        scanCommon(`report ${file} ${format} stderr`, `${run.stderr} `);
      });
    }
  }

  for (const format of FORMATS) {
    it(`compare --format ${format}: labels, strategies and the environments' differences`, async () => {
      const run = await runCli(['compare', 'sweep.json', files.next!, '--format', format], { cwd });
      expect(run.code, run.stderr).toBe(0);
      scan(format, `compare ${format}`, run.stdout);
      if (format !== 'json' && format !== 'csv')
        expect(run.stdout, 'the environments differ, and compare says so').toMatch(
          /different environments|Environments differ/i,
        );
    });
  }

  it("collect's renderer: a client's host (cut to its column), failure, run id and contenders", async () => {
    const sweep = JSON.parse(await readFile(join(cwd, 'sweep.json'), 'utf8')) as ResultsFile;
    const client = (index: number, extra: Record<string, unknown>) => {
      const parsed = parseClientResults(
        JSON.stringify({
          schema: CLIENT_RESULTS_SCHEMA,
          schemaVersion: CLIENT_RESULTS_VERSION,
          runId: hostile('run id'),
          index,
          parallelism: 3,
          host: LONG,
          ...extra,
        }),
      );
      if (!('doc' in parsed)) throw new Error(parsed.problem);
      return parsed.doc;
    };
    const merged = mergeClients(hostile('run id'), 3, [
      client(0, { results: sweep }),
      client(1, { failure: hostile('failure', 1), exitCode: 1 }),
    ]);
    const text = renderScaleout(merged, [2]);
    scanCommon('collect', text);
    expect(text).toContain('w'.repeat(20));
  });
});
