// The recommendation: among the contenders no other beats by a material margin (significantly, and
// by at least --material), the one with the fewest billable requests per object, then the simplest;
// said in words with why, and how the SDK's own call compared. The same rule picks a sweep's cell.
import { DEFAULT_MATERIAL_SHARE } from '../config/options.js';
import type { RankedStats } from './verdict.js';
import { mannWhitney, materiallyFaster, ratioInterval } from './significance.js';
import { median } from './stats.js';
import { strategyNamed, type Direction } from '../strategies/index.js';
import type { Simplicity } from '../strategies/strategy.js';

/** What each level of a contender's declared simplicity asks of its user, in words. */
const ASKS = [
  'one plain request per object',
  'ranges or blocks to split and join',
  'extra stored copies or parts',
  'a strategy of its own',
];

/** The SDK's own calls, measured as baselines, say so in their description. */
export const isSdkBaseline = (s: { description: string }) => /\(baseline\)\s*$/.test(s.description);

/**
 * A contender as the rule needs it: its rank, its requests per object from the cost counts, and
 * what its declaration says it asks of its user and stores.
 */
export type Candidate = RankedStats & {
  requestsPerObject: number;
  simplicity: Simplicity;
  extraStorage?: string;
};

/**
 * What a contender of a results file declares: a strategy no longer in the registry (an old file)
 * counts as a strategy of its own, with nothing extra stored that anyone knows of.
 */
export function declared(
  direction: Direction,
  strategy: string,
): Pick<Candidate, 'simplicity' | 'extraStorage'> {
  const s = strategyNamed(direction, strategy);
  return { simplicity: s?.simplicity ?? 3, ...(s?.extraStorage ? { extraStorage: s.extraStorage } : {}) };
}

export interface Recommendation {
  contender: string;
  strategy: string;
  description: string;
  /**
   * `fastest`: alone in first place; `tied`: chosen among those tied for first by requests, then
   * simplicity; `material`: behind a faster one by less than the material share, and asking less;
   * `only`: the one contender that did not fail.
   */
  basis: 'fastest' | 'tied' | 'material' | 'only';
  tiedWith: string[];
  /** Fewest samples among those compared. */
  n: number;
  requestsPerObject: number;
  /** The least gain that counts, a share of the time (--material). */
  materialShare: number;
  extraStorage?: string;
  /** The next contender when it was alone in first: how much faster it is. */
  ahead?: Comparison;
  /** Basis `material`: the faster one passed over, by how much, its requests, what the pick asks less of. */
  passedOver?: Comparison & { requestsPerObject: number; asks: string };
  /** The SDK baseline, where it ranked behind: how much slower than the recommended one. */
  sdk?: Comparison & { label: string; description: string; p: number };
  /** A sweep whose answer is an SDK cell: the settings to give the SDK (blockSize, concurrency, ...). */
  sdkSettings?: string[];
  text: string;
}

/** The slower one's median over the faster one's, with the 95% interval of that ratio. */
export interface Comparison {
  of: string;
  ratio: number;
  ratioLow: number;
  ratioHigh: number;
}

const x = (v: number) => `${v.toFixed(2)}x`;
const pct = (share: number) => `${+(share * 100).toFixed(1)}%`;
const requests = (n: number) =>
  Number.isFinite(n)
    ? `${+n.toFixed(n < 10 ? 2 : 0)} request${n === 1 ? '' : 's'} per object`
    : 'requests per object unknown';
const FRACTIONS: Readonly<Record<number, string>> = { 2: 'half', 3: 'a third', 4: 'a quarter' };

/** "a quarter of the requests", "1/10 of the requests", "60% of the requests". */
function shareOfRequests(fewer: number, more: number): string {
  const times = more / fewer;
  const whole = Math.round(times);
  const exact = Math.abs(times - whole) < 1e-9 && whole > 1;
  if (exact) return `${FRACTIONS[whole] ?? `1/${whole}`} of the requests`;
  return `${Math.round((fewer / more) * 100)}% of the requests`;
}

// An SDK baseline is traced as one record per call: its inner requests are not counted, so it
// cannot claim the fewest requests; it comes after every contender whose requests are known.
const known = (c: Candidate) => (isSdkBaseline(c) || !Number.isFinite(c.requestsPerObject) ? 1 : 0);
/** Asks less first: requests known, fewer requests per object, then the simpler strategy. */
const asksOrder = (a: Candidate, b: Candidate) =>
  known(a) - known(b) || a.requestsPerObject - b.requestsPerObject || a.simplicity - b.simplicity;

/** What `pick` asks less of than `over`, in words: fewer requests, or a simpler way to use it. */
function asksLess(pick: Candidate, over: Candidate): string {
  if (pick.requestsPerObject < over.requestsPerObject) {
    return `${pick.label} needs ${shareOfRequests(pick.requestsPerObject, over.requestsPerObject)}`;
  }
  if (known(pick) < known(over)) return `${pick.label}'s requests are counted (the SDK's are not)`;
  const asks = (c: Candidate) => ASKS[c.simplicity];
  return `${pick.label} is simpler (${asks(pick)}; ${over.label}: ${asks(over)})`;
}

/** How much faster `fast` is than `slow`: the ratio of medians and its 95% interval. */
function compared(fast: Candidate, slow: Candidate): Comparison {
  const ci = ratioInterval(fast.timesMs, slow.timesMs);
  const ratio = median(slow.timesMs) / median(fast.timesMs);
  return { of: slow.label, ratio, ratioLow: ci.low, ratioHigh: ci.high };
}

const interval = (c: Comparison) => `95% CI ${x(c.ratioLow)}–${x(c.ratioHigh)}`;

/** The pick among the verified contenders, the first place it was chosen from, and on what basis. */
function choose(ranked: readonly Candidate[], materialShare: number) {
  const ok = ranked.filter((s) => s.verified && s.timesMs.length > 0);
  if (!ok.length) return undefined;
  const first = ok.filter((s) => s.rank === ok[0]!.rank);
  const lead = [...first].sort(asksOrder)[0]!;
  // Behind the first place but asking less than its pick, and beaten by no one materially.
  const beaten = (c: Candidate) =>
    ok.some((o) => o !== c && materiallyFaster(o.timesMs, c.timesMs, materialShare));
  const close = ok.filter((c) => !first.includes(c) && asksOrder(c, lead) < 0 && !beaten(c));
  const pick = [...close].sort((a, b) => asksOrder(a, b) || median(a.timesMs) - median(b.timesMs))[0] ?? lead;
  const tiedWith = first.filter((s) => s !== pick).map((s) => s.label);
  const basis = ok.length === 1 ? 'only' : pick !== lead ? 'material' : tiedWith.length ? 'tied' : 'fastest';
  const n = Math.min(...(basis === 'material' ? [pick, lead] : first).map((s) => s.timesMs.length));
  return { ok, lead, pick, tiedWith, basis, n } as const;
}

/** What the pick is set against: the next rank, the faster one passed over, the SDK baseline behind. */
function comparisons(chosen: NonNullable<ReturnType<typeof choose>>) {
  const { ok, lead, pick, basis } = chosen;
  const next = ok.find((s) => s.rank > pick.rank);
  const ahead = basis === 'fastest' && next ? compared(pick, next) : undefined;
  const passedOver =
    basis === 'material'
      ? {
          ...compared(lead, pick),
          of: lead.label,
          requestsPerObject: lead.requestsPerObject,
          asks: asksLess(pick, lead),
        }
      : undefined;
  const sdkBehind = isSdkBaseline(pick) ? undefined : ok.find((s) => isSdkBaseline(s) && s.rank > pick.rank);
  const sdk = sdkBehind
    ? {
        ...compared(pick, sdkBehind),
        label: sdkBehind.label,
        description: sdkBehind.description,
        p: mannWhitney(pick.timesMs, sdkBehind.timesMs).p,
      }
    : undefined;
  return { ahead, passedOver, sdk };
}

/**
 * `materialShare`: the least gain that counts. A contender that another beats by less than it
 * (or not significantly) stays a choice, and of the choices the one that asks least wins, so a
 * 4% gain never buys four times the requests.
 */
export function recommend(
  ranked: readonly Candidate[],
  materialShare = DEFAULT_MATERIAL_SHARE,
): Recommendation | undefined {
  const chosen = choose(ranked, materialShare);
  if (!chosen) return undefined;
  const { pick, tiedWith, basis, n } = chosen;
  const { ahead, passedOver, sdk } = comparisons(chosen);
  const extraStorage = pick.extraStorage;
  const why = whyText(chosen, ahead, passedOver, materialShare, ranked.length);
  const stored = extraStorage ?? 'no extra copies';
  const cost = isSdkBaseline(pick)
    ? `${stored} (the SDK's own requests are not counted)`
    : `${requests(pick.requestsPerObject)} and ${stored}`;
  const sdkName = sdk?.description.replace(/^SDK\s*/, '').replace(/\s*\(baseline\)$/, '');
  const sdkText = sdk
    ? ` The SDK baseline ${sdk.label} (${sdkName}) was ${x(sdk.ratio)} slower (${interval(sdk)}).`
    : '';
  // A pick whose bytes nothing vouched for says so, in short (the table has why).
  const unchecked = pick.notVerified
    ? ` Its bytes were not verified (${pick.notVerified.split(':')[0]}).`
    : '';
  return {
    contender: pick.label,
    strategy: pick.strategy,
    description: pick.description,
    basis,
    tiedWith,
    n,
    requestsPerObject: pick.requestsPerObject,
    materialShare,
    ...(extraStorage ? { extraStorage } : {}),
    ...(ahead ? { ahead } : {}),
    ...(passedOver ? { passedOver } : {}),
    ...(sdk ? { sdk } : {}),
    text: `Recommended: ${pick.label} — ${why}; ${cost}.${sdkText}${unchecked}`,
  };
}

/** Why the pick, in words: tied, passed over a faster one, significantly fastest, or the only one. */
function whyText(
  chosen: NonNullable<ReturnType<typeof choose>>,
  ahead: ReturnType<typeof comparisons>['ahead'],
  passedOver: ReturnType<typeof comparisons>['passedOver'],
  materialShare: number,
  measured: number,
): string {
  const { tiedWith, basis, n } = chosen;
  const others = tiedWith.length > 3 ? `${tiedWith.length} others` : tiedWith.join(', ');
  const material = pct(materialShare);
  const counts = ahead && ahead.ratio >= 1 + materialShare ? `, above the ${material} that counts` : '';
  if (basis === 'tied')
    return (
      `tied for fastest with ${others} (no significant difference at n=${n}), ` +
      'and of those the fewest requests and the simplest'
    );
  if (passedOver)
    return (
      `${passedOver.of} is ${x(passedOver.ratio)} faster (${interval(passedOver)}), ` +
      `below the ${material} that counts; ${passedOver.asks}`
    );
  if (ahead)
    return `significantly fastest: ${x(ahead.ratio)} faster than ${ahead.of} (${interval(ahead)})${counts}`;
  return measured === 1 ? 'the only contender measured' : 'the only contender that did not fail';
}
