// sdk-mix: a mix whose operations go through the SDK's kinds (downloadToBuffer, upload,
// getProperties, listBlobsFlat, delete), a baseline of ours; their clients share one agent of the
// job's own, capped at MAX_SOCKETS as our one pool is.
import { mixKind } from './mix.js';
import { sdkAgent } from './sdk-clients.js';
import { kind as sdkDelete } from './sdk-delete.js';
import { kind as sdkGet } from './sdk-get.js';
import { kind as sdkHead } from './sdk-head.js';
import { kind as sdkList } from './sdk-list.js';
import { kind as sdkSmallPut } from './sdk-small-put.js';

export const kind = mixKind(
  'sdk-mix',
  false,
  { get: sdkGet, put: sdkSmallPut, head: sdkHead, list: sdkList, delete: sdkDelete },
  (ctx) => sdkAgent(ctx.job),
);
