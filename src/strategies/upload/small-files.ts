// FILE_COUNT blobs of FILE_SIZE, one Put Blob each, over PROCESSES x MAX_SOCKETS.
import { FileSet } from '../../plan/items.js';
import type { UploadStrategy } from '../strategy.js';
import { UPLOAD_WORKLOADS } from '../../plan/workload.js';

export const smallFiles = {
  name: 'small-files',
  description: 'one Put Blob per small file',
  kind: 'put',
  workload: UPLOAD_WORKLOADS.files,
  mixKind: 'mix',
  requests: (i) => ({ count: i.fileCount, billedAs: 'write' }),
  simplicity: 0,
  legacyUnit: 'ops/s',
  urlCapable: true,
  // Each file's content is the seed's stream at smallFileOffset: a bounded pool of payloads.
  plan: ({ prefix, fileCount, fileSizeBytes, fileSizes }) =>
    FileSet.of(prefix, fileCount, fileSizeBytes, 'upload', fileSizes),
} as const satisfies UploadStrategy;
