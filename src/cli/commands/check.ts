// `blob-cacher check RESULTS --baseline DIR`: reads a results file and the results files in DIR,
// keeps those run in the same environment as the baseline, prints the comparison and exits 99 when a
// figure regressed beyond its tolerance; 2, naming the difference, when no baseline matches.
import { readdir, realpath, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { ConfigError } from '../../vocabulary/errors.js';
import { buildProgram, parseFlags, resolveOptions } from '../../config/load.js';
import { CHECK_OPTIONS } from '../../config/options.js';
import { log, redact } from '../../log/logger.js';
import { readResults } from '../../results/file.js';
import type { ResultsFile } from '../../results/schema.js';
import type { BaselineChoice } from '../../analysis/baseline.js';
import type { Env } from '../command-kit.js';

const SUMMARY =
  'Compare a results file with the median of the last runs in --baseline DIR ' +
  'from the same environment: ' +
  'per contender, throughput and p99 regressed, improved or no significant difference (rank test); ' +
  'exit 99 on a regression beyond the tolerance.';

/** More files than this in the baseline directory is a directory of something else, or needs pruning. */
const MAX_BASELINE_FILES = 1000;

/** A results file with its raw records dropped: the comparison reads runs' figures and histograms only. */
async function readLean(path: string): Promise<ResultsFile> {
  const doc = await readResults(path);
  for (const r of doc.runs) r.records = [];
  return doc;
}

async function baselineFiles(dir: string, self: string): Promise<string[]> {
  const info = await stat(dir).catch(() => undefined);
  if (!info?.isDirectory()) {
    throw new ConfigError(
      `--baseline ${dir} is not a directory; ` + 'give the directory that holds earlier results files',
    );
  }
  const names = (await readdir(dir)).filter((n) => n.endsWith('.json')).sort();
  if (names.length > MAX_BASELINE_FILES) {
    throw new ConfigError(
      `--baseline ${dir} holds ${names.length} .json files, ` +
        `more than ${MAX_BASELINE_FILES}; ` +
        'keep the recent ones in a directory of their own',
    );
  }
  const paths: string[] = [];
  for (const n of names) {
    const path = join(dir, n);
    // The file under check may lie in the baseline directory: it is never its own baseline.
    if ((await realpath(path).catch(() => path)) !== self) paths.push(path);
  }
  return paths;
}

/** The baseline directory's results files, read; one that cannot be read is left out, saying so. */
async function readBaseline(dir: string, self: string) {
  const candidates = [];
  let unreadable = 0;
  for (const path of await baselineFiles(dir, self)) {
    try {
      candidates.push({ path, doc: await readLean(path) });
    } catch (err) {
      unreadable++;
      log.warn(`${path}: left out of the baseline: ${(err as Error).message.split('\n')[0]}`);
    }
  }
  if (!candidates.length) {
    const count = unreadable ? ` (${unreadable} unreadable)` : '';
    throw new ConfigError(
      `--baseline ${dir} holds no readable results files${count}; ` +
        "give the directory the earlier runs' --results went to",
    );
  }
  return candidates;
}

export async function checkCommand(argv: readonly string[], env: Env, name = 'check'): Promise<number> {
  const program = buildProgram(name, CHECK_OPTIONS, SUMMARY).argument(
    '<results>',
    'the results file to check',
  );
  const flags = parseFlags(program, argv);
  if (!flags) return 0;
  const o = resolveOptions(CHECK_OPTIONS, flags, { env });
  const [resultsPath] = program.args;
  if (!resultsPath) throw new ConfigError('check takes one results file; give its path');
  if (o.baseline === undefined) {
    throw new ConfigError(
      'check needs --baseline DIR, the directory of earlier results files to compare with',
    );
  }
  if (o.minBaseline > o.last) {
    throw new ConfigError(
      `--min-baseline ${o.minBaseline} is more than --last ${o.last}; ` +
        `give a --last of at least ${o.minBaseline}`,
    );
  }
  const [baseline, { renderCheck }, { GATE_FAILED_EXIT }] = await Promise.all([
    import('../../analysis/baseline.js'),
    import('../../report/check.js'),
    import('../../analysis/thresholds.js'),
  ]);
  const next = await readLean(resultsPath);
  const candidates = await readBaseline(o.baseline, await realpath(resolve(resultsPath)));
  const choice = baseline.chooseBaselines(next, candidates, o.last);
  for (const s of choice.skipped) log.info(`${s.path}: not in the baseline: ${s.why}`);
  if (choice.chosen.length < o.minBaseline) {
    throw new ConfigError(refusal(choice, baseline.fingerprint(next), o, candidates.length));
  }
  const report = baseline.checkAgainstBaseline({ path: resultsPath, doc: next }, choice.chosen, o);
  if (!report.rows.length) {
    const theirs = report.onlyInBaseline.join(', ') || 'no verified runs';
    throw new ConfigError(
      `no contender of ${resultsPath} is in the baseline (it has ${theirs}); ` +
        'compare runs of the same strategies',
    );
  }
  process.stdout.write(`${redact(renderCheck(report, o.format))}\n`);
  return report.passed ? 0 : GATE_FAILED_EXIT;
}

/** Why the baseline is too small, naming what differs: per field, how many files and the value they have. */
function refusal(
  choice: BaselineChoice,
  here: Record<string, string>,
  o: { baseline?: string; minBaseline: number },
  read: number,
): string {
  const byField = new Map<string, { n: number; there: string }>();
  for (const d of choice.refused.flatMap((r) => r.differences)) {
    const seen = byField.get(d.field);
    byField.set(d.field, { n: (seen?.n ?? 0) + 1, there: seen?.there ?? d.there });
  }
  const why = [...byField]
    .map(([f, v]) => `${v.n} differ in ${f} (${v.there} there, ${here[f]} here)`)
    .join(', ');
  if (choice.chosen.length) {
    return (
      `only ${choice.chosen.length} results file(s) in ${o.baseline} ran in this environment, ` +
      `fewer than --min-baseline ${o.minBaseline}${why ? ` (of the others, ${why})` : ''}; ` +
      'add runs to the baseline or lower --min-baseline'
    );
  }
  const incomplete = choice.skipped.filter((s) => s.why.startsWith('incomplete')).length;
  return (
    `no results file in ${o.baseline} ran in this environment${why ? `: of ${read}, ${why}` : ''}` +
    `${incomplete ? `; ${incomplete} match but are incomplete` : ''}; ` +
    'run the baseline where this ran, or point --baseline at results from here'
  );
}
