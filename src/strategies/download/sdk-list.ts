// Baseline for list: the SDK's listBlobsFlat().byPage({ maxPageSize }) over the same prefixes.
import { listPages } from '../requests.js';
import type { DownloadStrategy } from '../strategy.js';
import { listItems, setFixtures } from '../many-blobs.js';
import { DOWNLOAD_WORKLOADS } from '../../plan/workload.js';

export const sdkList = {
  name: 'sdk-list',
  description: 'SDK listBlobsFlat().byPage (baseline)',
  kind: 'sdk-list',
  workload: DOWNLOAD_WORKLOADS.list,
  requests: (i) => ({ count: listPages(i), billedAs: 'list' }),
  simplicity: 1,
  reads: ['pageSize'],
  hedgeable: false,
  writesSink: false,
  urlCapable: false,
  // MAX_SOCKETS calls at a time per process, as our lanes.
  jobOptions: ({ maxSockets }) => ({ inFlight: maxSockets }),
  fixtures: setFixtures,
  plan: (input) => listItems(input),
} as const satisfies DownloadStrategy;
