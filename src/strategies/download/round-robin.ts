// The chunked ranges, each read from a different copy of the blob (large.1 ... large.N).
import { planRanges, splitRanges } from '../ranges.js';
import { rangeRequests } from '../requests.js';
import type { DownloadStrategy } from '../strategy.js';

const copyName = (i: number) => `large.${i + 1}`;

export const roundRobin = {
  name: 'round-robin',
  description: 'N ranges, each from its own copy of the blob',
  aliases: ['roundrobin'],
  requests: (i) => ({ count: rangeRequests(i), billedAs: 'read' }),
  simplicity: 2,
  extraStorage: 'one stored copy of the blob per range',
  reads: ['concurrency', 'rangeSize'],
  hedgeable: true,
  writesSink: true,
  kind: 'get',
  urlCapable: false,
  fixtures: ({ sizeBytes, concurrency }) =>
    splitRanges(sizeBytes, concurrency).map((_, i) => ({
      blob: copyName(i),
      offsetBytes: 0,
      lengthBytes: sizeBytes,
    })),
  plan: ({ sizeBytes, concurrency, rangeSizeBytes }) => {
    // One copy per concurrent range: with --range-size, range i reads copy i mod N.
    const copies = splitRanges(sizeBytes, concurrency).length;
    return planRanges(sizeBytes, concurrency, rangeSizeBytes).map((range, index) => ({
      index,
      blob: copyName(index % copies),
      range: sizeBytes === 0 ? undefined : range,
      destOffsetBytes: range.offsetBytes,
      lengthBytes: range.lengthBytes,
    }));
  },
} as const satisfies DownloadStrategy;
