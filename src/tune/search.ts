// The search `tune` makes: from a sane starting point, grow one axis at a time by doubling while the
// next step is significantly faster (the verdict's own rank test and ratio interval, never a fixed
// percentage), then bisect down to the fewest that is as fast and refine around the best (a step
// each way, a half step toward a slower one, every categorical neighbour), racing the cells already
// slower; stop when no neighbour is significantly faster, when the budget is spent, or where
// throttling begins.
// Pure: the cells are measured by the function it is given, so the search is tested on a model.
import { materiallyFaster, ratioInterval, significantlyFaster } from '../analysis/significance.js';
import { median, medianIntervalBootstrap, type Interval } from '../analysis/stats.js';
import { TUNE_MATERIAL_GAIN } from '../analysis/tune.js';
import type { ThrottleClass } from '../transport/answer.js';

/** One axis: ordered values (a ladder, searched in steps of its index) or a choice among names. */
export interface TuneAxis {
  /** The option it sets, e.g. `--concurrency`. */
  flag: string;
  /** Ordered from least to most (an ordered axis), or alternatives (categorical). */
  values: readonly string[];
  ordered: boolean;
  /** Index of the starting value. */
  start: number;
  /** An ordered axis's values as numbers (sizes in bytes), to place a half step among them. */
  toNumber?: (value: string) => number;
  /**
   * For an ordered axis whose values double: the value halfway (geometrically) between two of them, for
   * refining; none where it makes no sense.
   */
  between?: (lower: string, upper: string) => string | undefined;
  /**
   * Doubling it doubles the connections (sockets per process, processes): two such axes are
   * substitutes, so where doubling neither helped, doubling both is not tried.
   */
  multipliesConnections?: boolean;
}

/** A point of the search: one value per axis flag. */
export type TuneCell = Readonly<Record<string, string>>;

export type { ThrottleClass };

export interface CellMeasure {
  /** The duration of each measured run, ms (lower is faster): what the verdict compares. */
  runMs: readonly number[];
  /** Requests answered 429 or 503 in the measured runs, and of which class the most were. */
  throttled: number;
  throttleClass?: ThrottleClass;
  /** Measured time spent on this cell, ms: what the budget counts. */
  spentMs: number;
}

export interface TunedCell {
  cell: TuneCell;
  measure: CellMeasure;
  /** The order it was measured in (0 first) and why: the start, growing an axis, or refining. */
  step: number;
  reason: 'start' | 'grow' | 'refine';
  axis?: string;
}

export interface Neighbour {
  cell: TuneCell;
  axis: string;
  /**
   * How many times slower than the best (median ratio) with its 95% interval; below 1 is faster, but not
   * significantly.
   */
  ratio: number;
  interval: Interval;
  throttled: number;
}

export interface ThrottleBoundary {
  axis: string;
  /** The first value on that axis whose cell met throttling, and the class. */
  value: string;
  throttleClass: ThrottleClass;
}

export interface TuneOutcome {
  /** The answer; absent where no cell was measured (every one failed, or none ran). */
  best?: TunedCell;
  /** Every cell measured, in order: the path the search took. */
  path: TunedCell[];
  /** The best's measured neighbours on each axis, with how much worse each is. */
  neighbours: Neighbour[];
  throttling: ThrottleBoundary[];
  /** Why it stopped. */
  stopped: 'converged' | 'budget' | 'signal' | 'deadline';
  /** True when every cell met throttling, so the best is a throttled one (and says so). */
  bestThrottled: boolean;
}

export interface TuneOptions {
  axes: readonly TuneAxis[];
  /**
   * Measures a cell. `decided`, where there is a cell to compare with, says from a cell's measured
   * runs so far whether it is already significantly slower than the fastest cell measured: its runs
   * may stop there (a race), since no more of them could make it the answer.
   */
  measure: (
    cell: TuneCell,
    why: Omit<TunedCell, 'measure' | 'cell'>,
    decided?: (runMs: readonly number[]) => boolean,
  ) => Promise<CellMeasure>;
  /** Measured time the whole search may spend, ms. */
  budgetMs: number;
  signal?: AbortSignal;
  /**
   * Where throttling began, filled as the search finds it (the outcome returns the same list): a
   * search that fails part-way has still found what its record keeps.
   */
  throttling?: ThrottleBoundary[];
}

/** An ordered axis's value as a number (a size in bytes, a count). */
const numberOf = (axis: TuneAxis, value: string): number => (axis.toNumber ?? Number)(value);

const key = (cell: TuneCell) =>
  JSON.stringify(
    Object.keys(cell)
      .sort()
      .map((k) => [k, cell[k]]),
  );
const faster = (a: CellMeasure, b: CellMeasure) => significantlyFaster(a.runMs, b.runMs);

/** Runs the search to the end: the best cell, the path, the neighbours, where throttling began. */
export async function tuneSearch(opts: TuneOptions): Promise<TuneOutcome> {
  const seen = new Map<string, TunedCell>();
  const path: TunedCell[] = [];
  const throttling = opts.throttling ?? [];
  let spentMs = 0;
  let stopped: TuneOutcome['stopped'] = 'converged';
  const outOfTime = () => {
    // A --deadline aborts the same signal as SIGINT does, with 'deadline' as its reason: not a signal.
    if (opts.signal?.aborted) stopped = opts.signal.reason === 'deadline' ? 'deadline' : 'signal';
    else if (spentMs >= opts.budgetMs) stopped = 'budget';
    return stopped !== 'converged';
  };

  /** Where the search stands: the answer so far (absent until a cell is measured). */
  let best: TunedCell | undefined;

  /** The fastest unthrottled cell measured so far (by median). */
  const fastest = () =>
    path
      .filter((c) => c.measure.throttled === 0 && c.measure.runMs.length)
      .sort((a, b) => median(a.measure.runMs) - median(b.measure.runMs))[0];

  /** Measures a cell once (later asks get the same answer); undefined when time is up. */
  async function visit(
    cell: TuneCell,
    reason: TunedCell['reason'],
    axis?: string,
  ): Promise<TunedCell | undefined> {
    const known = seen.get(key(cell));
    if (known) {
      noteBoundary(known, best, axis);
      return known;
    }
    if (outOfTime()) return undefined;
    const why = { step: path.length, reason, ...(axis ? { axis } : {}) };
    const from = best;
    const anchor = fastest();
    const decided = anchor
      ? (runMs: readonly number[]) => significantlyFaster(anchor.measure.runMs, runMs)
      : undefined;
    const measured: TunedCell = { cell, measure: await opts.measure(cell, why, decided), ...why };
    spentMs += measured.measure.spentMs;
    seen.set(key(cell), measured);
    path.push(measured);
    noteBoundary(measured, from, axis);
    return measured;
  }

  /**
   * Throttling begins where a step from an unthrottled cell meets it, going up an ordered axis (the
   * lowest such value found) or to another choice. A step from a throttled cell shows no boundary: a
   * start already throttled is not where throttling began (the report says it was throttled).
   */
  function noteBoundary(reached: TunedCell, from: TunedCell | undefined, axis: string | undefined): void {
    if (!from || standing(from) < 2 || reached.measure.throttled === 0) return;
    for (const flag of axis?.split('+') ?? []) {
      const ladder = opts.axes.find((a) => a.flag === flag);
      const value = reached.cell[flag]!;
      if (ladder?.ordered && numberOf(ladder, value) <= numberOf(ladder, from.cell[flag]!)) continue;
      const known = throttling.findIndex((b) => b.axis === flag);
      const boundary = { axis: flag, value, throttleClass: reached.measure.throttleClass ?? 'other' };
      if (known < 0) throttling.push(boundary);
      else if (ladder?.ordered && numberOf(ladder, value) < numberOf(ladder, throttling[known]!.value)) {
        throttling[known] = boundary;
      }
    }
  }

  const lessOf = (cell: TuneCell, than: TuneCell) =>
    opts.axes.some((a) => a.ordered && numberOf(a, cell[a.flag]!) < numberOf(a, than[a.flag]!)) &&
    opts.axes.every((a) => !a.ordered || numberOf(a, cell[a.flag]!) <= numberOf(a, than[a.flag]!)) &&
    opts.axes.every((a) => a.ordered || cell[a.flag] === than[a.flag]);

  /** A cell's standing before any timing: failed (no run to compare) below throttled below clean. */
  const standing = (c: TunedCell) => (!c.measure.runMs.length ? 0 : c.measure.throttled > 0 ? 1 : 2);

  /**
   * Whether `candidate` should replace `best`: a better standing (a measured cell over a failed one,
   * an unthrottled over a throttled), or both clean and `candidate` significantly faster; where it
   * asks for more, also by at least TUNE_MATERIAL_GAIN. A gain below the session's own precision
   * target is not worth more sockets or processes, and on a plateau a noisy run's "significant" 1%
   * would send the search up the ladder and back.
   */
  const better = (candidate: TunedCell, best: TunedCell) => {
    if (standing(candidate) !== standing(best)) return standing(candidate) > standing(best);
    if (standing(candidate) < 2) return false;
    if (lessOf(candidate.cell, best.cell)) return faster(candidate.measure, best.measure);
    return materiallyFaster(candidate.measure.runMs, best.measure.runMs, TUNE_MATERIAL_GAIN);
  };

  const startCell = Object.fromEntries(opts.axes.map((a) => [a.flag, a.values[a.start]!]));
  best = await visit(startCell, 'start');
  if (!best) return { path, neighbours: [], throttling, stopped, bestThrottled: false };
  // Every choice of a categorical axis (the strategy) at the start, and growth from the fastest of
  // them: growing a strategy that cannot use the other axes (one GET has no concurrency) finds nothing.
  for (const axis of opts.axes.filter((a) => !a.ordered)) {
    for (const value of axis.values) {
      const next = await visit({ ...best.cell, [axis.flag]: value }, 'start', axis.flag);
      if (!next) continue;
      const clean = standing(next) === 2 && standing(best) === 2;
      const quicker = clean && median(next.measure.runMs) < median(best.measure.runMs);
      if (standing(next) > standing(best) || quicker) best = next;
    }
  }

  const indexOf = (axis: TuneAxis, cell: TuneCell) => axis.values.indexOf(cell[axis.flag]!);

  // Grow: each ordered axis in turn, doubling while the step is significantly faster; a round over
  // every axis again while any moved, since one axis's best depends on the others. Where no single
  // axis helps, two grown together may (sockets cap concurrency: neither alone goes faster).
  const ordered = opts.axes.filter((a) => a.ordered);
  const grown = (cell: TuneCell, ...axes: TuneAxis[]) => {
    const next: Record<string, string> = { ...cell };
    for (const axis of axes) {
      const value = axis.values[indexOf(axis, cell) + 1];
      if (value === undefined) return undefined;
      next[axis.flag] = value;
    }
    return next;
  };
  for (let moved = true; moved && !outOfTime(); ) {
    moved = false;
    for (const axis of ordered) {
      for (let cell = grown(best.cell, axis); cell; cell = grown(best.cell, axis)) {
        const next = await visit(cell, 'grow', axis.flag);
        if (!next || !better(next, best)) break;
        best = next;
        moved = true;
      }
    }
    for (let i = 0; !moved && i < ordered.length; i++) {
      for (let j = i + 1; !moved && j < ordered.length; j++) {
        if (ordered[i]!.multipliesConnections && ordered[j]!.multipliesConnections) continue;
        const cell = grown(best.cell, ordered[i]!, ordered[j]!);
        const next = cell && (await visit(cell, 'grow', `${ordered[i]!.flag}+${ordered[j]!.flag}`));
        if (next && better(next, best)) {
          best = next;
          moved = true;
        }
      }
    }
  }

  // Then down (a bisection) and refine (the candidates below); move to any significantly faster
  // cell and look again. Among cells no slower, the one asking for less (fewer processes, sockets,
  // requests in flight) is the answer: a step down is taken when the fastest cell measured is not
  // significantly faster than it. The ordered axes first, to convergence; the other choices (the
  // strategy) only at that point, where trying one costs a cell instead of one at every step.
  const choiceAxes = opts.axes.filter((a) => !a.ordered);
  /**
   * Unthrottled, measured, not significantly slower than the fastest cell measured, and not measured
   * slower than it: its median within the fastest's own 95% interval (or TUNE_MATERIAL_GAIN, the wider).
   * Where the rank test cannot tell two cells apart (too few runs, noise), the one whose median lies
   * past what the fastest's runs allow is slower as measured, and no answer however little it asks.
   */
  const asGood = (c: TunedCell) => {
    const anchor = fastest();
    if (standing(c) < 2 || anchor === undefined || faster(anchor.measure, c.measure)) return false;
    const runs = anchor.measure.runMs;
    const within = Math.max((1 + TUNE_MATERIAL_GAIN) * median(runs), medianIntervalBootstrap(runs).high);
    return median(c.measure.runMs) <= within;
  };

  // Down: on each ordered axis, the fewest that is as good, found by bisecting the ladder below the
  // best (its upper middle first: cells near the best are the quicker to measure) down to the
  // highest value already known to be slower. A start above the knee (more sockets than the
  // target can use) reaches it in log2 steps instead of one step at a time.
  for (const axis of ordered) {
    const line = (j: number): TuneCell => ({ ...best!.cell, [axis.flag]: axis.values[j]! });
    let hi = indexOf(axis, best.cell);
    let lo = -1;
    for (let j = hi - 1; j >= 0 && lo < 0; j--) {
      const known = seen.get(key(line(j)));
      if (known && !asGood(known)) lo = j;
    }
    while (hi - lo > 1 && !outOfTime()) {
      const mid = lo + Math.ceil((hi - lo) / 2);
      const next = await visit(line(mid), 'refine', axis.flag);
      if (!next) break;
      if (asGood(next)) {
        best = next;
        hi = mid;
      } else lo = mid;
    }
  }

  /**
   * What refining looks at around the best, lazily, in order: every full ladder step each way (not
   * upwards where a higher value on the same line was measured and was no faster than the best:
   * under a plateau nothing between can be), every other value of a categorical axis, and then a
   * half step only toward a full step measured significantly slower (where the knee lies between).
   */
  function* candidates(axes: readonly TuneAxis[]): Generator<{ cell: TuneCell; axis: string }> {
    const here = best!.cell;
    const plateauAbove = (axis: TuneAxis) =>
      axis.values.some((v) => {
        if (numberOf(axis, v) <= numberOf(axis, here[axis.flag]!)) return false;
        const known = seen.get(key({ ...here, [axis.flag]: v }));
        return (
          known !== undefined &&
          known.measure.throttled === 0 &&
          known.measure.runMs.length > 0 &&
          !faster(known.measure, best!.measure)
        );
      });
    for (const axis of axes) {
      if (!axis.ordered) {
        for (const v of axis.values)
          if (v !== here[axis.flag]) yield { cell: { ...here, [axis.flag]: v }, axis: axis.flag };
        continue;
      }
      for (const [v, below] of ladderAround(axis, here[axis.flag]!)) {
        if (!below && plateauAbove(axis)) continue;
        yield { cell: { ...here, [axis.flag]: v }, axis: axis.flag };
      }
    }
    for (const axis of axes.filter((a) => a.ordered && a.values.includes(here[a.flag]!))) {
      for (const [v, below] of ladderAround(axis, here[axis.flag]!)) {
        const full = seen.get(key({ ...here, [axis.flag]: v }));
        if (!full || full.measure.throttled > 0 || !faster(best!.measure, full.measure)) continue;
        const half = axis.between?.(below ? v : here[axis.flag]!, below ? here[axis.flag]! : v);
        if (half !== undefined && half !== v && half !== here[axis.flag])
          yield { cell: { ...here, [axis.flag]: half }, axis: axis.flag };
      }
    }
  }

  /**
   * One look around the best along `axes`: moves to the first neighbour that is better, or as good for less.
   */
  const refineOnce = async (axes: readonly TuneAxis[]): Promise<boolean> => {
    for (const cell of candidates(axes)) {
      const next = await visit(cell.cell, 'refine', cell.axis);
      if (!next) return false;
      if (better(next, best!) || (lessOf(next.cell, best!.cell) && asGood(next))) {
        best = next;
        return true;
      }
    }
    return false;
  };
  for (let rounds = 0; !outOfTime() && rounds < 100; rounds++) {
    if (await refineOnce(ordered)) continue;
    if (!choiceAxes.length || !(await refineOnce(choiceAxes))) break;
  }

  // The answer is never a cell measured slower than the fastest: where growth stopped for want of
  // significance (noise, or too few runs to decide) below a cell measured faster, the answer is the
  // fastest, or a cell asking for less that is as good as it.
  if (standing(best) === 2 && !asGood(best)) {
    let answer = fastest()!;
    for (let moved = true; moved; ) {
      const less = path.find((c) => lessOf(c.cell, answer.cell) && asGood(c));
      moved = less !== undefined;
      if (less) answer = less;
    }
    best = answer;
  }
  // A cell with no run measured is never the answer: a search whose every cell failed has none.
  if (!best.measure.runMs.length) return { path, neighbours: [], throttling, stopped, bestThrottled: false };
  const neighbours = neighbourCells(opts.axes, best.cell).flatMap(({ cell, axis }) => {
    const n = seen.get(key(cell));
    if (!n?.measure.runMs.length) return [];
    const interval = ratioInterval(best!.measure.runMs, n.measure.runMs);
    return [
      {
        cell,
        axis,
        ratio: median(n.measure.runMs) / median(best!.measure.runMs),
        interval,
        throttled: n.measure.throttled,
      },
    ];
  });
  return { best, path, neighbours, throttling, stopped, bestThrottled: best.measure.throttled > 0 };
}

/**
 * The cells one move from `cell`: ordered axes a step (and a half step) each way, categorical ones every
 * other value.
 */
export function neighbourCells(
  axes: readonly TuneAxis[],
  cell: TuneCell,
): { cell: TuneCell; axis: string }[] {
  const out: { cell: TuneCell; axis: string }[] = [];
  for (const axis of axes) {
    const here = cell[axis.flag]!;
    const values = axis.ordered
      ? ladderAround(axis, here).flatMap(([v, below]) => {
          // A half step only from a ladder value, so that refining ends.
          const half = axis.values.includes(here)
            ? axis.between?.(below ? v : here, below ? here : v)
            : undefined;
          return half === undefined || half === v || half === here ? [v] : [half, v];
        })
      : axis.values.filter((v) => v !== here);
    for (const v of values) out.push({ cell: { ...cell, [axis.flag]: v }, axis: axis.flag });
  }
  return out;
}

/** The ladder values just below and just above `here` (which may be a half step between them). */
function ladderAround(axis: TuneAxis, here: string): [string, boolean][] {
  const x = numberOf(axis, here);
  const below = axis.values.filter((v) => numberOf(axis, v) < x).at(-1);
  const above = axis.values.find((v) => numberOf(axis, v) > x);
  return [
    ...(below === undefined ? [] : [[below, true] as [string, boolean]]),
    ...(above === undefined ? [] : [[above, false] as [string, boolean]]),
  ];
}
