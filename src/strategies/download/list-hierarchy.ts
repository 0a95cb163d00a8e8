// List Blobs with delimiter=/ over the same prefixes: what a file browser asks to open the folder
// (the set has no sub-folders, so the same names come back: the difference is the delimiter's cost).
import { listPages } from '../requests.js';
import type { DownloadStrategy } from '../strategy.js';
import { listItems, setFixtures } from '../many-blobs.js';
import { DOWNLOAD_WORKLOADS } from '../../plan/workload.js';

export const listHierarchy = {
  name: 'list-hierarchy',
  description: 'List Blobs pages, delimiter /',
  kind: 'list',
  workload: DOWNLOAD_WORKLOADS.list,
  requests: (i) => ({ count: listPages(i), billedAs: 'list' }),
  simplicity: 0,
  reads: ['pageSize'],
  hedgeable: false,
  writesSink: false,
  urlCapable: false,
  fixtures: setFixtures,
  plan: (input) => listItems(input, '/'),
} as const satisfies DownloadStrategy;
