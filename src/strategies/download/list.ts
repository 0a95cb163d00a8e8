// List Blobs over the fixture set, flat: --page-size names a page, pages one after another (each
// needs the last one's NextMarker); disjoint prefixes of the set in parallel over the lanes.
import { listPages } from '../requests.js';
import type { DownloadStrategy } from '../strategy.js';
import { listItems, setFixtures } from '../many-blobs.js';
import { DOWNLOAD_WORKLOADS } from '../../plan/workload.js';

export const list = {
  name: 'list',
  description: 'List Blobs pages, flat',
  kind: 'list',
  workload: DOWNLOAD_WORKLOADS.list,
  requests: (i) => ({ count: listPages(i), billedAs: 'list' }),
  simplicity: 0,
  reads: ['pageSize'],
  hedgeable: false,
  writesSink: false,
  urlCapable: false,
  fixtures: setFixtures,
  plan: (input) => listItems(input),
} as const satisfies DownloadStrategy;
