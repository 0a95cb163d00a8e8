// The recommendation: among the contenders tied for first (the rank test decides ties), the one
// with the fewest billable requests per object, then the simplest; said in words with why, and how
// the SDK's own call compared. The same rule picks a sweep's cell among the cells tied for best.
import type { RankedStats } from './verdict.js';
import { mannWhitney, ratioInterval } from './significance.js';
import { median } from './stats.js';

/**
 * How much a contender asks of its user beyond one request: 0 one plain request per object;
 * 1 ranges or blocks to split and join (or an SDK to carry); 2 extra stored copies or parts.
 * Keyed by strategy name until strategies declare it; unknown strategies count as the most complex.
 */
const SIMPLICITY: Readonly<Record<string, number>> = {
  single: 0, 'small-files': 0, head: 0, list: 0, 'list-hierarchy': 0,
  chunked: 1, blocks: 1, sdk: 1, 'sdk-upload': 1, 'sdk-small-files': 1, 'sdk-head': 1, 'sdk-list': 1,
  'round-robin': 2, assemble: 2,
};
/** What a contender stores beyond the object itself. */
const EXTRA_STORAGE: Readonly<Record<string, string>> = {
  'round-robin': 'one stored copy of the blob per range',
  assemble: 'the blob stored again as part blobs',
};
const simplicity = (strategy: string) => SIMPLICITY[strategy] ?? 3;

/** The SDK's own calls, measured as baselines, say so in their description. */
export const isSdkBaseline = (s: { description: string }) => /\(baseline\)\s*$/.test(s.description);

/** A contender as the rule needs it: its rank, and its requests per object from the cost counts. */
export type Candidate = RankedStats & { requestsPerObject: number };

export interface Recommendation {
  contender: string;
  strategy: string;
  description: string;
  /** `fastest`: alone in first place; `tied`: chosen among those tied for first by requests, then simplicity. */
  basis: 'fastest' | 'tied' | 'only';
  tiedWith: string[];
  /** Fewest samples among those compared. */
  n: number;
  requestsPerObject: number;
  extraStorage?: string;
  /** The next contender when it was alone in first: how much faster it is. */
  ahead?: { of: string; ratio: number; ratioLow: number; ratioHigh: number };
  /** The SDK baseline, where it ranked behind: how much slower than the recommended one. */
  sdk?: { label: string; description: string; ratio: number; ratioLow: number; ratioHigh: number; p: number };
  /** A sweep whose answer is an SDK cell: the settings to give the SDK (blockSize, concurrency, ...). */
  sdkSettings?: string[];
  text: string;
}

const x = (v: number) => `${v.toFixed(2)}x`;
const requests = (n: number) => (Number.isFinite(n) ? `${+n.toFixed(n < 10 ? 2 : 0)} request${n === 1 ? '' : 's'} per object` : 'requests per object unknown');

export function recommend(ranked: readonly Candidate[]): Recommendation | undefined {
  const ok = ranked.filter((s) => s.verified && s.timesMs.length > 0);
  if (!ok.length) return undefined;
  const first = ok.filter((s) => s.rank === ok[0]!.rank);
  // An SDK baseline is traced as one record per call: its inner requests are not counted, so it
  // cannot claim the fewest requests; among the tied it comes after every contender whose requests are known.
  const known = (c: Candidate) => (isSdkBaseline(c) || !Number.isFinite(c.requestsPerObject) ? 1 : 0);
  const pick = [...first].sort((a, b) => (known(a) - known(b)) || (a.requestsPerObject - b.requestsPerObject) || (simplicity(a.strategy) - simplicity(b.strategy)))[0]!;
  const tiedWith = first.filter((s) => s !== pick).map((s) => s.label);
  const basis = ok.length === 1 ? 'only' : tiedWith.length ? 'tied' : 'fastest';
  const n = Math.min(...first.map((s) => s.timesMs.length));
  const extraStorage = EXTRA_STORAGE[pick.strategy];
  const next = ok.find((s) => s.rank > pick.rank);
  const ahead = basis === 'fastest' && next ? (() => {
    const ci = ratioInterval(pick.timesMs, next.timesMs);
    return { of: next.label, ratio: median(next.timesMs) / median(pick.timesMs), ratioLow: ci.low, ratioHigh: ci.high };
  })() : undefined;
  const sdkBehind = isSdkBaseline(pick) ? undefined : ok.find((s) => isSdkBaseline(s) && s.rank > pick.rank);
  const sdk = sdkBehind ? (() => {
    const ci = ratioInterval(pick.timesMs, sdkBehind.timesMs);
    return { label: sdkBehind.label, description: sdkBehind.description, ratio: median(sdkBehind.timesMs) / median(pick.timesMs), ratioLow: ci.low, ratioHigh: ci.high, p: mannWhitney(pick.timesMs, sdkBehind.timesMs).p };
  })() : undefined;
  const others = tiedWith.length > 3 ? `${tiedWith.length} others` : tiedWith.join(', ');
  const why = basis === 'tied' ? `tied for fastest with ${others} (no significant difference at n=${n}), and of those the fewest requests and the simplest`
    : basis === 'fastest' && ahead ? `significantly fastest: ${x(ahead.ratio)} faster than ${ahead.of} (95% CI ${x(ahead.ratioLow)}–${x(ahead.ratioHigh)})`
      : 'the only contender that verified';
  const cost = isSdkBaseline(pick) ? `${extraStorage ?? 'no extra copies'} (the SDK's own requests are not counted)` : `${requests(pick.requestsPerObject)} and ${extraStorage ?? 'no extra copies'}`;
  const sdkText = sdk ? ` The SDK baseline ${sdk.label} (${sdk.description.replace(/^SDK\s*/, '').replace(/\s*\(baseline\)$/, '')}) was ${x(sdk.ratio)} slower (95% CI ${x(sdk.ratioLow)}–${x(sdk.ratioHigh)}).` : '';
  // "Verified" is a claim: a pick whose bytes nothing vouched for says so, in short (the table has why).
  const unchecked = pick.notVerified ? ` Its bytes were not verified (${pick.notVerified.split(':')[0]}).` : '';
  return {
    contender: pick.label, strategy: pick.strategy, description: pick.description, basis, tiedWith, n, requestsPerObject: pick.requestsPerObject,
    ...(extraStorage ? { extraStorage } : {}), ...(ahead ? { ahead } : {}), ...(sdk ? { sdk } : {}),
    text: `Recommended: ${pick.label} — ${why}; ${cost}.${sdkText}${unchecked}`,
  };
}
