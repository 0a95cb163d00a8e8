// FILE_COUNT blobs of FILE_SIZE, one Put Blob each (seed 002), over PROCESSES x MAX_SOCKETS.
import { FileSet } from '../../plan/items.js';
import type { UploadStrategy } from '../strategy.js';

export const smallFiles: UploadStrategy = {
  name: 'small-files',
  description: 'one Put Blob per small file',
  kind: 'put',
  workload: 'files',
  urlCapable: true,
  // Each file's content is the seed's stream at smallFileOffset: a bounded pool of payloads.
  plan: ({ prefix, fileCount, fileSizeBytes, fileSizes }) =>
    FileSet.of(prefix, fileCount, fileSizeBytes, 'upload', fileSizes),
};
