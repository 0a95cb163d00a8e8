// --threshold: its grammar (and one line naming the problem and the fix for bad text, before any
// run), its evaluation into the report model, the pass/fail table in every format, exit 99 when a
// rule fails, and --format junit checked against the structure of the JUnit schemas.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LATENCY_PERCENTILES } from '../src/analysis/analyze.js';
import { buildReport } from '../src/analysis/report-model.js';
import { GATE_FAILED_EXIT } from '../src/analysis/thresholds.js';
import { FORMATS } from '../src/config/options.js';
import { parseThresholds, THRESHOLD_PERCENTILES, type Threshold } from '../src/config/thresholds.js';
import { startEmulatedTarget, type EmulatedTarget } from '../src/emulate/server.js';
import { renderReport } from '../src/report/render.js';
import type { ResultsFile } from '../src/results/schema.js';
import { runCli } from './helpers/cli.js';
import { junitProblems, parseXml } from './helpers/junit-schema.js';
import { freshDirsSync } from './helpers/temp-dirs.js';

const NAMES = ['single', 'chunked', 'sdk'];
const parsed = (text: string): Threshold[] => {
  const t = parseThresholds(text, NAMES);
  if ('problem' in t) throw new Error(t.problem);
  return t;
};

describe('--threshold grammar', () => {
  it(
    "reads the issue's examples into a figure, a comparison and a limit in the " +
      "figure's unit, or a claim",
    () => {
      expect(parsed('p99<200ms')).toEqual([
        expect.objectContaining({ kind: 'figure', figure: { name: 'p99', unit: 'ms' }, op: '<', limit: 200 }),
      ]);
      expect(parsed('MiB/s>500')).toEqual([
        expect.objectContaining({ figure: { name: 'MiB/s', unit: 'MiB/s' }, op: '>', limit: 500 }),
      ]);
      expect(parsed('errors==0')).toEqual([
        expect.objectContaining({ figure: { name: 'errors', unit: 'count' }, op: '==', limit: 0 }),
      ]);
      expect(parsed('cost per 1k<0.01')).toEqual([
        expect.objectContaining({ figure: { name: 'cost per 1k', unit: '$' }, limit: 0.01 }),
      ]);
      expect(parsed('chunked faster than single')).toEqual([
        { kind: 'claim', text: 'chunked faster than single', claim: 'faster', a: 'chunked', b: 'single' },
      ]);
      expect(parsed('chunked: p99<200ms')).toEqual([
        expect.objectContaining({ contender: 'chunked', op: '<', limit: 200 }),
      ]);
      expect(parsed('chunked [--concurrency 8]: firstByte p99 <= 1.5s')).toEqual([
        expect.objectContaining({
          contender: 'chunked [--concurrency 8]',
          figure: { name: 'firstByte p99', unit: 'ms' },
          op: '<=',
          limit: 1500,
        }),
      ]);
      expect(parsed('error rate<1%; sdk not slower than single')).toEqual([
        expect.objectContaining({ figure: { name: 'error rate', unit: '%' }, limit: 0.01 }),
        expect.objectContaining({ kind: 'claim', claim: 'not-slower', a: 'sdk', b: 'single' }),
      ]);
    },
  );

  it('a percentile is one every report carries', () => {
    expect([...THRESHOLD_PERCENTILES]).toEqual([...LATENCY_PERCENTILES]);
  });

  for (const [text, fix] of [
    ['p98<1ms', /'p98' in 'p98<1ms' is not a reported figure; use one of .*docs\/thresholds\.md/],
    ['chunkd: p99<1ms', /'chunkd' is not a contender; name one of single, chunked, sdk/],
    ['p99<1xs', /not a limit for p99; write a duration such as 200ms/],
    ['p99 200ms', /has no comparison .*; write one, e\.g\. 'p99<200ms'/],
    ['4MiB', /is a size, not a rule; .* --single-shot-size/],
    ['chunked faster than chunked', /compares chunked with itself/],
    ['errors==none', /write a plain number/],
  ] as const) {
    it(`'${text}' is refused with the problem and the fix`, () => {
      const t = parseThresholds(text, NAMES);
      expect('problem' in t && t.problem).toMatch(fix);
    });
  }
});

const fixture = (name: string) =>
  JSON.parse(
    readFileSync(join(import.meta.dirname, 'golden', 'check', `${name}.json`), 'utf8'),
  ) as ResultsFile;

describe('a report with thresholds: evaluated once, shown by every format', async () => {
  // Real runs: single and chunked, 8 runs each, from test/golden/check.
  const report = buildReport(fixture('new'), {
    title: 't',
    thresholds: parsed('p99<1ms; errors==0; chunked: MiB/s>1; single faster than chunked'),
  });
  const out = Object.fromEntries(
    await Promise.all(FORMATS.map(async (f) => [f, await renderReport(report, f)] as const)),
  );
  const at99 = LATENCY_PERCENTILES.indexOf(99);

  it('each rule has a row per contender it names, with the figure as the report states it', () => {
    const rows = report.thresholds!.rows;
    expect(report.thresholds!.passed).toBe(false);
    for (const c of report.contenders) {
      const p99 = rows.find((r) => r.threshold === 'p99<1ms' && r.contender === c.label)!;
      expect(p99).toMatchObject({
        actual: c.totalPercentilesMs[at99],
        passed: c.totalPercentilesMs[at99]! < 1,
      });
      expect(rows.find((r) => r.threshold === 'errors==0' && r.contender === c.label)).toMatchObject({
        actual: c.failedRequests,
        passed: c.failedRequests === 0,
      });
    }
    const rate = report.contenders.find((c) => c.label === 'chunked')!.throughputMiBps.median;
    expect(rows.filter((r) => r.threshold === 'chunked: MiB/s>1')).toEqual([
      expect.objectContaining({ contender: 'chunked', actual: rate, passed: rate > 1 }),
    ]);
    const claim = rows.find((r) => r.figure === 'faster than')!;
    expect(claim.contender).toBe('single vs chunked');
    // Decided as the ranks are: passed exactly when single ranks ahead of chunked.
    const rank = (l: string) => report.contenders.find((c) => c.label === l)!.rank;
    expect(claim.passed).toBe(rank('single') < rank('chunked'));
  });

  it('console, Markdown, HTML and JSON show the failed row; CSV has a pass/fail column per rule', () => {
    expect(out.console).toMatch(/^ {2}FAIL {2}p99<1ms +single +p99 [\d.]+ ms, limit < 1 ms$/m);
    expect(out.console).toMatch(/^thresholds: \d+ of \d+ FAILED$/m);
    expect(out.md).toMatch(/^\| FAIL \| p99\\<1ms \| single \|/m);
    expect(out.html).toMatch(/<td>FAIL<\/td><td><code>p99&lt;1ms<\/code><\/td><td>single<\/td>/);
    expect(JSON.parse(out.json!).thresholds).toEqual(JSON.parse(JSON.stringify(report.thresholds)));
    const [head, ...rows] = out.csv!.split('\n').map((l) => l.split(','));
    const col = head!.indexOf('threshold: p99<1ms');
    expect(col).toBeGreaterThan(0);
    for (const row of rows) expect(row[col]).toBe('fail');
    expect(rows.map((r) => r[head!.indexOf('threshold: errors==0')])).toEqual(rows.map(() => 'pass'));
  });

  it(
    'JUnit: each threshold row a testcase, a failure element where it failed; it ' + 'fits the JUnit schemas',
    () => {
      expect(junitProblems(out.junit!)).toEqual([]);
      const suites = parseXml(out.junit!).children;
      const cases = suites
        .find((s) => s.attrs.name === 'thresholds')!
        .children.filter((c) => c.name === 'testcase');
      expect(cases).toHaveLength(report.thresholds!.rows.length);
      for (const [i, row] of report.thresholds!.rows.entries()) {
        expect(cases[i]!.attrs.name).toBe(`${row.threshold} [${row.contender}]`);
        expect(cases[i]!.children.some((c) => c.name === 'failure')).toBe(!row.passed);
      }
      expect(
        suites
          .find((s) => s.attrs.name === 'runs')!
          .children.filter((c) => c.name === 'testcase')
          .map((c) => c.attrs.name),
      ).toEqual(report.contenders.map((c) => c.label));
    },
  );

  it(
    'the schema check is not vacuous: it finds a zone in a timestamp, a missing classname and a ' +
      'miscount',
    () => {
      const broken = out
        .junit!.replace(/timestamp="([^"]+)"/, 'timestamp="$1Z"')
        .replace(/ classname="[^"]*"/, '')
        .replace(/(<testsuite name="[^"]*" )tests="\d+"/, '$1tests="99"');
      const problems = junitProblems(broken);
      expect(problems.join('\n')).toMatch(/timestamp=.*Z" does not match/);
      expect(problems.join('\n')).toMatch(/required attribute classname missing/);
      expect(problems.join('\n')).toMatch(/tests="99" but \d+ testcases/);
      expect(junitProblems(out.junit!.replace('</testsuites>', ''))[0]).toMatch(/not well-formed/);
    },
  );

  it(
    'compare --format junit: a testcase per strategy, failing where the new file ' +
      'is significantly slower',
    async () => {
      const { buildCompareReport } = await import('../src/analysis/compare.js');
      const { renderCompare } = await import('../src/report/compare.js');
      const [base, next] = [fixture('baseline-1'), fixture('new')];
      const result = buildCompareReport(base, next, ['a.json', 'b.json']);
      const xml = renderCompare(result, 'junit');
      expect(junitProblems(xml)).toEqual([]);
      const cases = parseXml(xml).children[0]!.children.filter((c) => c.name === 'testcase');
      expect(cases.map((c) => c.attrs.name)).toEqual(result.changes.map((c) => c.strategy));
      for (const [i, c] of result.changes.entries())
        expect(cases[i]!.children.some((x) => x.name === 'failure')).toBe(c.verdict === 'slower');
    },
  );

  it('a report without thresholds has none, and no threshold section', async () => {
    const plain = buildReport(fixture('new'), { title: 't' });
    expect(plain.thresholds).toBeUndefined();
    const shown = await Promise.all(FORMATS.map((f) => renderReport(plain, f)));
    for (const text of shown) expect(text).not.toMatch(/thresholds?:|Thresholds/);
  });
});

describe('in a sweep: a strategy names each of its cells, a label one cell, and a claim pairs cells', () => {
  // Two real sessions' runs stand for the two cells of a sweep of --concurrency 2,4.
  const doc = fixture('new');
  const other = fixture('baseline-1');
  doc.sweep = [{ flag: '--concurrency', values: ['2', '4'] }];
  doc.runs = [
    ...doc.runs.map((r) => ({ ...r, cell: { '--concurrency': '2' } })),
    ...other.runs.map((r) => ({ ...r, cell: { '--concurrency': '4' } })),
  ];
  const report = buildReport(doc, {
    title: 't',
    thresholds: parsed(
      'chunked: time<10s; chunked [--concurrency 4]: errors==0; chunked not slower than single',
    ),
  });
  const rows = report.thresholds!.rows;

  it('rows per cell, each from its own contender', () => {
    expect(
      rows
        .filter((r) => r.threshold === 'chunked: time<10s')
        .map((r) => r.contender)
        .sort(),
    ).toEqual(['chunked [--concurrency 2]', 'chunked [--concurrency 4]']);
    expect(rows.filter((r) => r.threshold.includes('errors')).map((r) => r.contender)).toEqual([
      'chunked [--concurrency 4]',
    ]);
    const claims = rows
      .filter((r) => r.figure === 'not slower than')
      .map((r) => r.contender)
      .sort();
    expect(claims).toEqual([
      'chunked [--concurrency 2] vs single [--concurrency 2]',
      'chunked [--concurrency 4] vs single [--concurrency 4]',
    ]);
    for (const r of rows.filter((x) => x.threshold === 'chunked: time<10s')) {
      expect(r.actual).toBe(report.contenders.find((c) => c.label === r.contender)!.wallMs.median);
    }
  });
});

const freshDir = freshDirsSync('thresholds-');

describe('the CLI: exit 99 on a failed rule, 2 before any run on bad text', () => {
  let target: EmulatedTarget;
  let url: string;
  beforeAll(async () => {
    target = await startEmulatedTarget({
      objects: new Map([['/blob.bin', Buffer.alloc(8 * 1024 * 1024, 7)]]),
    });
    url = `${target.url}/blob.bin`;
  });
  afterAll(async () => target.close());

  it(
    "--threshold 'p99<1ms' on a normal run exits 99 and prints the failed row; a " +
      'rule that holds exits 0',
    async () => {
      const cwd = freshDir();
      const results = join(cwd, 'r.json');
      const failed = await runCli(
        [
          'download',
          '--url',
          url,
          '--source-method',
          'single',
          '--results',
          results,
          '--threshold',
          'p99<1ms',
          '--threshold',
          'errors==0',
        ],
        { cwd },
      );
      expect(failed.code, failed.stderr).toBe(GATE_FAILED_EXIT);
      expect(failed.stdout).toMatch(/^ {2}FAIL {2}p99<1ms +single +p99 [\d.]+ ms, limit < 1 ms$/m);
      expect(failed.stdout).toMatch(/^ {2}PASS {2}errors==0 +single +errors 0, limit == 0$/m);
      const held = await runCli(['report', results, '--threshold', 'errors==0'], { cwd });
      expect(held.code, held.stderr).toBe(0);
      // A saved file gated again, in JUnit, from the environment (rules separated by ';').
      const junit = await runCli(['report', results, '--format', 'junit'], {
        cwd,
        env: { BLOB_CACHER_THRESHOLD: 'errors==0; p99<1ms' },
      });
      expect(junit.code).toBe(GATE_FAILED_EXIT);
      expect(junitProblems(junit.stdout.trimEnd())).toEqual([]);
      expect(junit.stdout).toMatch(/<testcase name="p99&lt;1ms \[single\]"[^>]*>\s*<failure /);
    },
  );

  it('bad threshold text: one line naming the problem and the fix, exit 2, and nothing run', async () => {
    const cwd = freshDir();
    const results = join(cwd, 'never.json');
    const before = target.log.byMethod.GET ?? 0;
    const r = await runCli(['download', '--url', url, '--results', results, '--threshold', 'p99<<1ms'], {
      cwd,
    });
    expect(r.code).toBe(2);
    expect(r.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(
          '^blob-cacher: invalid --threshold "p99<<1ms": expected a ' +
            "threshold, but '<1ms' in 'p99<<1ms' is not a limit for p99; write a duration " +
            'such as 200ms',
        ),
      ),
    ]);
    expect(existsSync(results)).toBe(false);
    expect(target.log.byMethod.GET ?? 0).toBe(before);
  });

  it("upload's single Put Blob size is --single-shot-size; an old --threshold SIZE says so", async () => {
    const r = await runCli(['upload', '--url', target.url, '--threshold', '4MiB'], { cwd: freshDir() });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/'4MiB' is a size, not a rule; .* --single-shot-size/);
  });
});
