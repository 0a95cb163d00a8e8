// Baseline for blocks: the SDK's uploadData with the same block size, concurrency and
// maxSingleShotSize (the threshold).
import type { UploadStrategy } from '../strategy.js';
import { formatBytes } from '../../vocabulary/sizes.js';
import { largeBlobName } from '../../plan/names.js';
import { putOrBlocks } from '../requests.js';
import { sdkBlockSettings } from '../sdk-settings.js';

export const sdkUpload = {
  name: 'sdk-upload',
  description: 'SDK uploadData (baseline)',
  kind: 'sdk-put',
  // At or below maxSingleShotSize the SDK sends one Put Blob.
  requests: (i) => ({ count: putOrBlocks(i), billedAs: 'write' }),
  simplicity: 1,
  reads: ['concurrency', 'blobSize', 'blockSize'],
  urlCapable: false,
  sdkSettings: (p, objectSizeBytes) => {
    const lines = sdkBlockSettings(p, objectSizeBytes);
    // The value the run passed: 0 stages every blob (the SDK keeps a 0 it is given).
    const single = p.thresholdBytes ?? 0;
    const what = single === 0 ? 'every blob in staged blocks' : formatBytes(single);
    return [...lines, `  maxSingleShotSize: ${single} (${what})`];
  },
  plan: ({ prefix, blobSizeBytes }) => [
    { index: 0, blob: largeBlobName(prefix), destOffsetBytes: 0, lengthBytes: blobSizeBytes },
  ],
} as const satisfies UploadStrategy;
