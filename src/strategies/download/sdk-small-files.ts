// Baseline for small-files: the SDK's downloadToBuffer per blob, MAX_SOCKETS in flight per process.
import type { DownloadStrategy } from '../strategy.js';
import { perFileItems, setFixtures } from '../many-blobs.js';

export const sdkSmallFilesDownload: DownloadStrategy = {
  name: 'sdk-small-files',
  description: 'SDK downloadToBuffer per small blob (baseline)',
  executor: 'sdk',
  workload: 'files',
  urlCapable: false,
  fixtures: setFixtures,
  plan: perFileItems,
};
