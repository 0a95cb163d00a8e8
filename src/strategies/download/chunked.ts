// CONCURRENCY ranged GETs of one blob, reassembled at their offsets; with --range-size, ranges of
// that size with CONCURRENCY in flight.
import { planRanges } from '../ranges.js';
import { rangeRequests } from '../requests.js';
import { LARGE_BLOB, type DownloadStrategy } from '../strategy.js';

export const chunked = {
  name: 'chunked',
  description: 'N ranged GETs of one blob',
  requests: (i) => ({ count: rangeRequests(i), billedAs: 'read' }),
  simplicity: 1,
  reads: ['concurrency', 'rangeSize'],
  hedgeable: true,
  writesSink: true,
  kind: 'get',
  urlCapable: true,
  fixtures: ({ sizeBytes }) => [{ blob: LARGE_BLOB, offsetBytes: 0, lengthBytes: sizeBytes }],
  plan: ({ sizeBytes, concurrency, rangeSizeBytes, urlTarget }) =>
    planRanges(sizeBytes, concurrency, rangeSizeBytes).map((range, index) => ({
      index,
      blob: urlTarget ? undefined : LARGE_BLOB,
      // A 0-byte blob cannot be asked for a range; it is one plain GET.
      range: sizeBytes === 0 ? undefined : range,
      destOffsetBytes: range.offsetBytes,
      lengthBytes: range.lengthBytes,
    })),
} as const satisfies DownloadStrategy;
