// The plain-array form of the pool's fair split, for tests of its arithmetic (the pool splits Items).
import { fairBounds } from '../../src/plan/items.js';

/** Deals `items` to `workers` in contiguous runs; remainders go to the first workers, none dropped. */
export function splitFairly<T>(items: readonly T[], workers: number): T[][] {
  return fairBounds(items.length, workers).map(([start, end]) => items.slice(start, end));
}
