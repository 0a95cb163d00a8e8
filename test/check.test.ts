// `check RESULTS --baseline DIR` on real results: five sessions of single and chunked against a
// paced emulated target (8 runs each, test/golden/check), and a sixth made slower by a planted
// factor, consistently (test/helpers/slow-down.ts: wall times, sums, histograms). 25% slower is a
// regression that fails the gate; 2% is no significant difference; a baseline from another
// environment is refused, naming what differs.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { chooseBaselines, type checkAgainstBaseline } from '../src/analysis/baseline.js';
import { GATE_FAILED_EXIT } from '../src/analysis/thresholds.js';
import type { ResultsFile } from '../src/results/schema.js';
import { runCli } from './helpers/cli.js';
import { junitProblems } from './helpers/junit-schema.js';
import { slowDown } from './helpers/slow-down.js';
import { freshDirsSync } from './helpers/temp-dirs.js';

const GOLDEN = join(import.meta.dirname, 'golden', 'check');
const BASELINES = [1, 2, 3, 4, 5].map((i) => `baseline-${i}.json`);
const read = (name: string) => JSON.parse(readFileSync(join(GOLDEN, name), 'utf8')) as ResultsFile;
/** Later than every baseline, as a new run's file is. */
const LATER = '2030-01-01T00:00:00.000Z';
const freshDir = freshDirsSync('check-');

/** A baseline directory of the five real sessions (each maybe changed), and the new file beside it. */
function setUp(
  factor: number,
  change?: (doc: ResultsFile) => void,
): { cwd: string; dir: string; results: string } {
  const cwd = freshDir();
  const dir = join(cwd, 'baseline');
  mkdirSync(dir);
  for (const name of BASELINES) {
    if (!change) copyFileSync(join(GOLDEN, name), join(dir, name));
    else {
      const doc = read(name);
      change(doc);
      writeFileSync(join(dir, name), JSON.stringify(doc));
    }
  }
  const results = join(cwd, 'new.json');
  writeFileSync(results, JSON.stringify(slowDown(read('new.json'), factor, LATER)));
  return { cwd, dir, results };
}

describe('check against the last runs in the same environment', () => {
  it('flags a planted 25% slowdown as a regression beyond the tolerance: exit 99', async () => {
    const { cwd, dir, results } = setUp(1.25);
    const r = await runCli(['check', results, '--baseline', dir], { cwd });
    expect(r.code, r.stderr).toBe(GATE_FAILED_EXIT);
    expect(r.stdout).toMatch(/^FAIL +single +throughput .* regressed \(-2\d\.\d%, p=0\.0\d\d/m);
    expect(r.stdout).toMatch(/^check FAILED: single throughput regressed -2\d\.\d%/m);
    expect(r.stdout).toContain('against the median of 5 baseline file(s)');
  });

  it(
    'calls a planted 2% slowdown no significant difference, for every contender ' + 'and figure: exit 0',
    async () => {
      const { cwd, dir, results } = setUp(1.02);
      const r = await runCli(['check', results, '--baseline', dir, '--format', 'json'], { cwd });
      expect(r.code, r.stderr).toBe(0);
      const report = JSON.parse(r.stdout) as ReturnType<typeof checkAgainstBaseline>;
      expect(report.rows.map((x) => `${x.contender} ${x.figure}`).sort()).toEqual([
        'chunked p99',
        'chunked throughput',
        'single p99',
        'single throughput',
      ]);
      for (const row of report.rows)
        expect(row.verdict, `${row.contender} ${row.figure}`).toBe('no significant difference');
      expect(report.passed).toBe(true);
    },
  );

  it('refuses a baseline from another environment: exit 2, one line naming the difference', async () => {
    const { cwd, dir, results } = setUp(1, (doc) => {
      doc.environment.node = 'v22.0.0';
    });
    const r = await runCli(['check', results, '--baseline', dir], { cwd });
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(
          '^blob-cacher: no results file in .*baseline ran in this ' +
            String.raw`environment: of 5, 5 differ in node \(v22\.0\.0 there, v24\.\d+\.\d+ here\); ` +
            'run the baseline where this ran',
        ),
      ),
    ]);
  });

  it('refuses fewer matching files than --min-baseline, and takes only the newest --last', async () => {
    let n = 0;
    const { cwd, dir, results } = setUp(1, (doc) => {
      if (++n > 2)
        doc.environment.cloud = { provider: 'azure', vmSize: 'Standard_D4s_v5', location: 'westeurope' };
    });
    const few = await runCli(['check', results, '--baseline', dir], { cwd });
    expect(few.code).toBe(2);
    expect(few.stderr).toMatch(
      new RegExp(
        String.raw`only 2 results file\(s\) in .* fewer than --min-baseline 3 ` +
          String.raw`\(of the others, 3 differ in VM size \(Standard_D4s_v5 there, not recorded ` +
          String.raw`here\), 3 differ in region`,
      ),
    );
    const two = await runCli(
      ['check', results, '--baseline', dir, '--min-baseline', '2', '--last', '2', '--format', 'junit'],
      { cwd },
    );
    expect(two.code, two.stderr).toBe(0);
    expect(junitProblems(two.stdout.trimEnd())).toEqual([]);
    expect(two.stdout.match(/<property name="baseline\.\d"/g)).toHaveLength(2);
  });

  it('the file under check is never its own baseline, and the newest files are the ones kept', () => {
    const next = { path: 'new.json', doc: slowDown(read('new.json'), 1, LATER) };
    const candidates = BASELINES.map((path) => ({ path, doc: read(path) }));
    const choice = chooseBaselines(next.doc, candidates, 3);
    const newest = [...candidates]
      .sort((a, b) => b.doc.createdAt.localeCompare(a.doc.createdAt))
      .slice(0, 3)
      .map((c) => c.path);
    expect(choice.chosen.map((c) => c.path)).toEqual(newest);
    expect(choice.skipped.map((s) => s.why)).toEqual(['older than the last 3', 'older than the last 3']);
  });

  it('a results file inside the baseline directory is left out of its own baseline', async () => {
    const { cwd, dir } = setUp(1);
    const inside = join(dir, 'zz-new.json');
    writeFileSync(inside, JSON.stringify(slowDown(read('new.json'), 1, LATER)));
    const r = await runCli(['check', inside, '--baseline', dir, '--format', 'json'], { cwd });
    expect(r.code, r.stderr).toBe(0);
    expect(
      (JSON.parse(r.stdout) as { baselines: { path: string }[] }).baselines.map((b) => b.path),
    ).not.toContain(inside);
  });
});
