// `tune --slo`'s --rate: where the rate search starts, a range `100..2000/s` (its ends tried first)
// or one rate `100/s` (doubled or halved from there until the SLO's edge is bracketed).
import { ConfigError, quotedValue } from '../vocabulary/errors.js';
import { MAX_RATE_PER_SECOND } from './options.js';

export type RateSearchFrom = { low: number; high: number } | { start: number };

const RATE = String.raw`(\d+(?:\.\d+)?)(?:\/s)?`;
const EXAMPLE = 'e.g. --rate 100/s (a start) or --rate 100..2000/s (a range)';

const inRange = (n: number) => n >= 0.01 && n <= MAX_RATE_PER_SECOND;

export function parseRateSearch(raw: string | undefined): RateSearchFrom {
  if (raw === undefined) {
    throw new ConfigError(
      `tune --slo searches --rate for the highest rate that keeps it: give where to start, ${EXAMPLE}`,
    );
  }
  const range = new RegExp(String.raw`^${RATE}\s*\.\.\s*${RATE}$`).exec(raw.trim());
  if (range) {
    const [low, high] = [Number(range[1]), Number(range[2])];
    if (inRange(low) && inRange(high) && low < high) return { low, high };
  }
  const one = new RegExp(`^${RATE}$`).exec(raw.trim());
  if (one && inRange(Number(one[1]))) return { start: Number(one[1]) };
  throw new ConfigError(
    `tune --slo: --rate ${quotedValue(raw)} is not a rate or a range of rates from 0.01/s to ` +
      `${MAX_RATE_PER_SECOND}/s, low before high; ${EXAMPLE}`,
  );
}
