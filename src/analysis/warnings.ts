// What makes a ranking less trustworthy, as typed values grouped by kind: one warning per kind,
// naming the contenders it touches with their figure, worded for the user (hyperfine's warnings).
import type { ContenderStats } from './analyze.js';
import { coefficientOfVariation, outliers } from './significance.js';
import { serverGap } from './verdict.js';
import { faultParts, metFaults, plural } from './faults.js';

export type WarningKind =
  | 'failed'
  | 'faults'
  | 'outliers'
  | 'variation'
  | 'cpu-bound'
  | 'server-span'
  | 'correlated-intervals'
  | 'sampled-records'
  | 'target-on-this-machine';

export interface ReportWarning {
  kind: WarningKind;
  /**
   * The contenders it touches, each with its own figure ("3 of 23 runs", "32%"); none for a session-wide
   * warning.
   */
  contenders: { label: string; detail: string }[];
  /** The whole warning in one line. */
  text: string;
}

/**
 * The contenders a warning touches, by name: the first few, then how many more (a tune or a sweep has
 * dozens).
 */
const NAMED_AT_MOST = 4;
const named = (list: { label: string; detail: string }[]) => {
  const shown = list
    .slice(0, NAMED_AT_MOST)
    .map((c) => (c.detail ? `${c.label} (${c.detail})` : c.label))
    .join(', ');
  return list.length > NAMED_AT_MOST ? `${shown} and ${list.length - NAMED_AT_MOST} more` : shown;
};

function group(
  kind: WarningKind,
  list: { label: string; detail: string }[],
  say: (names: string) => string,
): ReportWarning[] {
  return list.length ? [{ kind, contenders: list, text: say(named(list)) }] : [];
}

export interface WarningInputs {
  targetOnThisMachine: boolean;
  /** The kernel's socket buffers (rmem + wmem maxima) for the server-span bound. */
  socketBufferBytes?: number;
}

/** What a warning says of one contender; undefined where it does not apply to it. */
type Detail = (s: ContenderStats, inputs: WarningInputs) => string | undefined;

/** Every warning of the report, in the order shown: its kind, what it says per contender, its sentence. */
const RULES: { kind: WarningKind; detail: Detail; say: (names: string) => string }[] = [
  {
    kind: 'failed',
    detail: (s) => (s.verified ? undefined : `${s.problems.length} of ${s.runs} runs`),
    say: (n) => `failed runs: ${n}: ranked last; see --details for what failed`,
  },
  {
    // Every fault a measured run met, by kind: a retried request still counts, and its time includes
    // the tries.
    kind: 'faults',
    detail: (s) => {
      const tally = { retries: s.retries, throttled: s.throttled, faults: s.faults };
      if (!metFaults(tally)) return undefined;
      const failed = s.failedRequests ? [plural(s.failedRequests, 'failed request')] : [];
      return [...faultParts(tally), ...failed].join(', ');
    },
    say: (n) => `runs met faults: ${n}: the times include the tries again and their backoff; see --details`,
  },
  {
    kind: 'outliers',
    detail: (s) => {
      const n = outliers(s.timesMs).length;
      return n ? `${n} of ${s.timesMs.length}` : undefined;
    },
    say: (n) =>
      `outlier runs (modified Z-score > 3.5 on the MAD): ${n}: other work on this machine or a cold ` +
      'start; use --warmup or a quieter machine',
  },
  {
    kind: 'variation',
    detail: (s) => {
      const cv = coefficientOfVariation(s.timesMs);
      return cv > 0.1 ? `${(cv * 100).toFixed(0)}%` : undefined;
    },
    say: (n) =>
      `run times vary by more than 10% (coefficient of variation): ${n}: the ranking needs more runs`,
  },
  {
    kind: 'cpu-bound',
    detail: (s) =>
      s.cpuBoundWorkers > 0
        ? `${s.cpuBoundWorkers} worker run(s), event-loop p99 up to ${s.eventLoopDelayP99MaxMs.toFixed(0)} ms`
        : undefined,
    say: (n) =>
      `CPU-bound workers: ${n}: the client, not the target, may be what was measured; ` +
      'more processes may help',
  },
  {
    kind: 'server-span',
    detail: (s, inputs) => {
      const gap = serverGap(s, inputs.socketBufferBytes);
      return gap && !gap.within ? `+${gap.ms.toFixed(0)} ms, bound ${gap.boundMs.toFixed(0)} ms` : undefined;
    },
    say: (n) =>
      `time above the server's span beyond 3% plus the socket buffers' drain: ${n}: connecting, ` +
      'client-side work (BENCHMARKS.md, case 11)',
  },
  {
    kind: 'correlated-intervals',
    detail: (s) => (s.samples?.of === 'intervals' ? `n=${s.samples.n}` : undefined),
    say: (n) =>
      `steady runs ranked by their intervals: ${n}: neighbouring intervals are correlated, so the test ` +
      'is optimistic; more runs confirm it',
  },
  {
    kind: 'sampled-records',
    detail: (s) => (s.recordsSampled ? '' : undefined),
    say: (n) => `raw records sampled in the results file: ${n}: percentiles still use every request`,
  },
];

export function reportWarnings(stats: readonly ContenderStats[], inputs: WarningInputs): ReportWarning[] {
  const listed = (detail: Detail) =>
    stats.flatMap((s) => {
      const d = detail(s, inputs);
      return d === undefined ? [] : [{ label: s.label, detail: d }];
    });
  return [
    ...RULES.flatMap((rule) => group(rule.kind, listed(rule.detail), rule.say)),
    ...(inputs.targetOnThisMachine
      ? [
          {
            kind: 'target-on-this-machine' as const,
            contenders: [],
            text:
              'the target runs on this machine: client and server share its CPUs, so the ranking may ' +
              'not hold against a remote account',
          },
        ]
      : []),
  ];
}

/** The warnings as sentences (older callers and tests). */
export function warnings(stats: readonly ContenderStats[], targetOnThisMachine: boolean): string[] {
  return reportWarnings(stats, { targetOnThisMachine }).map((w) => w.text);
}
