// Baseline for small-files: the SDK's BlockBlobClient.upload per blob, MAX_SOCKETS in flight.
import type { UploadStrategy } from '../strategy.js';
import { smallFiles } from './small-files.js';
import { UPLOAD_WORKLOADS } from '../../plan/workload.js';

export const sdkSmallFiles = {
  name: 'sdk-small-files',
  description: 'SDK upload() per small file (baseline)',
  kind: 'sdk-small-put',
  workload: UPLOAD_WORKLOADS.files,
  mixKind: 'sdk-mix',
  requests: (i) => ({ count: i.fileCount, billedAs: 'write' }),
  simplicity: 1,
  legacyUnit: 'ops/s',
  urlCapable: false,
  // Its calls go MAX_SOCKETS at a time per process, as our lanes do.
  jobOptions: ({ maxSockets }) => ({ inFlight: maxSockets }),
  sdkSettings: (p) => [
    `  ${p.processes} process(es) x ${p.maxSockets} socket(s) = ${p.processes * p.maxSockets} ` +
      'BlockBlobClient.upload calls in flight',
  ],
  plan: (input) => smallFiles.plan(input),
} as const satisfies UploadStrategy;
