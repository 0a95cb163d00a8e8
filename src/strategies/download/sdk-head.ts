// Baseline for head: the SDK's getProperties() per blob, MAX_SOCKETS in flight per process.
import type { DownloadStrategy } from '../strategy.js';
import { perFileItems, setFixtures } from '../many-blobs.js';
import { DOWNLOAD_WORKLOADS } from '../../plan/workload.js';

export const sdkHead = {
  name: 'sdk-head',
  description: 'SDK getProperties per blob (baseline)',
  kind: 'sdk-head',
  workload: DOWNLOAD_WORKLOADS.head,
  requests: (i) => ({ count: i.fileCount, billedAs: 'other' }),
  simplicity: 1,
  hedgeable: false,
  writesSink: false,
  urlCapable: false,
  // MAX_SOCKETS calls at a time per process, as our lanes.
  jobOptions: ({ maxSockets }) => ({ inFlight: maxSockets }),
  fixtures: setFixtures,
  plan: perFileItems,
} as const satisfies DownloadStrategy;
