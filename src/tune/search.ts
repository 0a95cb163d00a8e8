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
  return new TuneSearch(opts).run();
}

/** A cell's standing before any timing: failed (no run to compare) below throttled below clean. */
const standing = (c: TunedCell) => (!c.measure.runMs.length ? 0 : c.measure.throttled > 0 ? 1 : 2);

/**
 * One search, phase by phase: the start (every choice of a categorical axis), growth, a bisection
 * down each ordered axis, refining around the best, and the answer. Each phase moves `best`; every
 * cell measured is kept in `seen` and `path`, so a phase may ask for a cell another measured.
 */
class TuneSearch {
  private readonly opts: TuneOptions;
  private readonly seen = new Map<string, TunedCell>();
  private readonly path: TunedCell[] = [];
  private readonly throttling: ThrottleBoundary[];
  private readonly ordered: TuneAxis[];
  private readonly choiceAxes: TuneAxis[];
  private spentMs = 0;
  private stopped: TuneOutcome['stopped'] = 'converged';
  /** Where the search stands: the answer so far (absent until a cell is measured). */
  private best: TunedCell | undefined;

  constructor(opts: TuneOptions) {
    this.opts = opts;
    this.throttling = opts.throttling ?? [];
    this.ordered = opts.axes.filter((a) => a.ordered);
    this.choiceAxes = opts.axes.filter((a) => !a.ordered);
  }

  async run(): Promise<TuneOutcome> {
    if (!(await this.start())) return this.none();
    await this.grow();
    await this.down();
    await this.refine();
    return this.outcome();
  }

  /** The best so far, once the start has measured one. */
  private get here(): TunedCell {
    return this.best!;
  }

  private none(): TuneOutcome {
    const { path, throttling, stopped } = this;
    return { path, neighbours: [], throttling, stopped, bestThrottled: false };
  }

  private outOfTime(): boolean {
    const { signal } = this.opts;
    // A --deadline aborts the same signal as SIGINT does, with 'deadline' as its reason: not a signal.
    if (signal?.aborted) this.stopped = signal.reason === 'deadline' ? 'deadline' : 'signal';
    else if (this.spentMs >= this.opts.budgetMs) this.stopped = 'budget';
    return this.stopped !== 'converged';
  }

  /** The fastest unthrottled cell measured so far (by median). */
  private fastest(): TunedCell | undefined {
    return this.path
      .filter((c) => c.measure.throttled === 0 && c.measure.runMs.length)
      .sort((a, b) => median(a.measure.runMs) - median(b.measure.runMs))[0];
  }

  /** Measures a cell once (later asks get the same answer); undefined when time is up. */
  private async visit(
    cell: TuneCell,
    reason: TunedCell['reason'],
    axis?: string,
  ): Promise<TunedCell | undefined> {
    const known = this.seen.get(key(cell));
    if (known) {
      this.noteBoundary(known, this.best, axis);
      return known;
    }
    if (this.outOfTime()) return undefined;
    const why = { step: this.path.length, reason, ...(axis ? { axis } : {}) };
    const from = this.best;
    const anchor = this.fastest();
    const decided = anchor
      ? (runMs: readonly number[]) => significantlyFaster(anchor.measure.runMs, runMs)
      : undefined;
    const measured: TunedCell = { cell, measure: await this.opts.measure(cell, why, decided), ...why };
    this.spentMs += measured.measure.spentMs;
    this.seen.set(key(cell), measured);
    this.path.push(measured);
    this.noteBoundary(measured, from, axis);
    return measured;
  }

  /**
   * Throttling begins where a step from an unthrottled cell meets it, going up an ordered axis (the
   * lowest such value found) or to another choice. A step from a throttled cell shows no boundary: a
   * start already throttled is not where throttling began (the report says it was throttled).
   */
  private noteBoundary(reached: TunedCell, from: TunedCell | undefined, axis: string | undefined): void {
    if (!from || standing(from) < 2 || reached.measure.throttled === 0) return;
    const throttling = this.throttling;
    for (const flag of axis?.split('+') ?? []) {
      const ladder = this.opts.axes.find((a) => a.flag === flag);
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

  /** `cell` asks for less than `than`: lower on some ordered axis, higher on none, the same choices. */
  private lessOf(cell: TuneCell, than: TuneCell): boolean {
    const axes = this.opts.axes;
    return (
      axes.some((a) => a.ordered && numberOf(a, cell[a.flag]!) < numberOf(a, than[a.flag]!)) &&
      axes.every((a) => !a.ordered || numberOf(a, cell[a.flag]!) <= numberOf(a, than[a.flag]!)) &&
      axes.every((a) => a.ordered || cell[a.flag] === than[a.flag])
    );
  }

  /**
   * Whether `candidate` should replace `best`: a better standing (a measured cell over a failed one,
   * an unthrottled over a throttled), or both clean and `candidate` significantly faster; where it
   * asks for more, also by at least TUNE_MATERIAL_GAIN. A gain below the session's own precision
   * target is not worth more sockets or processes, and on a plateau a noisy run's "significant" 1%
   * would send the search up the ladder and back.
   */
  private better(candidate: TunedCell, best: TunedCell): boolean {
    if (standing(candidate) !== standing(best)) return standing(candidate) > standing(best);
    if (standing(candidate) < 2) return false;
    if (this.lessOf(candidate.cell, best.cell)) return faster(candidate.measure, best.measure);
    return materiallyFaster(candidate.measure.runMs, best.measure.runMs, TUNE_MATERIAL_GAIN);
  }

  /**
   * Unthrottled, measured, not significantly slower than the fastest cell measured, and not measured
   * slower than it: its median within the fastest's own 95% interval (or TUNE_MATERIAL_GAIN, the wider).
   * Where the rank test cannot tell two cells apart (too few runs, noise), the one whose median lies
   * past what the fastest's runs allow is slower as measured, and no answer however little it asks.
   */
  private asGood(c: TunedCell): boolean {
    const anchor = this.fastest();
    if (standing(c) < 2 || anchor === undefined || faster(anchor.measure, c.measure)) return false;
    const runs = anchor.measure.runMs;
    const within = Math.max((1 + TUNE_MATERIAL_GAIN) * median(runs), medianIntervalBootstrap(runs).high);
    return median(c.measure.runMs) <= within;
  }

  /**
   * The start cell, then every choice of a categorical axis (the strategy) at the start, and growth
   * from the fastest of them: growing a strategy that cannot use the other axes (one GET has no
   * concurrency) finds nothing. False when not even the start could be measured.
   */
  private async start(): Promise<boolean> {
    const startCell = Object.fromEntries(this.opts.axes.map((a) => [a.flag, a.values[a.start]!]));
    this.best = await this.visit(startCell, 'start');
    if (!this.best) return false;
    for (const axis of this.choiceAxes) {
      for (const value of axis.values) {
        const best = this.here;
        const next = await this.visit({ ...best.cell, [axis.flag]: value }, 'start', axis.flag);
        if (!next) continue;
        const clean = standing(next) === 2 && standing(best) === 2;
        const quicker = clean && median(next.measure.runMs) < median(best.measure.runMs);
        if (standing(next) > standing(best) || quicker) this.best = next;
      }
    }
    return true;
  }

  /**
   * Grow: each ordered axis in turn, doubling while the step is significantly faster; a round over
   * every axis again while any moved, since one axis's best depends on the others. Where no single
   * axis helps, two grown together may (sockets cap concurrency: neither alone goes faster).
   */
  private async grow(): Promise<void> {
    for (let moved = true; moved && !this.outOfTime(); ) {
      moved = (await this.growEach()) || (await this.growPairs());
    }
  }

  /** One round of growing each ordered axis alone: true when any moved. */
  private async growEach(): Promise<boolean> {
    let moved = false;
    for (const axis of this.ordered) {
      for (let cell = grown(this.here.cell, axis); cell; cell = grown(this.here.cell, axis)) {
        const next = await this.visit(cell, 'grow', axis.flag);
        if (!next || !this.better(next, this.here)) break;
        this.best = next;
        moved = true;
      }
    }
    return moved;
  }

  /** Two ordered axes grown together, the first pair that is better: true when one moved. */
  private async growPairs(): Promise<boolean> {
    const ordered = this.ordered;
    for (let i = 0; i < ordered.length; i++) {
      for (let j = i + 1; j < ordered.length; j++) {
        if (ordered[i]!.multipliesConnections && ordered[j]!.multipliesConnections) continue;
        const cell = grown(this.here.cell, ordered[i]!, ordered[j]!);
        const next = cell && (await this.visit(cell, 'grow', `${ordered[i]!.flag}+${ordered[j]!.flag}`));
        if (next && this.better(next, this.here)) {
          this.best = next;
          return true;
        }
      }
    }
    return false;
  }

  /**
   * Down: on each ordered axis, the fewest that is as good, found by bisecting the ladder below the
   * best (its upper middle first: cells near the best are the quicker to measure) down to the
   * highest value already known to be slower. A start above the knee (more sockets than the
   * target can use) reaches it in log2 steps instead of one step at a time.
   */
  private async down(): Promise<void> {
    for (const axis of this.ordered) {
      const line = (j: number): TuneCell => ({ ...this.here.cell, [axis.flag]: axis.values[j]! });
      let hi = indexOf(axis, this.here.cell);
      let lo = -1;
      for (let j = hi - 1; j >= 0 && lo < 0; j--) {
        const known = this.seen.get(key(line(j)));
        if (known && !this.asGood(known)) lo = j;
      }
      while (hi - lo > 1 && !this.outOfTime()) {
        const mid = lo + Math.ceil((hi - lo) / 2);
        const next = await this.visit(line(mid), 'refine', axis.flag);
        if (!next) break;
        if (this.asGood(next)) {
          this.best = next;
          hi = mid;
        } else lo = mid;
      }
    }
  }

  /**
   * Refine: move to any significantly faster cell around the best and look again. Among cells no
   * slower, the one asking for less (fewer processes, sockets, requests in flight) is the answer: a
   * step down is taken when the fastest cell measured is not significantly faster than it. The
   * ordered axes first, to convergence; the other choices (the strategy) only at that point, where
   * trying one costs a cell instead of one at every step.
   */
  private async refine(): Promise<void> {
    for (let rounds = 0; !this.outOfTime() && rounds < 100; rounds++) {
      if (await this.refineOnce(this.ordered)) continue;
      if (!this.choiceAxes.length || !(await this.refineOnce(this.choiceAxes))) break;
    }
  }

  /**
   * One look around the best along `axes`: moves to the first neighbour that is better, or as good for less.
   */
  private async refineOnce(axes: readonly TuneAxis[]): Promise<boolean> {
    for (const cell of this.candidates(axes)) {
      const next = await this.visit(cell.cell, 'refine', cell.axis);
      if (!next) return false;
      if (this.better(next, this.here) || (this.lessOf(next.cell, this.here.cell) && this.asGood(next))) {
        this.best = next;
        return true;
      }
    }
    return false;
  }

  /**
   * What refining looks at around the best, lazily, in order: every full ladder step each way (not
   * upwards where a higher value on the same line was measured and was no faster than the best:
   * under a plateau nothing between can be), every other value of a categorical axis, and then a
   * half step only toward a full step measured significantly slower (where the knee lies between).
   */
  private *candidates(axes: readonly TuneAxis[]): Generator<{ cell: TuneCell; axis: string }> {
    const here = this.here.cell;
    for (const axis of axes) {
      if (!axis.ordered) {
        for (const v of axis.values)
          if (v !== here[axis.flag]) yield { cell: { ...here, [axis.flag]: v }, axis: axis.flag };
        continue;
      }
      for (const [v, below] of ladderAround(axis, here[axis.flag]!)) {
        if (!below && this.plateauAbove(axis)) continue;
        yield { cell: { ...here, [axis.flag]: v }, axis: axis.flag };
      }
    }
    yield* this.halfSteps(axes);
  }

  /** A higher value on `axis`, from the best, was measured clean and no faster than the best. */
  private plateauAbove(axis: TuneAxis): boolean {
    const best = this.here;
    const here = best.cell;
    return axis.values.some((v) => {
      if (numberOf(axis, v) <= numberOf(axis, here[axis.flag]!)) return false;
      const known = this.seen.get(key({ ...here, [axis.flag]: v }));
      return (
        known !== undefined &&
        known.measure.throttled === 0 &&
        known.measure.runMs.length > 0 &&
        !faster(known.measure, best.measure)
      );
    });
  }

  /** The half steps from the best toward each full step measured significantly slower. */
  private *halfSteps(axes: readonly TuneAxis[]): Generator<{ cell: TuneCell; axis: string }> {
    const here = this.here.cell;
    for (const axis of axes.filter((a) => a.ordered && a.values.includes(here[a.flag]!))) {
      for (const [v, below] of ladderAround(axis, here[axis.flag]!)) {
        const full = this.seen.get(key({ ...here, [axis.flag]: v }));
        if (!full || full.measure.throttled > 0 || !faster(this.here.measure, full.measure)) continue;
        const half = axis.between?.(below ? v : here[axis.flag]!, below ? here[axis.flag]! : v);
        if (half !== undefined && half !== v && half !== here[axis.flag])
          yield { cell: { ...here, [axis.flag]: half }, axis: axis.flag };
      }
    }
  }

  /**
   * The answer is never a cell measured slower than the fastest: where growth stopped for want of
   * significance (noise, or too few runs to decide) below a cell measured faster, the answer is the
   * fastest, or a cell asking for less that is as good as it.
   */
  private answer(): TunedCell {
    const best = this.here;
    if (standing(best) < 2 || this.asGood(best)) return best;
    let answer = this.fastest()!;
    for (let moved = true; moved; ) {
      const less = this.path.find((c) => this.lessOf(c.cell, answer.cell) && this.asGood(c));
      moved = less !== undefined;
      if (less) answer = less;
    }
    return answer;
  }

  private outcome(): TuneOutcome {
    const best = (this.best = this.answer());
    // A cell with no run measured is never the answer: a search whose every cell failed has none.
    if (!best.measure.runMs.length) return this.none();
    const neighbours = neighbourCells(this.opts.axes, best.cell).flatMap(({ cell, axis }) => {
      const n = this.seen.get(key(cell));
      if (!n?.measure.runMs.length) return [];
      const interval = ratioInterval(best.measure.runMs, n.measure.runMs);
      const ratio = median(n.measure.runMs) / median(best.measure.runMs);
      return [{ cell, axis, ratio, interval, throttled: n.measure.throttled }];
    });
    const { path, throttling, stopped } = this;
    return { best, path, neighbours, throttling, stopped, bestThrottled: best.measure.throttled > 0 };
  }
}

const indexOf = (axis: TuneAxis, cell: TuneCell) => axis.values.indexOf(cell[axis.flag]!);

/** `cell` one ladder step up on each of `axes`; undefined where one is at its top. */
function grown(cell: TuneCell, ...axes: TuneAxis[]): TuneCell | undefined {
  const next: Record<string, string> = { ...cell };
  for (const axis of axes) {
    const value = axis.values[indexOf(axis, cell) + 1];
    if (value === undefined) return undefined;
    next[axis.flag] = value;
  }
  return next;
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
