// Baseline for small-files: the SDK's downloadToBuffer per blob, MAX_SOCKETS in flight per process.
import type { DownloadStrategy } from '../strategy.js';
import { perFileItems, setFixtures } from '../many-blobs.js';
import { DOWNLOAD_WORKLOADS } from '../../plan/workload.js';

export const sdkSmallFilesDownload = {
  name: 'sdk-small-files',
  description: 'SDK downloadToBuffer per small blob (baseline)',
  kind: 'sdk-get',
  workload: DOWNLOAD_WORKLOADS.files,
  mixKind: 'sdk-mix',
  requests: (i) => ({ count: i.fileCount, billedAs: 'read' }),
  simplicity: 1,
  legacyUnit: 'ops/s',
  hedgeable: false,
  writesSink: false,
  urlCapable: false,
  holdsItemsInMemory: true,
  // MAX_SOCKETS calls at a time per process, as our lanes; each file in one request, as our GET.
  jobOptions: ({ maxSockets, sizeBytes }) => ({
    inFlight: maxSockets,
    blockSizeBytes: Math.max(1, sizeBytes),
    concurrency: 1,
  }),
  sdkSettings: (p) => [
    `  ${p.processes} process(es) x ${p.maxSockets} socket(s) = ${p.processes * p.maxSockets} ` +
      'downloadToBuffer calls in flight',
  ],
  fixtures: setFixtures,
  plan: perFileItems,
} as const satisfies DownloadStrategy;
