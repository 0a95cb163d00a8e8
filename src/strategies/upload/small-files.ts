// FILE_COUNT blobs of FILE_SIZE, one Put Blob each (seed 002), over PROCESSES x MAX_SOCKETS.
import { smallFileName, smallFileOffset, type UploadStrategy } from '../upload-strategy.js';

export const smallFiles: UploadStrategy = {
  name: 'small-files',
  description: 'one Put Blob per small file',
  executor: 'put',
  urlCapable: true,
  plan: ({ prefix, fileCount, fileSizeBytes }) =>
    Array.from({ length: fileCount }, (_, index) => ({
      index,
      blob: smallFileName(prefix, index),
      destOffsetBytes: smallFileOffset(index, fileSizeBytes),
      lengthBytes: fileSizeBytes,
    })),
};
