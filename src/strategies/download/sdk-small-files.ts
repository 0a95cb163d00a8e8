// Baseline for small-files: the SDK's downloadToBuffer per blob, MAX_SOCKETS in flight per process.
import type { DownloadStrategy } from '../strategy.js';
import { perFileItems, setFixtures } from '../many-blobs.js';

export const sdkSmallFilesDownload: DownloadStrategy = {
  name: 'sdk-small-files',
  description: 'SDK downloadToBuffer per small blob (baseline)',
  kind: 'sdk-get',
  workload: 'files',
  urlCapable: false,
  holdsItemsInMemory: true,
  // MAX_SOCKETS calls at a time per process, as our lanes; each file in one request, as our GET.
  jobOptions: ({ maxSockets, sizeBytes }) => ({ inFlight: maxSockets, blockSizeBytes: Math.max(1, sizeBytes), concurrency: 1 }),
  fixtures: setFixtures,
  plan: perFileItems,
};
