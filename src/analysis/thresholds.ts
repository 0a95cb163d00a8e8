// --threshold, evaluated once against the report's contenders: each rule's figure read where the
// report holds it, compared with its limit; a claim (`chunked faster than single`) decided by the
// rule the ranks use (significance.ts: the rank test and the ratio's interval). Renderers print the
// rows; the CLI sets the exit code from `passed`.
import type { ClaimThreshold, Comparator, FigureThreshold, Threshold } from '../config/thresholds.js';
import { LATENCY_PERCENTILES } from './analyze.js';
import type { ContenderCost } from './cost.js';
import { mannWhitney, ratioInterval, significantlyFaster } from './significance.js';
import { median } from './stats.js';
import type { RankedStats } from './verdict.js';

/** The exit code of a gate that failed (a threshold, or `check`'s regression), as k6's thresholds. */
export const GATE_FAILED_EXIT = 99;

type Contender = RankedStats & { cost: ContenderCost };

export interface ThresholdRow {
  /** The rule as the user wrote it. */
  threshold: string;
  /** The contender it was read from; for a claim, `a vs b`. */
  contender: string;
  /** The figure's name (`p99`, `MiB/s`), or the claim (`faster than`). */
  figure: string;
  /** The figure as measured, in `unit`; absent where the run has no such figure. */
  actual?: number;
  unit: string;
  op?: Comparator;
  limit?: number;
  passed: boolean;
  /** Why, in words: the figure against its limit, the test's p and ratio, or what is missing. */
  note: string;
}

export interface ThresholdResults {
  passed: boolean;
  rows: ThresholdRow[];
}

const finite = (v: number | undefined): v is number => typeof v === 'number' && Number.isFinite(v);

function compare(actual: number, op: Comparator, limit: number): boolean {
  switch (op) {
    case '<':
      return actual < limit;
    case '<=':
      return actual <= limit;
    case '>':
      return actual > limit;
    case '>=':
      return actual >= limit;
    case '==':
      return actual === limit;
    case '!=':
      return actual !== limit;
  }
}

/** Where the report holds each figure a threshold can name; undefined where this contender has none. */
function figureOf(c: Contender, name: string): number | undefined {
  const pct = /^(p[\d.]+|min|max)$/.exec(name);
  if (pct) {
    const p = name === 'min' ? 0 : name === 'max' ? 100 : Number(name.slice(1));
    const i = (LATENCY_PERCENTILES as readonly number[]).indexOf(p);
    return i >= 0 ? c.totalPercentilesMs[i] : undefined;
  }
  const metric = /^(\w+) (p50|p90|p99|max)$/.exec(name);
  if (metric) return c.latencyMs[metric[1] as keyof Contender['latencyMs']]?.[metric[2] as 'p50'];
  const tier = /^cost per (1k|GiB)(?: (\w+))?$/.exec(name);
  if (tier) {
    const t = tier[2] ? c.cost.tiers.find((x) => x.tier === tier[2]) : c.cost.tiers[0];
    return tier[1] === '1k' ? t?.per1000Objects : t?.perGiB;
  }
  const requests = c.requestsPerRun * c.runs;
  const figures: Record<string, number | undefined> = {
    time: c.timesMs.length ? c.wallMs.median : undefined,
    'MiB/s': c.timesMs.length ? c.throughputMiBps.median : undefined,
    'ops/s': c.timesMs.length ? c.opsPerSecond.median : undefined,
    'blobs/s': c.blobsPerSecond?.median,
    errors: c.failedRequests,
    'error rate': requests > 0 ? c.failedRequests / requests : undefined,
    retries: c.retries,
    throttled: c.throttled,
    'requests per object': c.cost.requestsPerObject,
    runs: c.runs,
  };
  return figures[name];
}

/** A contender named by its label, or by its strategy (every sweep cell of it). */
const named = (all: readonly Contender[], name: string) => {
  const exact = all.filter((c) => c.label === name);
  return exact.length ? exact : all.filter((c) => c.strategy === name);
};

/** A figure in its unit, to a few significant figures: 12.3 ms, 1.5%, $0.002, 3. */
function shown(v: number, unit: string): string {
  if (unit === '%') return `${+(v * 100).toPrecision(4)}%`;
  if (unit === '$') return `$${+v.toPrecision(3)}`;
  if (unit === 'count') return `${+v.toPrecision(6)}`;
  return `${+v.toPrecision(4)} ${unit}`;
}

function figureRows(t: FigureThreshold, all: readonly Contender[]): ThresholdRow[] {
  const base = { threshold: t.text, figure: t.figure.name, unit: t.figure.unit, op: t.op, limit: t.limit };
  const scope = t.contender === undefined ? all : named(all, t.contender);
  if (!scope.length) {
    const note =
      t.contender === undefined
        ? 'no contender was measured'
        : `no contender ${t.contender} in these results`;
    return [{ ...base, contender: t.contender ?? '(none)', passed: false, note }];
  }
  // A rate's name is its unit: `968 MiB/s`, not `MiB/s 968 MiB/s`.
  const name = t.figure.name === t.figure.unit ? '' : `${t.figure.name} `;
  return scope.map((c) => {
    const actual = figureOf(c, t.figure.name);
    if (!finite(actual)) {
      const note = `${c.label} has no ${t.figure.name} figure${c.verified ? '' : ' (it failed)'}`;
      return { ...base, contender: c.label, passed: false, note };
    }
    const passed = compare(actual, t.op, t.limit);
    const note = `${name}${shown(actual, t.figure.unit)}, limit ${t.op} ${shown(t.limit, t.figure.unit)}`;
    return { ...base, contender: c.label, actual, passed, note };
  });
}

/** Pairs for a claim: one contender each, or in a sweep the cells both strategies ran in. */
function claimPairs(as: readonly Contender[], bs: readonly Contender[]): [Contender, Contender][] {
  if (as.length === 1 && bs.length === 1) return [[as[0]!, bs[0]!]];
  const cellOf = (c: Contender) => JSON.stringify(c.cell ?? {});
  const sameCell = (a: Contender) => bs.filter((b) => cellOf(a) === cellOf(b));
  return as.flatMap((a) => sameCell(a).map((b): [Contender, Contender] => [a, b]));
}

const x = (v: number) => `${v.toFixed(2)}x`;

function claimRows(t: ClaimThreshold, all: readonly Contender[]): ThresholdRow[] {
  const figure = t.claim === 'faster' ? 'faster than' : 'not slower than';
  const pairs = claimPairs(named(all, t.a), named(all, t.b));
  if (!pairs.length) {
    const note = `${t.a} and ${t.b} were not both measured (in one sweep cell)`;
    return [{ threshold: t.text, contender: `${t.a} vs ${t.b}`, figure, unit: 'x', passed: false, note }];
  }
  return pairs.map(([a, b]) => {
    const row = { threshold: t.text, contender: `${a.label} vs ${b.label}`, figure, unit: 'x' };
    const failed = [a, b].filter((c) => !c.verified || !c.timesMs.length);
    if (failed.length) {
      const note = `${failed.map((c) => c.label).join(' and ')} failed: no times to compare`;
      return { ...row, passed: false, note };
    }
    // b's median over a's: above 1x, a is the faster.
    const ratio = median(b.timesMs) / median(a.timesMs);
    const ci = ratioInterval(a.timesMs, b.timesMs);
    const { p } = mannWhitney(a.timesMs, b.timesMs);
    const aFaster = significantlyFaster(a.timesMs, b.timesMs);
    const bFaster = significantlyFaster(b.timesMs, a.timesMs);
    const passed = t.claim === 'faster' ? aFaster : !bFaster;
    const said = aFaster
      ? `${a.label} is significantly faster`
      : bFaster
        ? `${b.label} is significantly faster`
        : 'no significant difference';
    const n = `n=${a.timesMs.length}/${b.timesMs.length}`;
    const note = `${said}: ${x(ratio)} (95% CI ${x(ci.low)}–${x(ci.high)}), p=${p.toFixed(3)}, ${n}`;
    return { ...row, actual: ratio, passed, note };
  });
}

/** Every rule's rows, in the order given; the whole passes when every row does. */
export function evaluateThresholds(rules: readonly Threshold[], all: readonly Contender[]): ThresholdResults {
  const rows = rules.flatMap((t) => (t.kind === 'claim' ? claimRows(t, all) : figureRows(t, all)));
  return { passed: rows.every((r) => r.passed), rows };
}
