// Billable operations per contender, by class, and what they cost at a rate table. Every request
// tried is billed, retries included; the class is read off what the run recorded.
import type { CommandName, RunRecord } from '../results/schema.js';
import { OPERATION_CLASSES, TIERS, type OperationClass, type PriceTable, type Tier } from './prices.js';
import { unitOfRun } from './unit.js';
import { mixOperationClasses } from './mix.js';

export type OperationCounts = Record<OperationClass, number>;

const GiB = 1024 ** 3;

/**
 * The class of a run's requests, from what it recorded: an upload's are writes (Put Blob, Put
 * Block and the Put Block List commit, which the run counts among its requests); a download's
 * are reads (ranged or whole GETs), list pages where it was a listing (a page size), and other
 * (HEAD) where requests moved no bytes at all.
 */
export function operationClassOf(
  command: CommandName,
  r: Pick<RunRecord, 'params' | 'bytes' | 'requests'>,
): OperationClass {
  if (command === 'upload') return 'write';
  if (r.params?.pageSize !== undefined) return 'list';
  return r.bytes === 0 && r.requests > 0 ? 'other' : 'read';
}

/**
 * Objects one run moved: a many-blob download's set (its files), many small uploads' files (one per
 * request), else one object; a steady run's per lap times its laps.
 */
function objectsOf(command: CommandName, r: RunRecord): number {
  if (r.steady && r.steady.lapRequests > 0) {
    const perLap =
      r.params?.fileCount ?? (command === 'upload' && unitOfRun(r) === 'ops/s' ? r.steady.lapRequests : 1);
    return perLap * (r.requests / r.steady.lapRequests);
  }
  if (r.params?.fileCount !== undefined) return r.params.fileCount;
  // Many small uploads (counted in ops/s) put one file per request; a large upload or download is one object.
  if (command === 'upload' && unitOfRun(r) === 'ops/s') return r.requests;
  return 1;
}

export interface TierCost {
  tier: Tier;
  per1000Objects: number;
  perGiB: number;
}

export interface ContenderCost {
  /**
   * `requests`: every request was traced. `calls`: an SDK baseline, traced one record per SDK call;
   * the requests the SDK made inside a call are not seen, so its counts are a lower bound.
   */
  counted: 'requests' | 'calls';
  /** Billable operations over the measured runs, by class (retries included). */
  operations: OperationCounts;
  /** Operations per object moved, all classes. */
  requestsPerObject: number;
  objects: number;
  bytes: number;
  /** At each tier the rate table has. */
  tiers: TierCost[];
}

const zero = (): OperationCounts => ({ read: 0, write: 0, list: 0, other: 0 });

/** Counts over a contender's measured runs and their price per 1,000 objects and per GiB. */
export function contenderCost(
  command: CommandName,
  runs: readonly RunRecord[],
  prices: PriceTable,
  counted: ContenderCost['counted'] = 'requests',
): ContenderCost {
  const operations = zero();
  let objects = 0;
  let bytes = 0;
  for (const r of runs) {
    if (r.warmup) continue;
    // A mix: each request billed as its own operation is.
    const mixed = mixOperationClasses(r);
    if (mixed) for (const c of OPERATION_CLASSES) operations[c] += mixed[c];
    // A hedge's duplicate is one more request tried, billed as its original is.
    else operations[operationClassOf(command, r)] += r.requests + r.retries + (r.hedge?.issued ?? 0);
    objects += objectsOf(command, r);
    bytes += r.bytes;
  }
  const total = OPERATION_CLASSES.reduce((s, c) => s + operations[c], 0);
  const tiers = TIERS.flatMap((tier) => {
    const p = prices.tiers[tier];
    if (!p || objects <= 0) return [];
    const opsCost = OPERATION_CLASSES.reduce(
      (s, c) => s + (operations[c] * p.per10kOperations[c]) / 10_000,
      0,
    );
    // Retrieval is billed on what is read back, not on what is written.
    const retrieval = command === 'download' ? (bytes / GiB) * p.retrievalPerGiB : 0;
    const cost = opsCost + retrieval;
    return [
      { tier, per1000Objects: (cost / objects) * 1000, perGiB: bytes > 0 ? cost / (bytes / GiB) : NaN },
    ];
  });
  return {
    counted,
    operations,
    requestsPerObject: objects > 0 ? total / objects : NaN,
    objects,
    bytes,
    tiers,
  };
}
