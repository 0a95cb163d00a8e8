// The search `tune --slo` makes over --rate: the highest offered rate that keeps the SLO. From a
// range's ends, or from one rate doubled (or halved) until the SLO's edge is bracketed, then
// geometric bisection until the bracket is within a tolerance; bounded in steps, by the budget and by
// a stop. Pure: each rate is measured by the function it is given, so the search is tested on a model.

export interface RateTried {
  ratePerSecond: number;
  keeps: boolean;
}

export interface RateSearchOptions {
  /** A range whose ends are tried first, or one rate to start from. */
  from: { low: number; high: number } | { start: number };
  /** Bisection ends when the rate not kept is within this factor of the one kept (1.1: 10%). */
  tolerance: number;
  /** The most rates measured. */
  maxSteps: number;
  /** Measured time the search may spend, ms: checked before each rate. */
  budgetMs: number;
  /** The lowest and highest rate the search may try, per second. */
  floorPerSecond: number;
  ceilingPerSecond: number;
  signal?: AbortSignal;
  /** Measures one rate: whether it keeps the SLO and the measured time it took; undefined: not measured. */
  measure: (ratePerSecond: number) => Promise<{ keeps: boolean; spentMs: number } | undefined>;
}

export type RateSearchStop =
  | 'converged'
  | 'budget'
  | 'steps'
  | 'signal'
  | 'unmeasured'
  | 'none-keeps'
  | 'all-keep';

export interface RateSearchOutcome {
  /** In the order measured. */
  tried: RateTried[];
  /** The highest rate tried that keeps the SLO, every lower rate tried keeping it too. */
  answerPerSecond?: number;
  /** The lowest rate tried above the answer, which did not keep it. */
  abovePerSecond?: number;
  stopped: RateSearchStop;
}

/** A rate to try, to three significant figures: a cell's label stays short and reads as typed. */
export function roundRate(ratePerSecond: number): number {
  const digits = Math.max(0, 2 - Math.floor(Math.log10(ratePerSecond)));
  return Number(ratePerSecond.toFixed(Math.min(digits, 2)));
}

/** The answer as a curve's knee is read: the highest rate kept below the lowest rate not kept. */
export function answerOf(
  tried: readonly RateTried[],
): Pick<RateSearchOutcome, 'answerPerSecond' | 'abovePerSecond'> {
  const sorted = [...tried].sort((a, b) => a.ratePerSecond - b.ratePerSecond);
  const broken = sorted.findIndex((t) => !t.keeps);
  const answer = (broken < 0 ? sorted : sorted.slice(0, broken)).at(-1);
  const above = broken < 0 ? undefined : sorted[broken];
  return {
    ...(answer ? { answerPerSecond: answer.ratePerSecond } : {}),
    ...(above ? { abovePerSecond: above.ratePerSecond } : {}),
  };
}

export async function rateSearch(o: RateSearchOptions): Promise<RateSearchOutcome> {
  const tried: RateTried[] = [];
  let spentMs = 0;
  /** Measures `rate`, or says why the search ends instead. */
  const attempt = async (rate: number): Promise<boolean | RateSearchStop> => {
    if (o.signal?.aborted) return 'signal';
    if (tried.length >= o.maxSteps) return 'steps';
    if (spentMs >= o.budgetMs) return 'budget';
    const known = tried.find((t) => t.ratePerSecond === rate);
    if (known) return known.keeps;
    const got = await o.measure(rate);
    if (!got) return o.signal?.aborted ? 'signal' : 'unmeasured';
    spentMs += got.spentMs;
    tried.push({ ratePerSecond: rate, keeps: got.keeps });
    return got.keeps;
  };
  const done = (stopped: RateSearchStop): RateSearchOutcome => ({ tried, ...answerOf(tried), stopped });
  const bracket = await bracketOf(o, attempt);
  if (typeof bracket === 'string') return done(bracket);
  let { kept, notKept } = bracket;
  while (notKept / kept > o.tolerance) {
    const mid = roundRate(Math.sqrt(kept * notKept));
    if (mid <= kept || mid >= notKept) break;
    const keeps = await attempt(mid);
    if (typeof keeps === 'string') return done(keeps);
    if (keeps) kept = mid;
    else notKept = mid;
  }
  return done('converged');
}

type Attempt = (rate: number) => Promise<boolean | RateSearchStop>;

/** A rate kept and a higher one not kept, or why there is none. */
async function bracketOf(
  o: RateSearchOptions,
  attempt: Attempt,
): Promise<{ kept: number; notKept: number } | RateSearchStop> {
  if ('low' in o.from) {
    const { low, high } = o.from;
    const lowKeeps = await attempt(low);
    if (typeof lowKeeps === 'string') return lowKeeps;
    if (!lowKeeps) return 'none-keeps';
    const highKeeps = await attempt(high);
    if (typeof highKeeps === 'string') return highKeeps;
    return highKeeps ? 'all-keep' : { kept: low, notKept: high };
  }
  let rate = o.from.start;
  const first = await attempt(rate);
  if (typeof first === 'string') return first;
  // Doubling while kept, halving while not, until the answer changes or a bound is met.
  for (;;) {
    const next = roundRate(first ? rate * 2 : rate / 2);
    const past = first ? next > o.ceilingPerSecond : next < o.floorPerSecond;
    if (past || next === rate) return first ? 'all-keep' : 'none-keeps';
    const keeps = await attempt(next);
    if (typeof keeps === 'string') return keeps;
    if (keeps !== first) return first ? { kept: rate, notKept: next } : { kept: next, notKept: rate };
    rate = next;
  }
}
