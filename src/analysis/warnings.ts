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

export function reportWarnings(stats: readonly ContenderStats[], inputs: WarningInputs): ReportWarning[] {
  const failed = stats
    .filter((s) => !s.verified)
    .map((s) => ({ label: s.label, detail: `${s.problems.length} of ${s.runs} runs` }));
  // Every fault a measured run met, by kind: a retried request still counts, and its time includes the tries.
  const faulted = stats.flatMap((s) => {
    const tally = { retries: s.retries, throttled: s.throttled, faults: s.faults };
    if (!metFaults(tally)) return [];
    const failed = s.failedRequests ? [plural(s.failedRequests, 'failed request')] : [];
    return [{ label: s.label, detail: [...faultParts(tally), ...failed].join(', ') }];
  });
  const odd = stats.flatMap((s) => {
    const n = outliers(s.timesMs).length;
    return n ? [{ label: s.label, detail: `${n} of ${s.timesMs.length}` }] : [];
  });
  const varied = stats.flatMap((s) => {
    const cv = coefficientOfVariation(s.timesMs);
    return cv > 0.1 ? [{ label: s.label, detail: `${(cv * 100).toFixed(0)}%` }] : [];
  });
  const cpu = stats
    .filter((s) => s.cpuBoundWorkers > 0)
    .map((s) => ({
      label: s.label,
      detail: `${s.cpuBoundWorkers} worker run(s), event-loop p99 up to ${s.eventLoopDelayP99MaxMs.toFixed(0)} ms`,
    }));
  const span = stats.flatMap((s) => {
    const gap = serverGap(s, inputs.socketBufferBytes);
    return gap && !gap.within
      ? [{ label: s.label, detail: `+${gap.ms.toFixed(0)} ms, bound ${gap.boundMs.toFixed(0)} ms` }]
      : [];
  });
  const correlated = stats
    .filter((s) => s.samples?.of === 'intervals')
    .map((s) => ({ label: s.label, detail: `n=${s.samples.n}` }));
  const sampled = stats.filter((s) => s.recordsSampled).map((s) => ({ label: s.label, detail: '' }));
  return [
    ...group('failed', failed, (n) => `failed runs: ${n}: ranked last; see --details for what failed`),
    ...group(
      'faults',
      faulted,
      (n) => `runs met faults: ${n}: the times include the tries again and their backoff; see --details`,
    ),
    ...group(
      'outliers',
      odd,
      (n) =>
        `outlier runs (modified Z-score > 3.5 on the MAD): ${n}: other work on this machine or a cold start; use --warmup or a quieter machine`,
    ),
    ...group(
      'variation',
      varied,
      (n) => `run times vary by more than 10% (coefficient of variation): ${n}: the ranking needs more runs`,
    ),
    ...group(
      'cpu-bound',
      cpu,
      (n) =>
        `CPU-bound workers: ${n}: the client, not the target, may be what was measured; more processes may help`,
    ),
    ...group(
      'server-span',
      span,
      (n) =>
        `time above the server's span beyond 3% plus the socket buffers' drain: ${n}: connecting, client-side work (BENCHMARKS.md, case 11)`,
    ),
    ...group(
      'correlated-intervals',
      correlated,
      (n) =>
        `steady runs ranked by their intervals: ${n}: neighbouring intervals are correlated, so the test is optimistic; more runs confirm it`,
    ),
    ...group(
      'sampled-records',
      sampled,
      (n) => `raw records sampled in the results file: ${n}: percentiles still use every request`,
    ),
    ...(inputs.targetOnThisMachine
      ? [
          {
            kind: 'target-on-this-machine' as const,
            contenders: [],
            text: 'the target runs on this machine: client and server share its CPUs, so the ranking may not hold against a remote account',
          },
        ]
      : []),
  ];
}

/** The warnings as sentences (older callers and tests). */
export function warnings(stats: readonly ContenderStats[], targetOnThisMachine: boolean): string[] {
  return reportWarnings(stats, { targetOnThisMachine }).map((w) => w.text);
}
