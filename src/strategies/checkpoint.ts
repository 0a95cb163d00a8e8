// The checkpoint's two ways to write a shard: staged blocks and a Put Block List per shard, or one
// Put Blob (a plain PUT on a plain server). Each rank's shard is its own blob, and its content is the
// seed's stream at rank x shard size, so that every shard differs and a reader can check any range
// from its offset alone. The plan lists rank 0's items first, then rank 1's, each rank the same count:
// the pool's consecutive shares give worker r exactly shard r.
import type { WorkItem } from '../plan/items.js';
import { blockId } from '../plan/names.js';

export interface ShardPlanInput {
  /** Every shard's name starts with it (the run's prefix). */
  prefix: string;
  ranks: number;
  shardSizeBytes: number;
  blockSizeBytes: number;
}

export interface ShardWrite {
  name: 'shard-blocks' | 'shard-put';
  description: string;
  /** Staged blocks need a blob service (Put Block, Put Block List); a Put Blob is a plain PUT too. */
  needsBlobService: boolean;
  plan(input: ShardPlanInput): WorkItem[];
  /** The Put Block List of each shard, where the write stages blocks. */
  commits?(input: ShardPlanInput): { blob: string; blockIds: string[] }[];
}

export const shardName = (prefix: string, rank: number) => `${prefix}/rank-${String(rank).padStart(4, '0')}`;

/** Where rank `rank`'s shard starts in the seed's stream (and in the read-back's concatenation). */
export const shardOffset = (rank: number, shardSizeBytes: number) => rank * shardSizeBytes;

const blockCount = ({ shardSizeBytes, blockSizeBytes }: ShardPlanInput) =>
  Math.max(1, Math.ceil(shardSizeBytes / blockSizeBytes));

export const shardBlocks: ShardWrite = {
  name: 'shard-blocks',
  description: 'each rank stages its shard as blocks, then Put Block List',
  needsBlobService: true,
  plan(input) {
    const n = blockCount(input);
    const { ranks, shardSizeBytes, blockSizeBytes } = input;
    return Array.from({ length: ranks * n }, (_, index) => {
      const rank = Math.floor(index / n);
      const block = index % n;
      const within = block * blockSizeBytes;
      return {
        index,
        blob: shardName(input.prefix, rank),
        destOffsetBytes: shardOffset(rank, shardSizeBytes) + within,
        lengthBytes: Math.min(blockSizeBytes, shardSizeBytes - within),
        blockId: blockId(block),
      };
    });
  },
  commits(input) {
    const ids = Array.from({ length: blockCount(input) }, (_, b) => blockId(b));
    return Array.from({ length: input.ranks }, (_, rank) => ({
      blob: shardName(input.prefix, rank),
      blockIds: ids,
    }));
  },
};

export const shardPut: ShardWrite = {
  name: 'shard-put',
  description: 'each rank writes its shard as one Put Blob',
  needsBlobService: false,
  plan: ({ prefix, ranks, shardSizeBytes }) =>
    Array.from({ length: ranks }, (_, rank) => ({
      index: rank,
      blob: shardName(prefix, rank),
      destOffsetBytes: shardOffset(rank, shardSizeBytes),
      lengthBytes: shardSizeBytes,
    })),
};

export const SHARD_WRITES: readonly ShardWrite[] = [shardBlocks, shardPut];

/** --write: which ways run (`all`: each that the target and the shard size allow). */
export const SHARD_WRITE_CHOICES = ['all', 'blocks', 'put'] as const;
export type ShardWriteChoice = (typeof SHARD_WRITE_CHOICES)[number];

/**
 * The ways that run: staged blocks on a blob service; one Put Blob where the shard fits under the
 * single-shot size (always on a plain server, where a shard is one PUT whatever its size).
 */
export function shardWrites(choice: ShardWriteChoice, blobService: boolean, putFits: boolean): ShardWrite[] {
  const blocks = blobService && choice !== 'put' ? [shardBlocks] : [];
  const put = choice !== 'blocks' && (putFits || !blobService) ? [shardPut] : [];
  return [...blocks, ...put];
}

/** The read-back: each rank's shard in ranges of `rangeBytes`, ranks in order (rank r reads shard r). */
export function shardReads(input: ShardPlanInput, rangeBytes: number): WorkItem[] {
  const per = Math.max(1, Math.ceil(input.shardSizeBytes / rangeBytes));
  return Array.from({ length: input.ranks * per }, (_, index) => {
    const rank = Math.floor(index / per);
    const within = (index % per) * rangeBytes;
    const lengthBytes = Math.min(rangeBytes, input.shardSizeBytes - within);
    return {
      index,
      blob: shardName(input.prefix, rank),
      range: { offsetBytes: within, lengthBytes },
      destOffsetBytes: shardOffset(rank, input.shardSizeBytes) + within,
      lengthBytes,
    };
  });
}

/** --shard-write names staged blocks alone, or one Put Blob alone. */
export const blocksOnly = (choice: ShardWriteChoice) => choice === 'blocks';
export const putOnly = (choice: ShardWriteChoice) => choice === 'put';

/** The one way a search measures where --shard-write leaves it open: blocks on a blob service, else PUT. */
export const searchedShardWrite = (blobService: boolean): ShardWriteChoice =>
  blobService ? 'blocks' : 'put';
