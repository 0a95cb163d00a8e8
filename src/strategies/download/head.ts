// Get Blob Properties (HEAD) per blob of the fixture set: metadata round trips, no body. On a plain
// URL a HEAD of each path below it.
import type { DownloadStrategy } from '../strategy.js';
import { perFileItems, setFixtures } from '../many-blobs.js';

export const head: DownloadStrategy = {
  name: 'head',
  description: 'HEAD (Get Blob Properties) per blob',
  kind: 'head',
  workload: 'head',
  urlCapable: true,
  fixtures: setFixtures,
  plan: perFileItems,
};
