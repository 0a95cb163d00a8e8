// A against B, per contender (strategy and sweep cell) and phase, as benchstat does: a rank test
// (Mann-Whitney U) on the runs' times, `~` when it finds no significant difference, and the ratio
// of medians with its bootstrap 95% interval; and where the two ran differently. Built once, here.
import type { ContenderStats } from './analyze.js';
import { analyze } from './analyze.js';
import {
  mannWhitney,
  MIN_RUNS_FOR_SIGNIFICANCE,
  ratioInterval,
  significantlyFaster,
} from './significance.js';
import { ALPHA } from './stats.js';
import type { Environment, ResultsFile } from '../results/schema.js';

export const COMPARE_SCHEMA_VERSION = 1;

export interface StrategyChange {
  strategy: string;
  baseMs: number;
  newMs: number;
  /** Negative is faster. */
  changePct: number;
  /** new / base median time, with its 95% interval. */
  ratio: number;
  ratioLow: number;
  ratioHigh: number;
  p: number;
  significant: boolean;
  /** faster, slower, or ~ (no significant difference). */
  verdict: 'faster' | 'slower' | '~';
  /** Why it is not significant, when it is not. */
  note: string;
  phases: { metric: string; baseP50Ms: number; newP50Ms: number; changePct: number }[];
  /** Whole-object completion's tail on both sides, where both measured it (e.g. without and with --hedge). */
  objectCompletion?: {
    baseP99Ms: number;
    newP99Ms: number;
    p99ChangePct: number;
    baseMaxMs: number;
    newMaxMs: number;
    maxChangePct: number;
  };
}

export interface EnvironmentDifference {
  field: string;
  base: string;
  next: string;
}

export interface CompareReport {
  schema: 'blob-cacher/compare';
  schemaVersion: number;
  base: { label: string; target: string; createdAt: string };
  next: { label: string; target: string; createdAt: string };
  changes: StrategyChange[];
  onlyInBase: string[];
  onlyInNew: string[];
  /** What decides transfer speed and differs between the two: the comparison may be of machines, not code. */
  environmentDifferences: EnvironmentDifference[];
}

const pct = (a: number, b: number) => (a > 0 ? ((b - a) / a) * 100 : 0);

export function compareStats(
  base: readonly ContenderStats[],
  next: readonly ContenderStats[],
): Pick<CompareReport, 'changes' | 'onlyInBase' | 'onlyInNew'> {
  const byName = new Map(next.map((s) => [s.label, s]));
  const changes: StrategyChange[] = [];
  for (const a of base) {
    const b = byName.get(a.label);
    if (b) changes.push(changeOf(a, b));
  }
  const baseNames = new Set(base.map((s) => s.label));
  return {
    changes,
    onlyInBase: base.filter((s) => !byName.has(s.label)).map((s) => s.label),
    onlyInNew: next.filter((s) => !baseNames.has(s.label)).map((s) => s.label),
  };
}

/** One contender in both files: the change in its median, whether it is significant, its phases. */
function changeOf(a: ContenderStats, b: ContenderStats): StrategyChange {
  const { p } = mannWhitney(a.timesMs, b.timesMs);
  // The verdict's own rule: the rank test and the ratio's interval, one way or the other.
  const faster = significantlyFaster(b.timesMs, a.timesMs);
  const significant = faster || significantlyFaster(a.timesMs, b.timesMs);
  const few = a.timesMs.length < MIN_RUNS_FOR_SIGNIFICANCE || b.timesMs.length < MIN_RUNS_FOR_SIGNIFICANCE;
  const note = significant
    ? ''
    : few
      ? `needs --runs >= ${MIN_RUNS_FOR_SIGNIFICANCE} on both sides`
      : p < ALPHA
        ? `p=${p.toFixed(2)}, but the ratio's 95% interval reaches 1x`
        : `p=${p.toFixed(2)}`;
  // Ratio as new/base: ratioInterval(fast, slow) measures slow/fast.
  const ci = ratioInterval(a.timesMs, b.timesMs);
  const phases = (['wait', 'firstByte', 'download', 'total'] as const)
    .filter((m) => a.latencyMs[m] && b.latencyMs[m])
    .map((m) => ({
      metric: m,
      baseP50Ms: a.latencyMs[m]!.p50,
      newP50Ms: b.latencyMs[m]!.p50,
      changePct: pct(a.latencyMs[m]!.p50, b.latencyMs[m]!.p50),
    }));
  return {
    ...objectCompletionOf(a, b),
    strategy: a.label,
    baseMs: a.wallMs.median,
    newMs: b.wallMs.median,
    changePct: pct(a.wallMs.median, b.wallMs.median),
    ratio: b.wallMs.median / a.wallMs.median,
    ratioLow: ci.low,
    ratioHigh: ci.high,
    p,
    significant,
    verdict: !significant ? '~' : faster ? 'faster' : 'slower',
    note,
    phases,
  };
}

/** The change in object completion (p99 and max), where both sides timed whole objects. */
function objectCompletionOf(a: ContenderStats, b: ContenderStats): Pick<StrategyChange, 'objectCompletion'> {
  const ao = a.latencyMs.object;
  const bo = b.latencyMs.object;
  if (!ao || !bo) return {};
  return {
    objectCompletion: {
      baseP99Ms: ao.p99,
      newP99Ms: bo.p99,
      p99ChangePct: pct(ao.p99, bo.p99),
      baseMaxMs: ao.max,
      newMaxMs: bo.max,
      maxChangePct: pct(ao.max, bo.max),
    },
  };
}

/** The environment fields that decide transfer speed, as text; absent ones are left out of the comparison. */
function speedFacts(env: Environment): Record<string, string | undefined> {
  return {
    'cpu model': env.cpuModel,
    cpus: String(env.cpus),
    memory: String(env.totalMemoryBytes),
    node: env.node,
    os: env.os,
    'Azure SDK': env.sdkVersion,
    'TCP congestion control': env.tcp?.congestionControl,
    'tcp_rmem max': env.tcp?.rmemMaxBytes?.toString(),
    'tcp_wmem max': env.tcp?.wmemMaxBytes?.toString(),
    'endpoint addresses': env.endpoint?.addresses.join(','),
    'VM size': env.cloud?.vmSize,
    region: env.cloud?.location,
    'container CPU quota': env.container?.cpuQuota?.toString(),
    'container memory limit': env.container?.memoryLimitBytes?.toString(),
  };
}

export function environmentDifferences(a: Environment, b: Environment): EnvironmentDifference[] {
  const fa = speedFacts(a);
  const fb = speedFacts(b);
  return Object.keys(fa).flatMap((field) =>
    fa[field] !== undefined && fb[field] !== undefined && fa[field] !== fb[field]
      ? [{ field, base: fa[field]!, next: fb[field]! }]
      : [],
  );
}

export function buildCompareReport(
  base: ResultsFile,
  next: ResultsFile,
  labels: [string, string],
): CompareReport {
  const side = (doc: ResultsFile, label: string) => ({
    label,
    target: doc.environment.target,
    createdAt: doc.createdAt,
  });
  return {
    schema: 'blob-cacher/compare',
    schemaVersion: COMPARE_SCHEMA_VERSION,
    base: side(base, labels[0]),
    next: side(next, labels[1]),
    ...compareStats(analyze(base.runs), analyze(next.runs)),
    environmentDifferences: environmentDifferences(base.environment, next.environment),
  };
}
