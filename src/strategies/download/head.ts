// Get Blob Properties (HEAD) per blob of the fixture set: metadata round trips, no body. On a plain
// URL a HEAD of each path below it.
import type { DownloadStrategy } from '../strategy.js';
import { perFileItems, setFixtures } from '../many-blobs.js';
import { DOWNLOAD_WORKLOADS } from '../../plan/workload.js';

export const head = {
  name: 'head',
  description: 'HEAD (Get Blob Properties) per blob',
  kind: 'head',
  workload: DOWNLOAD_WORKLOADS.head,
  requests: (i) => ({ count: i.fileCount, billedAs: 'other' }),
  simplicity: 0,
  hedgeable: false,
  writesSink: false,
  urlCapable: true,
  fixtures: setFixtures,
  plan: perFileItems,
} as const satisfies DownloadStrategy;
