// Which part of the work one client of a scale-out run takes: client i of K takes items i, i+K, …
// (small files, ranges, copies), so every item is taken by exactly one client and each client's
// share is spread over the whole plan, not a contiguous slice of it.
import { everyItem, type Items } from '../plan/items.js';

/** One client's place in a scale-out run: `index` from 0 to `count` - 1. */
export interface Shard {
  index: number;
  count: number;
}

/** The items of `items` that client `shard.index` of `shard.count` takes; all of them without a shard. */
export function shardItems(items: Items, shard?: Shard): Items {
  if (!shard || shard.count <= 1) return items;
  return everyItem(items, shard.index, shard.count);
}
