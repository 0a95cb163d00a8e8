// A tune's answer as text lines (console and Markdown share them): the best cell, its neighbours,
// the path, throttling, and what to deploy. Pure formatting of the report model's `tune`.
import type { ReportTune, TuneCellFigures, TuneNeighbour } from '../analysis/tune.js';
import { DASH, fixed, num, seconds } from './format.js';

const settings = (c: TuneCellFigures) =>
  Object.entries(c.cell)
    .map(([k, v]) => `${k.replace(/^--/, '')} ${v}`)
    .join(', ');
const rateText = (c: TuneCellFigures, unit: string) =>
  c.rate === undefined ? DASH : `${fixed(c.rate, unit === 'ops/s' ? 0 : 1)} ${unit}`;
/** Why a neighbour significantly faster than the best is not the answer. */
const notTaken = (n: TuneNeighbour, t: ReportTune) =>
  n.notTaken === 'throttled'
    ? ', not taken: throttled'
    : n.notTaken === 'small'
      ? `, not taken: under the ${t.materialGainPercent}% worth asking more for`
      : '';

/** Why the search ended, in words: a --deadline is no signal. */
function whyStopped(t: ReportTune): string {
  switch (t.stopped) {
    case 'budget':
      return 'stopped: the budget ran out';
    case 'deadline':
      return 'stopped at the --deadline';
    case 'signal':
      return 'stopped by a signal';
    case 'converged':
      return t.best
        ? `converged: no unthrottled neighbour of the best was significantly faster by ` +
            `${t.materialGainPercent}% or more`
        : 'ended: no cell left to try';
  }
}

/** What a throttled answer said was over its limit, in words. */
const throttleText = (c: string) =>
  c === 'operations'
    ? 'operations per second over the limit'
    : c === 'other'
      ? 'unclassified 429/503'
      : `${c} over the limit`;

export function tuneLines(t: ReportTune, unit: string): string[] {
  const out = [
    `tune: ${t.path.length} cells in ${seconds(t.spentMs)} measured (budget ${seconds(t.budgetMs)}); ` +
      `${whyStopped(t)}`,
  ];
  const none = t.path.length ? 'no cell measured ran without failing' : 'no cell was measured';
  if (!t.best) out.push(`best: none — ${none}, so there is nothing to deploy`);
  if (t.best) {
    const ci = t.best.timeInterval
      ? ` (95% CI ${num(t.best.timeInterval.low)}–${num(t.best.timeInterval.high)} ms)`
      : '';
    out.push(
      `best: ${settings(t.best)}: ${rateText(t.best, unit)}, ` +
        `${t.best.timeMs === undefined ? DASH : num(t.best.timeMs)} ms a ` +
        `run${ci}${t.bestThrottled ? ' — THROTTLED' : ''}`,
    );
  }
  if (t.neighbours.length) {
    out.push('neighbours, against the best:');
    for (const n of t.neighbours) {
      const verdict =
        n.ratio === undefined
          ? 'failed'
          : !n.significant
            ? `no significant difference (${fixed(n.ratio, 2)}x)`
            : `${fixed(n.ratio, 2)}x ${n.ratio >= 1 ? 'slower' : 'faster'} (95% CI ` +
              `${fixed(n.interval!.low, 2)}–${fixed(n.interval!.high, 2)}x)${notTaken(n, t)}`;
      out.push(
        `  ${n.axis.replace(/^--/, '')} ${n.value}: ` +
          `${verdict}${n.throttled ? `, ${n.throttled} throttled (${n.throttleClass ?? 'other'})` : ''}`,
      );
    }
  }
  if (t.startThrottled) out.push(`throttled from the start: ${settings(t.path[0]!)} met throttling already`);
  for (const b of t.throttling)
    out.push(
      `throttling began at ${b.axis.replace(/^--/, '')} ${b.value} (${throttleText(b.throttleClass)})`,
    );
  out.push(
    'path:',
    ...t.path.map(
      (p) =>
        `  ${String(p.step + 1).padStart(2)}. ` +
        `${p.reason}${p.axis ? ` ${p.axis.replace(/--/g, '')}` : ''}: ${settings(p)}: ` +
        `${p.failed ? 'failed' : rateText(p, unit)}${p.throttled ? `, ${p.throttled} throttled` : ''} ` +
        `(${seconds(p.spentMs)})`,
    ),
  );
  const d = t.deploy;
  if (d)
    out.push(
      'deploy:',
      `  ${d.environment}`,
      `  ${d.k8sManifest ?? d.run}`,
      ...(d.sdk ?? []).map((l) => `  SDK: ${l.trim()}`),
    );
  return out;
}
