// One large blob as staged blocks of BLOCK_SIZE, CONCURRENCY in flight, then Put Block List; at or
// below THRESHOLD it is a single Put Blob (the threshold of a parallel upload).
import { putOrBlocks } from '../requests.js';
import type { UploadStrategy } from '../strategy.js';
import { blockId, largeBlobName } from '../../plan/names.js';

export const blocks = {
  name: 'blocks',
  description: 'staged blocks in parallel + commit',
  kind: 'put',
  requests: (i) => ({ count: putOrBlocks(i), billedAs: 'write' }),
  simplicity: 1,
  reads: ['concurrency', 'blobSize', 'blockSize'],
  urlCapable: false,
  // --concurrency blocks in flight over all processes.
  jobOptions: ({ concurrency, processes }) => ({ inFlight: Math.max(1, Math.ceil(concurrency / processes)) }),
  plan: ({ prefix, blobSizeBytes, blockSizeBytes, thresholdBytes }) => {
    const blob = largeBlobName(prefix);
    if (blobSizeBytes <= thresholdBytes || blobSizeBytes === 0) {
      return [{ index: 0, blob, destOffsetBytes: 0, lengthBytes: blobSizeBytes }];
    }
    const count = Math.ceil(blobSizeBytes / blockSizeBytes);
    // Fixed-size blocks, the last one shorter: what the service and the SDK do.
    return Array.from({ length: count }, (_, index) => {
      const offset = index * blockSizeBytes;
      return {
        index,
        blob,
        destOffsetBytes: offset,
        lengthBytes: Math.min(blockSizeBytes, blobSizeBytes - offset),
        blockId: blockId(index),
      };
    });
  },
  commit: (input, items) => {
    const blockIds = [...items].map((i) => i.blockId);
    if (!blockIds.some((id) => id !== undefined)) return undefined;
    return { blob: largeBlobName(input.prefix), blockIds: blockIds as string[] };
  },
} as const satisfies UploadStrategy;
