// List Blobs over the fixture set, flat: --page-size names a page, pages one after another (each
// needs the last one's NextMarker); disjoint prefixes of the set in parallel over the lanes.
import type { DownloadStrategy } from '../strategy.js';
import { listItems, setFixtures } from '../many-blobs.js';

export const list: DownloadStrategy = {
  name: 'list',
  description: 'List Blobs pages, flat',
  kind: 'list',
  workload: 'list',
  urlCapable: false,
  fixtures: setFixtures,
  plan: (input) => listItems(input),
};
