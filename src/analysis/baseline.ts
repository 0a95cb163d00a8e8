// `check`: a results file against a rolling baseline, as blobfuse2's perf gate does. The baseline is
// the last N results files run where this one ran (the same environment fingerprint); each
// contender's throughput and p99 are compared with the median of the baselines' figures, and the
// rank test (runs of the baselines pooled per contender against the new runs) says whether it
// regressed, improved or shows no significant difference. A regression beyond the tolerance fails.
import { PhaseHistograms, valuesAtPercentiles } from '../metrics/histograms.js';
import type { Environment, ResultsFile, RunRecord } from '../results/schema.js';
import { runFailed } from '../results/schema.js';
import { cellLabel } from '../results/label.js';
import { analyze, type ContenderStats } from './analyze.js';
import { mannWhitney, MIN_RUNS_FOR_SIGNIFICANCE, ratioInterval } from './significance.js';
import { significantlyFaster } from './significance.js';
import { ALPHA, median } from './stats.js';

export const CHECK_SCHEMA_VERSION = 1;

/** What decides whether two runs can be compared at all: where they ran and against what. */
export function fingerprint(doc: Pick<ResultsFile, 'command' | 'environment'>): Record<string, string> {
  const e: Environment = doc.environment;
  const none = 'not recorded';
  return {
    command: doc.command,
    'CPU model': e.cpuModel,
    CPUs: String(e.cpus),
    node: e.node,
    'VM size': e.cloud?.vmSize ?? none,
    region: e.cloud?.location ?? none,
    'target kind': e.targetKind,
  };
}

export interface FingerprintDifference {
  field: string;
  here: string;
  there: string;
}

type Fingerprint = Record<string, string>;

export function fingerprintDifferences(here: Fingerprint, there: Fingerprint): FingerprintDifference[] {
  return Object.keys(here).flatMap((field) =>
    here[field] === there[field]
      ? []
      : [{ field, here: here[field]!, there: there[field] ?? 'not recorded' }],
  );
}

export interface BaselineFile {
  path: string;
  doc: ResultsFile;
}

export interface BaselineChoice {
  /** The newest `last` that match, newest first. */
  chosen: BaselineFile[];
  /** Files of another environment, each with what differs. */
  refused: { path: string; differences: FingerprintDifference[] }[];
  /** Matching files left out: incomplete, or older than the last N. */
  skipped: { path: string; why: string }[];
}

/** The last `last` complete results files in the same environment as `next`, newest first. */
export function chooseBaselines(
  next: ResultsFile,
  files: readonly BaselineFile[],
  last: number,
): BaselineChoice {
  const here = fingerprint(next);
  const refused: BaselineChoice['refused'] = [];
  const skipped: BaselineChoice['skipped'] = [];
  const matching: BaselineFile[] = [];
  for (const c of files) {
    const differences = fingerprintDifferences(here, fingerprint(c.doc));
    if (differences.length) refused.push({ path: c.path, differences });
    else if (!c.doc.complete) skipped.push({ path: c.path, why: 'incomplete (the run was stopped)' });
    else matching.push(c);
  }
  matching.sort((a, b) => Date.parse(b.doc.createdAt) - Date.parse(a.doc.createdAt));
  for (const c of matching.slice(last)) skipped.push({ path: c.path, why: `older than the last ${last}` });
  return { chosen: matching.slice(0, last), refused, skipped };
}

export type CheckFigure = 'throughput' | 'p99';
export type CheckVerdict = 'regressed' | 'improved' | 'no significant difference';

export interface CheckRow {
  contender: string;
  figure: CheckFigure;
  /** MiB/s or ops/s for throughput; ms for p99. */
  unit: string;
  /** The median over the baseline files of each file's figure. */
  baseline: number;
  /** This file's figure: the median run's rate, or the median of its runs' p99s. */
  current: number;
  /** (current - baseline) / baseline: negative is lower. */
  change: number;
  /** Higher throughput and lower p99 are better. */
  verdict: CheckVerdict;
  /** The rank test's two-sided p, pooled baseline runs against the new runs. */
  p: number;
  nBaseline: number;
  nCurrent: number;
  /** The worse-direction change allowed (0.1 = 10%). */
  tolerance: number;
  /** Regressed by more than the tolerance: the gate fails. */
  failed: boolean;
  note: string;
}

export interface CheckReport {
  schema: 'blob-cacher/check';
  schemaVersion: number;
  results: { path: string; createdAt: string };
  baselines: { path: string; createdAt: string }[];
  fingerprint: Record<string, string>;
  tolerance: number;
  p99Tolerance: number;
  rows: CheckRow[];
  /** Contenders in only one side: not compared. */
  onlyInResults: string[];
  onlyInBaseline: string[];
  passed: boolean;
}

export interface CheckOptions {
  /** Throughput may drop this share (0.1) before the gate fails. */
  tolerance: number;
  /** p99 may rise this share (0.2) before the gate fails. */
  p99Tolerance: number;
}

const byLabel = (runs: readonly RunRecord[]) => {
  const out = new Map<string, RunRecord[]>();
  for (const r of runs) {
    if (r.warmup || runFailed(r)) continue;
    const label = cellLabel(r.strategy, r.cell);
    out.set(label, [...(out.get(label) ?? []), r]);
  }
  return out;
};

/**
 * One run's p99 of request time, ms; undefined without requests. A file's p99 is the median of its
 * runs' (not the p99 of all its requests, which one slow run decides): the figure the rank test's
 * samples are, so that its change and the test's verdict speak of the same thing.
 */
function p99Of(run: RunRecord): number | undefined {
  const h = new PhaseHistograms();
  h.addEncoded(run.histograms);
  const total = h.byMetric.get('total');
  return total && total.totalCount > 0 ? valuesAtPercentiles(total, [99])[0]! / 1000 : undefined;
}

/** Per-run samples and the file's own figure, per contender. */
interface Side {
  rates: number[];
  p99s: number[];
  rate: number;
  p99?: number;
  unit: string;
}

function sideOf(doc: ResultsFile): Map<string, Side> {
  const runs = byLabel(doc.runs);
  const out = new Map<string, Side>();
  for (const s of analyze(doc.runs) as ContenderStats[]) {
    const mine = runs.get(s.label);
    if (!mine?.length || !s.verified) continue;
    const perOps = s.unit === 'ops/s';
    const p99s = mine.flatMap((r) => p99Of(r) ?? []);
    out.set(s.label, {
      rates: perOps ? s.ratesOpsPerSecond : s.ratesMiBps,
      p99s,
      rate: perOps ? s.opsPerSecond.median : s.throughputMiBps.median,
      ...(p99s.length ? { p99: median(p99s) } : {}),
      unit: s.unit,
    });
  }
  return out;
}

/**
 * Lower-is-better samples: did `next` get worse, better, or neither, by the verdicts' own rule (the
 * rank test at ALPHA and the ratio's 95% interval wholly past 1x)?
 */
function direction(base: readonly number[], next: readonly number[]): CheckVerdict {
  if (significantlyFaster(base, next)) return 'regressed';
  if (significantlyFaster(next, base)) return 'improved';
  return 'no significant difference';
}

/** Two samples and their figures, as `row` compares them. */
interface Pair {
  basePooled: number[];
  next: number[];
  baseline: number;
  current: number;
}

function row(contender: string, figure: CheckFigure, unit: string, d: Pair, tolerance: number): CheckRow {
  // Throughput is higher-is-better: its samples are turned round (1/x keeps the ranks reversed).
  const lowerBetter = (v: number[]) => (figure === 'p99' ? v : v.map((x) => (x > 0 ? 1 / x : Infinity)));
  const verdict = direction(lowerBetter(d.basePooled), lowerBetter(d.next));
  const change = d.baseline > 0 ? (d.current - d.baseline) / d.baseline : 0;
  const worse = figure === 'throughput' ? -change : change;
  const failed = verdict === 'regressed' && worse > tolerance;
  const { p } = mannWhitney(d.basePooled, d.next);
  const [nBaseline, nCurrent] = [d.basePooled.length, d.next.length];
  const ci = ratioInterval(lowerBetter(d.basePooled), lowerBetter(d.next));
  const pct = (v: number) => `${v >= 0 ? '+' : ''}${(v * 100).toFixed(1)}%`;
  const tol = `${(tolerance * 100).toFixed(0)}% tolerance`;
  const what = figure === 'throughput' ? 'baseline/new rate' : 'new/baseline p99';
  const ratio = `${what} ${ci.low.toFixed(2)}x–${ci.high.toFixed(2)}x (95% CI)`;
  let note: string;
  if (Math.min(nBaseline, nCurrent) < MIN_RUNS_FOR_SIGNIFICANCE) {
    note =
      `the rank test needs ${MIN_RUNS_FOR_SIGNIFICANCE} runs on each side ` +
      `(${nBaseline} baseline, ${nCurrent} new): ` +
      `give --runs ${MIN_RUNS_FOR_SIGNIFICANCE} or more`;
  } else if (verdict === 'no significant difference') {
    note = `p=${p.toFixed(3)}${p < ALPHA ? ", but the ratio's 95% interval reaches 1x" : ''}`;
  } else {
    const against = failed ? `beyond the ${tol}` : verdict === 'regressed' ? `within the ${tol}` : 'better';
    note = `${pct(change)}, p=${p.toFixed(3)}, ${ratio}; ${against}`;
  }
  const { baseline, current } = d;
  return {
    contender,
    figure,
    unit,
    baseline,
    current,
    change,
    verdict,
    p,
    nBaseline,
    nCurrent,
    tolerance,
    failed,
    note,
  };
}

/** This file's contenders against the baselines' (already chosen: same environment). */
export function checkAgainstBaseline(
  next: BaselineFile,
  baselines: readonly BaselineFile[],
  o: CheckOptions,
): CheckReport {
  const current = sideOf(next.doc);
  const bases = baselines.map((b) => sideOf(b.doc));
  const rows: CheckRow[] = [];
  for (const [label, now] of current) {
    const theirs = bases.flatMap((b) => (b.has(label) ? [b.get(label)!] : []));
    if (!theirs.length) continue;
    const baseRate = median(theirs.map((b) => b.rate));
    const basePooledRates = theirs.flatMap((b) => b.rates);
    const rates = { basePooled: basePooledRates, next: now.rates, baseline: baseRate, current: now.rate };
    rows.push(row(label, 'throughput', now.unit, rates, o.tolerance));
    const p99s = theirs.flatMap((b) => (b.p99 !== undefined ? [b.p99] : []));
    if (now.p99 === undefined || !p99s.length) continue;
    const basePooled = theirs.flatMap((b) => b.p99s);
    const tails = { basePooled, next: now.p99s, baseline: median(p99s), current: now.p99 };
    rows.push(row(label, 'p99', 'ms', tails, o.p99Tolerance));
  }
  const inBase = new Set(bases.flatMap((b) => [...b.keys()]));
  return {
    schema: 'blob-cacher/check',
    schemaVersion: CHECK_SCHEMA_VERSION,
    results: { path: next.path, createdAt: next.doc.createdAt },
    baselines: baselines.map((b) => ({ path: b.path, createdAt: b.doc.createdAt })),
    fingerprint: fingerprint(next.doc),
    tolerance: o.tolerance,
    p99Tolerance: o.p99Tolerance,
    rows,
    onlyInResults: [...current.keys()].filter((l) => !inBase.has(l)),
    onlyInBaseline: [...inBase].filter((l) => !current.has(l)),
    passed: rows.every((r) => !r.failed),
  };
}
