// How a contender is keyed and shown in every report: its strategy, and its sweep cell when there
// is one (`chunked [--concurrency 8]`). Here, beside the results, so analysis and reports share it.
import type { Cell } from './schema.js';

export function cellLabel(strategy: string, cell?: Cell): string {
  if (!cell || !Object.keys(cell).length) return strategy;
  return `${strategy} [${Object.entries(cell)
    .map(([k, v]) => `${k} ${v}`)
    .join(' ')}]`;
}
