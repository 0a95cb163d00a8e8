// The rate table that cost estimates use: a dated default and the shape a --prices file must have.
// The default is named for what it is, so nobody mistakes it for their own bill.
export const TIERS = ['hot', 'cool', 'cold'] as const;
export type Tier = (typeof TIERS)[number];
export const OPERATION_CLASSES = ['read', 'write', 'list', 'other'] as const;
export type OperationClass = (typeof OPERATION_CLASSES)[number];

/** USD per 10,000 operations by class, and per GiB read back (cool and cold bill retrieval). */
export interface TierPrices {
  per10kOperations: Record<OperationClass, number>;
  retrievalPerGiB: number;
}

export interface PriceTable {
  /** What the prices are and where from: shown beside every cost. */
  name: string;
  /** The day they were taken (YYYY-MM-DD). */
  asOf: string;
  currency: string;
  tiers: Partial<Record<Tier, TierPrices>>;
}

/**
 * Azure Blob Storage block blob list prices (general-purpose v2, LRS, East US, pay-as-you-go), as
 * published on azure.microsoft.com/pricing/details/storage/blobs in November 2024. Prices differ by
 * region, redundancy and agreement, and change: give your own with --prices FILE.
 */
export const DEFAULT_PRICES: PriceTable = {
  name: 'Azure Blob Storage list prices, block blob GPv2 LRS, East US (USD); replace with --prices FILE',
  asOf: '2024-11-01',
  currency: 'USD',
  tiers: {
    hot: { per10kOperations: { write: 0.065, read: 0.005, list: 0.065, other: 0.005 }, retrievalPerGiB: 0 },
    cool: {
      per10kOperations: { write: 0.13, read: 0.013, list: 0.065, other: 0.005 },
      retrievalPerGiB: 0.01,
    },
    cold: {
      per10kOperations: { write: 0.234, read: 0.13, list: 0.065, other: 0.0052 },
      retrievalPerGiB: 0.03,
    },
  },
};

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isPrice = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/** The longest name, date or currency a --prices file may give: a line's worth beside every cost. */
const MAX_PRICES_TEXT = 200;

/** A --prices document checked field by field: the table, or one line saying what is wrong. */
export function parsePriceTable(doc: unknown): { table: PriceTable } | { problem: string } {
  if (!isObject(doc) || !isObject(doc.tiers))
    return {
      problem:
        'needs {"name", "asOf", "currency", "tiers": {"hot": {"per10kOperations": ' +
        '{"read", "write", "list", "other"}, "retrievalPerGiB"}}}',
    };
  const tiers: Partial<Record<Tier, TierPrices>> = {};
  for (const [tier, value] of Object.entries(doc.tiers)) {
    if (!(TIERS as readonly string[]).includes(tier))
      return { problem: `has an unknown tier "${tier.slice(0, 20)}"; the tiers are ${TIERS.join(', ')}` };
    if (!isObject(value) || !isObject(value.per10kOperations))
      return { problem: `tier ${tier} needs per10kOperations` };
    const ops = value.per10kOperations;
    const missing = OPERATION_CLASSES.find((c) => !isPrice(ops[c]));
    if (missing) return { problem: `tier ${tier} needs per10kOperations.${missing} as a number >= 0` };
    const retrieval = value.retrievalPerGiB ?? 0;
    if (!isPrice(retrieval)) return { problem: `tier ${tier} has a bad retrievalPerGiB; give a number >= 0` };
    tiers[tier as Tier] = {
      per10kOperations: {
        read: ops.read as number,
        write: ops.write as number,
        list: ops.list as number,
        other: ops.other as number,
      },
      retrievalPerGiB: retrieval,
    };
  }
  if (!tiers.hot && !tiers.cool && !tiers.cold)
    return { problem: 'has no tiers; give at least one of hot, cool, cold' };
  // A field that is there is shown as given (escaped by each report) or refused: never replaced
  // quietly, which had turned a long currency into USD.
  for (const field of ['name', 'asOf', 'currency'] as const) {
    const v = doc[field];
    if (v !== undefined && typeof v !== 'string')
      return { problem: `has ${field === 'asOf' ? 'an' : 'a'} ${field} that is not text; give a string` };
    if (typeof v === 'string' && v.length > MAX_PRICES_TEXT)
      return {
        problem: `has a ${field} of ${v.length} characters, more than ${MAX_PRICES_TEXT}; shorten it`,
      };
  }
  const text = (v: unknown, fallback: string) => (typeof v === 'string' ? v : fallback);
  return {
    table: {
      name: text(doc.name, 'prices from --prices'),
      asOf: text(doc.asOf, 'undated'),
      currency: text(doc.currency, 'USD'),
      tiers,
    },
  };
}
