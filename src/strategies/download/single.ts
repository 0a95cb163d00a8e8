// One GET of the whole blob (also named `url`, as SOURCE_METHOD has it).
import { LARGE_BLOB, type DownloadStrategy } from '../strategy.js';

export const single = {
  name: 'single',
  description: 'one GET of the whole blob',
  aliases: ['url'],
  requests: () => ({ count: 1, billedAs: 'read' }),
  simplicity: 0,
  hedgeable: false,
  writesSink: true,
  kind: 'get',
  urlCapable: true,
  noSdkSettings: 'one GET of the whole blob',
  fixtures: ({ sizeBytes }) => [{ blob: LARGE_BLOB, offsetBytes: 0, lengthBytes: sizeBytes }],
  plan: ({ sizeBytes, urlTarget }) => [
    { index: 0, blob: urlTarget ? undefined : LARGE_BLOB, destOffsetBytes: 0, lengthBytes: sizeBytes },
  ],
} as const satisfies DownloadStrategy;
