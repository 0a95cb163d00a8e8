// Baseline: the SDK's own downloadToBuffer with the same block size and concurrency.
import { rangeRequests } from '../requests.js';
import { sdkBlockSettings } from '../sdk-settings.js';
import { LARGE_BLOB, type DownloadStrategy } from '../strategy.js';

export const sdk = {
  name: 'sdk',
  description: 'SDK downloadToBuffer (baseline)',
  requests: (i) => ({ count: rangeRequests(i), billedAs: 'read' }),
  simplicity: 1,
  reads: ['concurrency', 'rangeSize'],
  hedgeable: false,
  writesSink: false,
  kind: 'sdk-get',
  urlCapable: false,
  holdsItemsInMemory: true,
  sdkSettings: sdkBlockSettings,
  fixtures: ({ sizeBytes }) => [{ blob: LARGE_BLOB, offsetBytes: 0, lengthBytes: sizeBytes }],
  plan: ({ sizeBytes }) => [{ index: 0, blob: LARGE_BLOB, destOffsetBytes: 0, lengthBytes: sizeBytes }],
} as const satisfies DownloadStrategy;
