// What a session will ask of a real account before it runs: its billable operations by class and
// their price at the rate table's first tier. A lower bound where --min-time may add runs.
import type { OperationCounts } from './cost.js';
import type { PriceTable } from './prices.js';

/** One contender's plan as the config gives it: the sizes and counts its requests follow from. */
export interface EstimateInput {
  command: 'download' | 'upload';
  /** The contenders' strategy names. */
  strategies: string[];
  /** Runs per contender and cell, warm-ups included. */
  runsPerContender: number;
  cells: number;
  /** More runs may follow (--min-time): the estimate is a lower bound. */
  atLeast: boolean;
  objectSizeBytes: number;
  concurrency: number;
  rangeSizeBytes?: number;
  fileCount: number;
  pageSize?: number;
  blobSizeBytes?: number;
  blockSizeBytes?: number;
  thresholdBytes?: number;
}

export interface Estimate {
  operations: OperationCounts;
  atLeast: boolean;
  /** At the table's first tier, per class summed. */
  cost?: { tier: string; amount: number; currency: string };
}

/** Requests one run of a strategy makes, and their class (strategies declare neither yet). */
function perRun(name: string, i: EstimateInput): { n: number; cls: keyof OperationCounts } {
  if (i.command === 'upload') {
    const blocks = Math.ceil((i.blobSizeBytes ?? 0) / Math.max(1, i.blockSizeBytes ?? 1)) + 1;
    if (name === 'blocks') return { n: blocks, cls: 'write' };
    if (name === 'sdk-upload') return { n: i.thresholdBytes && (i.blobSizeBytes ?? 0) <= i.thresholdBytes ? 1 : blocks, cls: 'write' };
    return { n: i.fileCount, cls: 'write' };
  }
  if (name.startsWith('list') || name === 'sdk-list') return { n: Math.ceil(i.fileCount / Math.max(1, i.pageSize ?? 5000)), cls: 'list' };
  if (name === 'head' || name === 'sdk-head') return { n: i.fileCount, cls: 'other' };
  if (name === 'small-files' || name === 'sdk-small-files') return { n: i.fileCount, cls: 'read' };
  if (name === 'single') return { n: 1, cls: 'read' };
  return { n: i.rangeSizeBytes ? Math.ceil(i.objectSizeBytes / i.rangeSizeBytes) : i.concurrency, cls: 'read' };
}

export function estimateSession(i: EstimateInput, prices: PriceTable): Estimate {
  const operations: OperationCounts = { read: 0, write: 0, list: 0, other: 0 };
  for (const name of i.strategies) {
    const { n, cls } = perRun(name, i);
    operations[cls] += n * i.runsPerContender * i.cells;
  }
  const [tier, p] = Object.entries(prices.tiers)[0] ?? [];
  const amount = p ? (Object.keys(operations) as (keyof OperationCounts)[]).reduce((s, c) => s + operations[c] * p.per10kOperations[c] / 10_000, 0) : undefined;
  return { operations, atLeast: i.atLeast, ...(tier && amount !== undefined ? { cost: { tier, amount, currency: prices.currency } } : {}) };
}

export function estimateLine(e: Estimate, prices: PriceTable): string {
  const o = e.operations;
  const cost = e.cost ? `, about ${e.cost.amount < 0.01 ? e.cost.amount.toPrecision(2) : e.cost.amount.toFixed(2)} ${e.cost.currency} at ${e.cost.tier} (${prices.name}, as of ${prices.asOf})` : '';
  return `estimate for this session: ${e.atLeast ? 'at least ' : ''}${o.read} reads, ${o.write} writes, ${o.list} list and ${o.other} other operations${cost}; fixtures and checks come on top`;
}
