// Baseline for blocks: the SDK's uploadData with the same block size, concurrency and
// maxSingleShotSize (the threshold).
import { type UploadStrategy } from '../upload-strategy.js';
import { largeBlobName } from '../../plan/names.js';

export const sdkUpload: UploadStrategy = {
  name: 'sdk-upload',
  description: 'SDK uploadData (baseline)',
  executor: 'sdk-upload',
  plan: ({ prefix, blobSizeBytes }) => [{ index: 0, blob: largeBlobName(prefix), destOffsetBytes: 0, lengthBytes: blobSizeBytes }],
};
