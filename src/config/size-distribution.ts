// Parses --file-size into a size distribution: a fixed size (80MiB, or the seed's bare KB), a range
// (4KiB..16MiB uniform, log:4KiB..16MiB log-uniform), a lognormal
// (lognormal:median=256KiB,sigma=1.2[,min=..][,max=..]) or weighted buckets (4KiB:50%,1MiB:40%,64MiB:10%).
// Every size inside takes the same units as a fixed one, a bare number included.
import { formatSizeExact, parseSizeUnbounded } from './sizes.js';
import type { SizeDistribution } from '../plan/size-draw.js';

/** What went wrong, worded so that one line names the problem and the fix. */
export class BadDistribution {
  readonly expected: string;
  constructor(expected: string) {
    this.expected = expected;
  }
}

const DISTRIBUTIONS = 'a range (4KiB..16MiB or log:4KiB..16MiB), lognormal:median=256KiB,sigma=1.2 '
  + 'or weighted buckets (4KiB:50%,1MiB:40%,64MiB:10%)';

/** Parses `raw` with sizes from `min` to `max` bytes; a bare number counts `bareUnitBytes`. */
export function parseSizeDistribution(raw: string, min: number, max: number, bareUnitBytes: number): SizeDistribution | BadDistribution {
  const text = raw.trim();
  const sizes = bareUnitBytes === 1 ? '80MiB, 100KB or 12800000' : `80MiB, 100KB or ${Math.round(102_000 / bareUnitBytes)} (a bare number is ${bareUnitBytes === 1000 ? 'KB' : `${bareUnitBytes} bytes`})`;
  const forms = `a size such as ${sizes}, ${DISTRIBUTIONS}`;
  const bounds = `from ${formatSizeExact(Math.max(min, 1))} to ${formatSizeExact(max)}`;
  const sizeOf = (part: string, what: string): number | BadDistribution => {
    const bytes = parseSizeUnbounded(part, bareUnitBytes);
    if (bytes === undefined) return new BadDistribution(`${what} "${part.trim()}" to be a size such as 256KiB`);
    if (bytes < Math.max(min, 1) || bytes > max) return new BadDistribution(`${what} ${part.trim()} to be ${bounds}`);
    return bytes;
  };
  const range = /^(log:)?(.+?)\.\.(.+)$/.exec(text);
  if (range) {
    const lo = sizeOf(range[2]!, 'the range\'s low end');
    if (lo instanceof BadDistribution) return lo;
    const hi = sizeOf(range[3]!, 'the range\'s high end');
    if (hi instanceof BadDistribution) return hi;
    if (hi < lo) return new BadDistribution(`a range written low..high, such as ${formatSizeExact(hi)}..${formatSizeExact(lo)}`);
    return { kind: 'range', minBytes: lo, maxBytes: hi, log: range[1] !== undefined };
  }
  if (text.toLowerCase().startsWith('lognormal:')) return lognormal(text.slice('lognormal:'.length), min, max, sizeOf);
  if (text.includes(':')) return buckets(text, sizeOf);
  const bytes = parseSizeUnbounded(text, bareUnitBytes);
  if (bytes === undefined) return new BadDistribution(forms);
  if (bytes > max) return new BadDistribution(`a size of at most ${formatSizeExact(max)}`);
  if (bytes < min) return new BadDistribution(`a size of at least ${formatSizeExact(min)}`);
  return { kind: 'fixed', bytes };
}

type SizeOf = (part: string, what: string) => number | BadDistribution;

function lognormal(body: string, min: number, max: number, sizeOf: SizeOf): SizeDistribution | BadDistribution {
  const keys = new Map<string, string>();
  for (const pair of body.split(',')) {
    const m = /^\s*(median|sigma|min|max)\s*=\s*(.+?)\s*$/i.exec(pair);
    if (!m) return new BadDistribution(`lognormal keys median=, sigma= and optionally min=, max= (got "${pair.trim()}"), e.g. lognormal:median=256KiB,sigma=1.2`);
    keys.set(m[1]!.toLowerCase(), m[2]!);
  }
  if (!keys.has('median') || !keys.has('sigma')) return new BadDistribution('lognormal with both median= and sigma=, e.g. lognormal:median=256KiB,sigma=1.2');
  const median = sizeOf(keys.get('median')!, 'the median');
  if (median instanceof BadDistribution) return median;
  const sigmaText = keys.get('sigma')!;
  const sigma = /^\d+(\.\d+)?$/.test(sigmaText) ? Number(sigmaText) : NaN;
  if (!(sigma > 0 && sigma <= 5)) return new BadDistribution(`sigma above 0 and at most 5, such as 1.2 (got ${sigmaText})`);
  const lo = keys.has('min') ? sizeOf(keys.get('min')!, 'min') : Math.max(min, 1);
  if (lo instanceof BadDistribution) return lo;
  const hi = keys.has('max') ? sizeOf(keys.get('max')!, 'max') : max;
  if (hi instanceof BadDistribution) return hi;
  if (!(lo <= median && median <= hi)) return new BadDistribution('min <= median <= max in the lognormal');
  return { kind: 'lognormal', medianBytes: median, sigma, minBytes: lo, maxBytes: hi };
}

function buckets(text: string, sizeOf: SizeOf): SizeDistribution | BadDistribution {
  const out: { bytes: number; share: number }[] = [];
  let percent = 0;
  for (const part of text.split(',')) {
    const m = /^\s*([^:]+):\s*(\d+(?:\.\d+)?)\s*%?\s*$/.exec(part);
    if (!m) return new BadDistribution(`weighted buckets as size:share%, comma-separated, such as 4KiB:50%,1MiB:40%,64MiB:10% (got "${part.trim()}")`);
    const bytes = sizeOf(m[1]!, 'a bucket\'s size');
    if (bytes instanceof BadDistribution) return bytes;
    if (out.some((b) => b.bytes === bytes)) return new BadDistribution(`each bucket's size once (${m[1]!.trim()} is given twice)`);
    const share = Number(m[2]);
    if (!(share > 0)) return new BadDistribution(`each bucket's share above 0% (${m[1]!.trim()} has ${m[2]}%)`);
    percent += share;
    out.push({ bytes, share: share / 100 });
  }
  if (Math.abs(percent - 100) > 1e-6) return new BadDistribution(`bucket shares that sum to 100% (these sum to ${+percent.toFixed(6)}%)`);
  return { kind: 'buckets', buckets: out };
}

/** The distribution as a user would type it back. */
export function describeDistribution(d: SizeDistribution): string {
  switch (d.kind) {
    case 'fixed': return formatSizeExact(d.bytes);
    case 'range': return `${d.log ? 'log:' : ''}${formatSizeExact(d.minBytes)}..${formatSizeExact(d.maxBytes)}`;
    case 'lognormal': return `lognormal:median=${formatSizeExact(d.medianBytes)},sigma=${d.sigma},min=${formatSizeExact(d.minBytes)},max=${formatSizeExact(d.maxBytes)}`;
    case 'buckets': return d.buckets.map((b) => `${formatSizeExact(b.bytes)}:${+(b.share * 100).toFixed(6)}%`).join(',');
  }
}
