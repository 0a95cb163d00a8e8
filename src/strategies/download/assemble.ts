// N part blobs (part.0 ... part.N-1) fetched in parallel and concatenated in order.
import { splitRanges } from '../ranges.js';
import type { DownloadStrategy } from '../strategy.js';

export const assemble = {
  name: 'assemble',
  description: 'N part blobs concatenated',
  // One GET per part blob, --concurrency of them: --range-size does not split them.
  requests: (i) => ({ count: i.concurrency, billedAs: 'read' }),
  simplicity: 2,
  extraStorage: 'the blob stored again as part blobs',
  reads: ['concurrency'],
  hedgeable: false,
  writesSink: true,
  kind: 'get',
  urlCapable: false,
  fixtures: ({ sizeBytes, concurrency }) =>
    splitRanges(sizeBytes, concurrency).map((r, i) => ({
      blob: `part.${i}`,
      offsetBytes: r.offsetBytes,
      lengthBytes: r.lengthBytes,
    })),
  plan: ({ sizeBytes, concurrency }) =>
    splitRanges(sizeBytes, concurrency).map((r, index) => ({
      index,
      blob: `part.${index}`,
      destOffsetBytes: r.offsetBytes,
      lengthBytes: r.lengthBytes,
    })),
} as const satisfies DownloadStrategy;
