// FILE_COUNT blobs of FILE_SIZE, one whole-blob GET each, over PROCESSES x MAX_SOCKETS; on a plain
// URL the same names as paths below it.
import type { DownloadStrategy } from '../strategy.js';
import { perFileItems, setFixtures } from '../many-blobs.js';
import { DOWNLOAD_WORKLOADS } from '../../plan/workload.js';

export const smallFilesDownload = {
  name: 'small-files',
  description: 'one GET per small blob',
  kind: 'get',
  workload: DOWNLOAD_WORKLOADS.files,
  mixKind: 'mix',
  requests: (i) => ({ count: i.fileCount, billedAs: 'read' }),
  simplicity: 0,
  legacyUnit: 'ops/s',
  hedgeable: true,
  writesSink: true,
  urlCapable: true,
  fixtures: setFixtures,
  plan: perFileItems,
} as const satisfies DownloadStrategy;
