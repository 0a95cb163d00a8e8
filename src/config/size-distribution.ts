// Parses --file-size into a size distribution: a fixed size (80MiB, or the seed's bare KB), a range
// (4KiB..16MiB uniform, log:4KiB..16MiB log-uniform), a lognormal
// (lognormal:median=256KiB,sigma=1.2[,min=..][,max=..]) or weighted buckets (4KiB:50%,1MiB:40%,64MiB:10%).
// Every size inside takes the same units as a fixed one, a bare number included.
import { formatSizeExact, parseSizeUnbounded } from '../vocabulary/sizes.js';
import type { SizeDistribution } from '../plan/size-draw.js';

/** What went wrong, worded so that one line names the problem and the fix. */
export class BadDistribution {
  readonly expected: string;
  constructor(expected: string) {
    this.expected = expected;
  }
}

type Parsed = SizeDistribution | BadDistribution;
const bad = (expected: string) => new BadDistribution(expected);
type SizeOf = (part: string, what: string) => number | BadDistribution;

const DISTRIBUTIONS =
  'a range (4KiB..16MiB or log:4KiB..16MiB), lognormal:median=256KiB,sigma=1.2 ' +
  'or weighted buckets (4KiB:50%,1MiB:40%,64MiB:10%)';
const LOGNORMAL = 'lognormal:median=256KiB,sigma=1.2';
const BUCKETS = '4KiB:50%,1MiB:40%,64MiB:10%';

/** The forms, with an example of a fixed size in the bare unit the option counts. */
function formsText(bareUnitBytes: number): string {
  const bare =
    bareUnitBytes === 1000
      ? '102 (a bare number is KB)'
      : bareUnitBytes === 1
        ? '12800000'
        : `${Math.round(102_000 / bareUnitBytes)} (a bare number is ${bareUnitBytes} bytes)`;
  return `a size such as 80MiB, 100KB or ${bare}, ${DISTRIBUTIONS}`;
}

/** Parses `raw` with sizes from `min` to `max` bytes; a bare number counts `bareUnitBytes`. */
export function parseSizeDistribution(raw: string, min: number, max: number, bareUnitBytes: number): Parsed {
  const text = raw.trim();
  const least = Math.max(min, 1);
  const bounds = `from ${formatSizeExact(least)} to ${formatSizeExact(max)}`;
  const sizeOf: SizeOf = (part, what) => {
    const bytes = parseSizeUnbounded(part, bareUnitBytes);
    if (bytes === undefined) return bad(`${what} "${part.trim()}" to be a size such as 256KiB`);
    if (bytes < least || bytes > max) return bad(`${what} ${part.trim()} to be ${bounds}`);
    return bytes;
  };
  const range = /^(log:)?(.+?)\.\.(.+)$/.exec(text);
  if (range) return rangeOf(range[2]!, range[3]!, range[1] !== undefined, sizeOf);
  const lognormalBody = /^lognormal:(.*)$/i.exec(text)?.[1];
  if (lognormalBody !== undefined) return lognormal(lognormalBody, least, max, sizeOf);
  if (text.includes(':')) return buckets(text, sizeOf);
  const bytes = parseSizeUnbounded(text, bareUnitBytes);
  if (bytes === undefined) return bad(formsText(bareUnitBytes));
  if (bytes > max) return bad(`a size of at most ${formatSizeExact(max)}`);
  if (bytes < min) return bad(`a size of at least ${formatSizeExact(min)}`);
  return { kind: 'fixed', bytes };
}

function rangeOf(low: string, high: string, log: boolean, sizeOf: SizeOf): Parsed {
  const lo = sizeOf(low, "the range's low end");
  if (lo instanceof BadDistribution) return lo;
  const hi = sizeOf(high, "the range's high end");
  if (hi instanceof BadDistribution) return hi;
  if (hi < lo) {
    return bad(`a range written low..high, such as ${formatSizeExact(hi)}..${formatSizeExact(lo)}`);
  }
  return { kind: 'range', minBytes: lo, maxBytes: hi, log };
}

function lognormal(body: string, least: number, max: number, sizeOf: SizeOf): Parsed {
  const keys = new Map<string, string>();
  for (const pair of body.split(',')) {
    const m = /^\s*(median|sigma|min|max)\s*=\s*(.+?)\s*$/i.exec(pair);
    if (!m) {
      return bad(
        `lognormal keys median=, sigma= and optionally min=, max= (got "${pair.trim()}"), ` +
          `e.g. ${LOGNORMAL}`,
      );
    }
    keys.set(m[1]!.toLowerCase(), m[2]!);
  }
  if (!keys.has('median') || !keys.has('sigma')) {
    return bad(`lognormal with both median= and sigma=, e.g. ${LOGNORMAL}`);
  }
  const median = sizeOf(keys.get('median')!, 'the median');
  if (median instanceof BadDistribution) return median;
  const sigmaText = keys.get('sigma')!;
  const sigma = /^\d+(\.\d+)?$/.test(sigmaText) ? Number(sigmaText) : NaN;
  if (!(sigma > 0 && sigma <= 5)) return bad(`sigma above 0 and at most 5, such as 1.2 (got ${sigmaText})`);
  const lo = keys.has('min') ? sizeOf(keys.get('min')!, 'min') : least;
  if (lo instanceof BadDistribution) return lo;
  const hi = keys.has('max') ? sizeOf(keys.get('max')!, 'max') : max;
  if (hi instanceof BadDistribution) return hi;
  if (!(lo <= median && median <= hi)) return bad('min <= median <= max in the lognormal');
  return { kind: 'lognormal', medianBytes: median, sigma, minBytes: lo, maxBytes: hi };
}

function buckets(text: string, sizeOf: SizeOf): Parsed {
  const out: { bytes: number; share: number }[] = [];
  let percent = 0;
  for (const part of text.split(',')) {
    const m = /^\s*([^:]+):\s*(\d+(?:\.\d+)?)\s*%?\s*$/.exec(part);
    if (!m) {
      return bad(
        `weighted buckets as size:share%, comma-separated, such as ${BUCKETS} ` + `(got "${part.trim()}")`,
      );
    }
    const name = m[1]!.trim();
    const bytes = sizeOf(name, "a bucket's size");
    if (bytes instanceof BadDistribution) return bytes;
    if (out.some((b) => b.bytes === bytes)) return bad(`each bucket's size once (${name} is given twice)`);
    const share = Number(m[2]);
    if (!(share > 0)) return bad(`each bucket's share above 0% (${name} has ${m[2]}%)`);
    percent += share;
    out.push({ bytes, share: share / 100 });
  }
  if (Math.abs(percent - 100) > 1e-6) {
    return bad(`bucket shares that sum to 100% (these sum to ${+percent.toFixed(6)}%)`);
  }
  return { kind: 'buckets', buckets: out };
}

/** The distribution as a user would type it back. */
export function describeDistribution(d: SizeDistribution): string {
  const size = formatSizeExact;
  switch (d.kind) {
    case 'fixed':
      return size(d.bytes);
    case 'range':
      return `${d.log ? 'log:' : ''}${size(d.minBytes)}..${size(d.maxBytes)}`;
    case 'lognormal':
      return (
        `lognormal:median=${size(d.medianBytes)},sigma=${d.sigma},` +
        `min=${size(d.minBytes)},max=${size(d.maxBytes)}`
      );
    case 'buckets':
      return d.buckets.map((b) => `${size(b.bytes)}:${+(b.share * 100).toFixed(6)}%`).join(',');
  }
}
