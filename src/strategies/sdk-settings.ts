// The SDK's block settings as advice, read off a baseline's measured parameters: what its
// downloadToBuffer and uploadData were given (a block size, or the object over --concurrency).
import { formatBytes } from '../vocabulary/sizes.js';
import type { RunParams } from '../results/schema.js';

export function sdkBlockSettings(p: RunParams, objectSizeBytes: number): string[] {
  const blockSize = p.blockSizeBytes ?? Math.ceil(objectSizeBytes / p.concurrency);
  return [`  blockSize: ${blockSize} (${formatBytes(blockSize)})`, `  concurrency: ${p.concurrency}`];
}
