// Baseline for head: the SDK's getProperties() per blob, MAX_SOCKETS in flight per process.
import type { DownloadStrategy } from '../strategy.js';
import { perFileItems, setFixtures } from '../many-blobs.js';

export const sdkHead: DownloadStrategy = {
  name: 'sdk-head',
  description: 'SDK getProperties per blob (baseline)',
  executor: 'sdk-head',
  workload: 'head',
  urlCapable: false,
  fixtures: setFixtures,
  plan: perFileItems,
};
