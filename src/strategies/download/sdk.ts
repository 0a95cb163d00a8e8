// Baseline: the SDK's own downloadToBuffer with the same block size and concurrency.
import { sdkBlockSettings } from '../sdk-settings.js';
import { LARGE_BLOB, type DownloadStrategy } from '../strategy.js';

export const sdk: DownloadStrategy = {
  name: 'sdk',
  description: 'SDK downloadToBuffer (baseline)',
  kind: 'sdk-get',
  urlCapable: false,
  holdsItemsInMemory: true,
  sdkSettings: sdkBlockSettings,
  fixtures: ({ sizeBytes }) => [{ blob: LARGE_BLOB, offsetBytes: 0, lengthBytes: sizeBytes }],
  plan: ({ sizeBytes }) => [{ index: 0, blob: LARGE_BLOB, destOffsetBytes: 0, lengthBytes: sizeBytes }],
};
