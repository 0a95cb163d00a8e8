// Baseline for small-files: the SDK's BlockBlobClient.upload per blob, MAX_SOCKETS in flight.
import type { UploadStrategy } from '../upload-strategy.js';
import { smallFiles } from './small-files.js';

export const sdkSmallFiles: UploadStrategy = {
  name: 'sdk-small-files',
  description: 'SDK upload() per small file (baseline)',
  executor: 'sdk-small-files',
  plan: (input) => smallFiles.plan(input),
};
