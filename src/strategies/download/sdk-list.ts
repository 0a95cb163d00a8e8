// Baseline for list: the SDK's listBlobsFlat().byPage({ maxPageSize }) over the same prefixes.
import type { DownloadStrategy } from '../strategy.js';
import { listItems, setFixtures } from '../many-blobs.js';

export const sdkList: DownloadStrategy = {
  name: 'sdk-list',
  description: 'SDK listBlobsFlat().byPage (baseline)',
  kind: 'sdk-list',
  workload: 'list',
  urlCapable: false,
  // MAX_SOCKETS calls at a time per process, as our lanes.
  jobOptions: ({ maxSockets }) => ({ inFlight: maxSockets }),
  fixtures: setFixtures,
  plan: (input) => listItems(input),
};
