// What a session will ask of a real account before it runs: its billable operations by class and
// their price at the rate table's first tier. A lower bound where --min-time may add runs.
import type { OperationCounts } from './cost.js';
import { OPERATION_CLASSES, type PriceTable } from './prices.js';
import { plannedClasses } from './mix.js';
import type { MixDraw } from '../plan/mix.js';
import { strategyNamed } from '../strategies/index.js';
import type { RequestInput } from '../strategies/strategy.js';

/** One contender's plan as the config gives it: the sizes and counts its requests follow from. */
export interface EstimateInput extends RequestInput {
  command: 'download' | 'upload';
  /** The contenders' strategy names. */
  strategies: string[];
  /** Runs per contender and cell, warm-ups included. */
  runsPerContender: number;
  cells: number;
  /** More runs may follow (--min-time): the estimate is a lower bound. */
  atLeast: boolean;
  /** --mix: a run is --file-count operations, each billed as its own, whatever the contender. */
  mix?: MixDraw;
}

export interface Estimate {
  operations: OperationCounts;
  atLeast: boolean;
  /** At the table's first tier, per class summed. */
  cost?: { tier: string; amount: number; currency: string };
}

export function estimateSession(i: EstimateInput, prices: PriceTable): Estimate {
  const operations: OperationCounts = { read: 0, write: 0, list: 0, other: 0 };
  for (const name of i.strategies) {
    // Each contender declares its requests per run and their class; a name the registry does not
    // hold was refused by the config before any estimate.
    const runs = i.runsPerContender * i.cells;
    if (i.mix) {
      const planned = plannedClasses(i.mix, i.fileCount);
      for (const c of OPERATION_CLASSES) operations[c] += planned[c] * runs;
      continue;
    }
    const { count, billedAs } = strategyNamed(i.command, name)!.requests(i);
    operations[billedAs] += count * runs;
  }
  const [tier, p] = Object.entries(prices.tiers)[0] ?? [];
  const amount = p
    ? (Object.keys(operations) as (keyof OperationCounts)[]).reduce(
        (s, c) => s + (operations[c] * p.per10kOperations[c]) / 10_000,
        0,
      )
    : undefined;
  return {
    operations,
    atLeast: i.atLeast,
    ...(tier && amount !== undefined ? { cost: { tier, amount, currency: prices.currency } } : {}),
  };
}

export function estimateLine(e: Estimate, prices: PriceTable): string {
  const o = e.operations;
  const amount = e.cost && (e.cost.amount < 0.01 ? e.cost.amount.toPrecision(2) : e.cost.amount.toFixed(2));
  const cost = e.cost
    ? `, about ${amount} ${e.cost.currency} at ${e.cost.tier} (${prices.name}, as of ${prices.asOf})`
    : '';
  const operations = `${o.read} reads, ${o.write} writes, ${o.list} list and ${o.other} other operations`;
  return (
    `estimate for this session: ${e.atLeast ? 'at least ' : ''}${operations}${cost}; ` +
    'fixtures and checks come on top'
  );
}
