// Tables in Markdown (readable on a console, pasteable into BENCHMARKS.md): one per measurement,
// then the goals: ours against a named peer, as the ratio of throughputs (>1: ours faster).
import { MiB, type Row } from './sample.ts';

export type Clock = 'tool' | 'server' | 'process';

export interface Goal {
  what: string;
  /** Our contenders: the best (lowest median) of them is compared. */
  ours: readonly string[];
  /** The peer, or several: the best (lowest median) of them is compared. */
  peer: string | readonly string[];
  /** Ours must reach at least this fraction of the peer's throughput; unset: shown for information. */
  atLeast?: number;
  /**
   * The clock that decides: the server's (first data request to last data response: the same clock
   * for every contender; the default where it was read), each tool's own timer, or spawn-to-exit.
   */
  clock?: Clock;
}

export interface GoalResult {
  what: string;
  ours: string;
  peer: string;
  /** Ours/peer throughput on the deciding clock. */
  ratio: number;
  /** The same on every clock that was read (NaN where not). */
  ratios?: Record<Clock, number>;
  clock?: Clock;
  atLeast?: number;
  reached: boolean | undefined;
  note: string;
  /**
   * Where the data cannot tell (reached undefined): what they say instead ("no significant difference in 3
   * rounds").
   */
  verdict?: string;
  /** Goals that are not a throughput ratio (tracing cost, memory) say their value and target here. */
  valueText?: string;
  targetText?: string;
}

export interface Section {
  id: string;
  title: string;
  notes: string[];
  tables: string[];
  rows: Row[][];
  goals: GoalResult[];
  commands: string[];
  /** How the commands were run, where not the suite's usual one run per call. */
  commandsNote?: string;
}

const num = (v: number, digits = 1) => (Number.isFinite(v) ? v.toFixed(digits) : '—');

/** A Markdown table: a header row, its rule, then the body's rows. */
export function markdownTable(header: readonly string[], body: readonly (readonly string[])[]): string {
  const line = (cells: readonly string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(header.map(() => '---')), ...body.map(line)].join('\n');
}

export function rowsTable(
  rows: readonly Row[],
  opts: { ops?: boolean; rss?: boolean; cpu?: boolean } = {},
): string {
  // The server's clock is shown wherever it was read for any contender of the table.
  const server = rows.some((r) => Number.isFinite(r.medianServerSpanMs));
  const header = [
    'contender',
    'runs',
    'median s',
    'min–max s',
    opts.ops ? 'req/s' : 'MiB/s',
    ...(server ? ['server s'] : []),
    'process s',
    ...(opts.rss === false ? [] : ['peak RSS MiB']),
    ...(opts.cpu ? ['worker CPU s/run'] : []),
    'timing',
  ];
  const body = rows.map((r) => {
    if (r.skipped)
      return [
        r.label,
        '0',
        `skipped (${r.skipped})`,
        '',
        '',
        ...(server ? [''] : []),
        '',
        ...(opts.rss === false ? [] : ['']),
        ...(opts.cpu ? [''] : []),
        r.timing,
      ];
    const ok = r.samples.length - r.failed;
    const runs = r.failed ? `${ok} (+${r.failed} failed)` : String(ok);
    const med = ok ? num(r.medianMs / 1000, 2) : `failed: ${(r.error ?? '').slice(0, 120)}`;
    return [
      r.ours ? `**${r.label}**` : r.label,
      runs,
      med,
      ok ? `${num(r.minMs / 1000, 2)}–${num(r.maxMs / 1000, 2)}` : '',
      ok ? (opts.ops ? num(r.medianOpsPerSecond, 0) : num(r.medianMiBps, 0)) : '',
      ...(server ? [ok ? num(r.medianServerSpanMs / 1000, 2) : ''] : []),
      ok ? num(r.medianProcessMs / 1000, 2) : '',
      ...(opts.rss === false ? [] : [ok && r.peakTreeRssBytes ? num(r.peakTreeRssBytes / MiB, 0) : '—']),
      ...(opts.cpu ? [r.cpuMsPerRun !== undefined ? num(r.cpuMsPerRun / 1000, 2) : '—'] : []),
      r.timing,
    ];
  });
  return markdownTable(header, body);
}

const CLOCK_TIMES: Record<Clock, (r: Row) => number> = {
  tool: (r) => r.medianMs,
  server: (r) => r.medianServerSpanMs,
  process: (r) => r.medianProcessMs,
};

export function evaluate(goal: Goal, rows: readonly Row[]): GoalResult {
  const measured = (r: Row) => !r.skipped && r.samples.length > r.failed;
  const candidates = (labels: readonly string[]) =>
    rows.filter((r) => labels.includes(r.label) && measured(r));
  const peers = typeof goal.peer === 'string' ? [goal.peer] : goal.peer;
  const serverRead = [...candidates(goal.ours), ...candidates(peers)].every((r) =>
    Number.isFinite(r.medianServerSpanMs),
  );
  const clock: Clock = goal.clock ?? (serverRead ? 'server' : 'tool');
  const pick = CLOCK_TIMES[clock];
  const best = (labels: readonly string[]) => candidates(labels).sort((a, b) => pick(a) - pick(b))[0];
  const ours = best(goal.ours);
  const peer = best(peers) ?? rows.find((r) => peers.includes(r.label));
  const base = { what: goal.what, peer: peer?.label ?? peers.join(' / '), atLeast: goal.atLeast, clock };
  if (!peer)
    return {
      ...base,
      ours: ours?.label ?? '—',
      ratio: NaN,
      reached: undefined,
      note: 'peer not in this run',
    };
  if (peer.skipped)
    return {
      ...base,
      ours: ours?.label ?? '—',
      ratio: NaN,
      reached: undefined,
      note: `skipped: ${peer.skipped}`,
    };
  if (!ours) return { ...base, ours: goal.ours.join(' / '), ratio: NaN, reached: false, note: 'ours failed' };
  if (peer.samples.length === peer.failed)
    return {
      ...base,
      ours: ours.label,
      ratio: NaN,
      reached: undefined,
      note: `peer failed: ${peer.error ?? ''}`,
    };
  const ratios = Object.fromEntries(
    (Object.keys(CLOCK_TIMES) as Clock[]).map((k) => [k, CLOCK_TIMES[k](peer) / CLOCK_TIMES[k](ours)]),
  ) as Record<Clock, number>;
  const ratio = ratios[clock];
  if (!Number.isFinite(ratio))
    return { ...base, ours: ours.label, ratio, ratios, reached: undefined, note: `no ${clock} times` };
  const reached = goal.atLeast === undefined ? undefined : ratio >= goal.atLeast;
  return { ...base, ours: ours.label, ratio, ratios, reached, note: '' };
}

const CLOCK_NAMES: Record<Clock, string> = {
  server: "server's clock",
  tool: "tools' own timers",
  process: 'process wall',
};
const ratioText = (v: number | undefined) =>
  v !== undefined && Number.isFinite(v) ? `${v.toFixed(2)}x` : '—';

export function goalsTable(goals: readonly GoalResult[]): string {
  return markdownTable(
    [
      'goal',
      'ours (best)',
      'peer',
      "ours/peer: server's clock",
      "tools' own timers",
      'process wall',
      'target',
      'reached',
    ],
    goals.map((g) => {
      const mark = (c: Clock) =>
        g.ratios && g.clock === c && g.atLeast !== undefined
          ? `**${ratioText(g.ratios[c])}**`
          : ratioText(g.ratios?.[c]);
      const cells =
        g.valueText !== undefined
          ? [g.valueText, '', '']
          : (['server', 'tool', 'process'] as const).map(mark);
      const target =
        g.targetText ??
        (g.atLeast === undefined ? '(info)' : `>= ${g.atLeast}x, ${CLOCK_NAMES[g.clock ?? 'tool']}`);
      const reached =
        g.reached === undefined
          ? (g.verdict ?? (g.note ? `n/a (${g.note})` : ''))
          : `${g.reached ? 'yes' : 'no'}${g.note ? ` (${g.note})` : ''}`;
      return [g.what, g.ours, g.peer, ...cells, target, reached];
    }),
  );
}

export function keyValueTable(pairs: readonly (readonly [string, string])[]): string {
  return markdownTable(['measure', 'value'], pairs);
}

/** A case's section; `commands: false` leaves out the command lines (the document keeps the results only). */
export function renderSection(s: Section, { commands = true } = {}): string {
  const parts = [`## ${s.title}`, ''];
  for (const n of s.notes) parts.push(n, '');
  for (const t of s.tables) parts.push(t, '');
  if (s.goals.length) parts.push(goalsTable(s.goals), '');
  const how =
    s.commandsNote ??
    'one run; the suite passes `--runs 1 --warmup 0 --results <tmp> --log-level warn --format ' +
      'json` and a peak-RSS preload';
  if (commands && s.commands.length) parts.push(`Commands (${how}):`, '', '```sh', ...s.commands, '```', '');
  return parts.join('\n');
}
