// List Blobs with delimiter=/ over the same prefixes: what a file browser asks to open the folder
// (the set has no sub-folders, so the same names come back: the difference is the delimiter's cost).
import type { DownloadStrategy } from '../strategy.js';
import { listItems, setFixtures } from '../many-blobs.js';

export const listHierarchy: DownloadStrategy = {
  name: 'list-hierarchy',
  description: 'List Blobs pages, delimiter /',
  kind: 'list',
  workload: 'list',
  urlCapable: false,
  fixtures: setFixtures,
  plan: (input) => listItems(input, '/'),
};
