// Blob service requests the coordinator makes itself, through the one request path (timeout,
// retries, tracing): Put Block List, which commits an upload's blocks and is part of its duration.
import { COORDINATOR, type OpRecord } from '../metrics/records.js';
import { NodeHttpClient } from '../transport/request.js';
import { outcomeOf, requestWithRetries } from '../transport/retry.js';
import { RequestSigner, type TargetInfo } from './target.js';

export interface BlobRequestOptions {
  /** Per try: the socket may be idle at most this long. */
  timeoutMs: number;
  maxRetries: number;
  /** A stop: aborts the request in flight and the wait before a retry. */
  signal?: AbortSignal;
}

/** The Put Block List body: every block as the latest version of its id, in order. */
export function blockListXml(blockIds: readonly string[]): Buffer {
  return Buffer.from(
    '<?xml version="1.0" encoding="utf-8"?>' +
      `<BlockList>${blockIds.map((id) => `<Latest>${id}</Latest>`).join('')}</BlockList>`,
  );
}

/**
 * Put Block List for `blob`: one record (the coordinator's: no worker, no item), its tries and backoff
 * counted.
 */
export async function commitBlockList(
  info: TargetInfo,
  blob: string,
  blockIds: readonly string[],
  opts: BlobRequestOptions,
): Promise<OpRecord> {
  const signer = new RequestSigner(info);
  const url = signer.blobUrl(blob);
  url.searchParams.set('comp', 'blocklist');
  const body = blockListXml(blockIds);
  const client = NodeHttpClient.to(url, 1, info.kind === 'blob' ? info.ca : undefined);
  try {
    const { headers: _, ...measured } = await requestWithRetries(
      async () => {
        // Signed again for each try: the signature covers x-ms-date.
        const headers = signer.headers('PUT', url, {
          'content-length': String(body.length),
          'content-type': 'application/xml',
        });
        return outcomeOf(
          await client.request({
            url,
            method: 'PUT',
            headers,
            body,
            expectStatus: [201],
            timeoutMs: opts.timeoutMs,
            signal: opts.signal,
          }),
        );
      },
      { maxRetries: opts.maxRetries, label: `Put Block List ${blob}`, signal: opts.signal },
    );
    // The commit sends a list, not the blob's bytes: none are counted.
    return { worker: COORDINATOR, item: COORDINATOR, offsetBytes: 0, ...measured, bytes: 0 };
  } finally {
    client.close();
  }
}
