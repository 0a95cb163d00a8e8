// FILE_COUNT blobs of FILE_SIZE, one whole-blob GET each, over PROCESSES x MAX_SOCKETS; on a plain
// URL the same names as paths below it.
import type { DownloadStrategy } from '../strategy.js';
import { perFileItems, setFixtures } from '../many-blobs.js';

export const smallFilesDownload: DownloadStrategy = {
  name: 'small-files',
  description: 'one GET per small blob',
  kind: 'get',
  workload: 'files',
  urlCapable: true,
  fixtures: setFixtures,
  plan: perFileItems,
};
