// A plain HTTP(S) server as an upload target (--url): what was PUT below the URL is read back with
// GET and compared with what was sent, then removed with DELETE: the run's folder at once where the
// server deletes folders (WebDAV), else file by file. A server that refuses DELETE gets one warning
// and keeps the files; it never fails the run.
import type { Hash } from 'node:crypto';
import { nodeCrypto } from '../startup/lazy.js';
import { contentMd5, FIXTURE_SEED } from '../payload/content.js';
import { log } from '../log/logger.js';
import type { Items } from '../plan/items.js';
import type { WorkItem } from '../plan/items.js';
import { shownUrl, type HttpClient } from '../transport/http-client.js';
import { inLanes } from '../transport/lanes.js';
import { NodeHttpClient } from '../transport/request.js';
import { RequestSigner, type TargetInfo } from './target.js';
import type { Verification } from '../results/record.js';
import type { RemoveOptions, UploadStore } from './blob-store.js';

/** Read-backs and deletions in flight: keeps a local server busy without flooding a remote one. */
const IN_FLIGHT = 32;
/** Answers to DELETE that mean "not here, not ever": no point asking again for every file. */
const REFUSALS = new Set([401, 403, 405, 501]);

export interface UrlStoreOptions {
  /** The run's prefix: everything it PUT is below `<url>/<prefix>/`. */
  prefix: string;
  timeoutMs: number;
  /** The preflight probe's DELETE failed, and why: nothing is deleted. */
  deleteRefused?: string;
}

type UrlInfo = Extract<TargetInfo, { kind: 'url' }>;

/** What a read-back is compared with: the bytes that were sent, and their MD5. */
export interface Expected {
  bytes: Buffer;
  md5: string;
}

/**
 * One file read back with GET: the MD5 of what came back, or why there is none (the GET failed, or
 * the length is not what was sent). The workers read back this way, and so does the store.
 * With `expected`, what comes back is compared with it as it arrives (memcmp, not MD5: hashing is
 * most of a read-back's CPU), and equal bytes have the expected MD5;
 * from the first difference on, the MD5 of what came back is computed, so a mismatch still names it.
 */
export async function readBackMd5(
  client: HttpClient,
  signer: RequestSigner,
  url: URL,
  item: WorkItem,
  timeoutMs: number,
  expected?: Expected,
): Promise<{ md5?: string; error?: string }> {
  let hash: Hash | undefined = expected ? undefined : nodeCrypto().createHash('md5');
  let lengthBytes = 0;
  const r = await client.request({
    url,
    headers: signer.headers('GET', url),
    timeoutMs,
    trace: false,
    expectStatus: [200],
    onData: (chunk) => {
      if (!hash) {
        const want = expected!.bytes.subarray(lengthBytes, lengthBytes + chunk.length);
        if (want.length === chunk.length && want.equals(chunk)) {
          lengthBytes += chunk.length;
          return;
        }
        hash = nodeCrypto().createHash('md5').update(expected!.bytes.subarray(0, lengthBytes));
      }
      hash.update(chunk);
      lengthBytes += chunk.length;
    },
  });
  if (r.error) return { error: `GET ${item.blob}: ${r.error}` };
  if (lengthBytes !== item.lengthBytes)
    return { error: `${item.blob} has ${lengthBytes} bytes, sent ${item.lengthBytes}` };
  return { md5: hash ? hash.digest('base64') : expected!.md5 };
}

export function urlStore(info: UrlInfo, opts: UrlStoreOptions): UploadStore {
  const signer = new RequestSigner({ ...info, folder: true });
  const shown = shownUrl(info.url);
  let refused = opts.deleteRefused;
  let warned = false;
  const warnOnce = (why: string) => {
    if (warned) return;
    warned = true;
    log.warn(
      `DELETE below ${shown} failed (${why}): the run's files stay on the server under ${opts.prefix}/; allow DELETE (nginx: dav_methods PUT DELETE) or pass --keep`,
    );
  };
  if (refused) warnOnce(refused);

  /**
   * Runs `each` over the items in IN_FLIGHT lanes over one keep-alive agent; what it returns besides
   * undefined is kept.
   */
  async function forEach<T>(
    items: Items,
    each: (item: WorkItem, client: HttpClient) => Promise<T | undefined>,
    signal?: AbortSignal,
  ): Promise<T[]> {
    const client = NodeHttpClient.to(new URL(info.url), IN_FLIGHT);
    const kept: T[] = [];
    try {
      await inLanes(items, IN_FLIGHT, async (item) => {
        if (signal?.aborted) return;
        const got = await each(item, client);
        if (got !== undefined) kept.push(got);
      });
      return kept;
    } finally {
      client.close();
    }
  }

  /**
   * A WebDAV server deletes a folder with everything below it in one request (RFC 4918 9.6.1): the
   * run's folder goes at once (one by one, a large set takes seconds). True only when the server
   * said so and the first and last files are then gone; otherwise the files go one by one.
   */
  async function removeFolder(prefix: string, items: Items, signal?: AbortSignal): Promise<boolean> {
    const url = signer.blobUrl(`${prefix}/`);
    const client = NodeHttpClient.to(url, 1);
    try {
      const r = await client.request({
        url,
        method: 'DELETE',
        headers: signer.headers('DELETE', url, { depth: 'infinity' }),
        timeoutMs: opts.timeoutMs,
        trace: false,
        signal,
      });
      if (r.error) return false;
      for (const item of [items.at(0)!, items.at(-1)!]) {
        const file = signer.blobUrl(item.blob);
        const gone = await client.request({
          url: file,
          method: 'HEAD',
          headers: signer.headers('HEAD', file),
          timeoutMs: opts.timeoutMs,
          trace: false,
          expectStatus: [404],
          signal,
        });
        if (gone.error) return false;
      }
      log.verbose(`deleted ${prefix}/ and the ${items.length} file(s) below it with one DELETE`);
      return true;
    } finally {
      client.close();
    }
  }

  return {
    async verify(items): Promise<Verification> {
      const bad = await forEach(items, async (item, client) => {
        const back = await readBackMd5(client, signer, signer.blobUrl(item.blob), item, opts.timeoutMs);
        if (back.error !== undefined) return back.error;
        const expected = contentMd5(FIXTURE_SEED, item.destOffsetBytes, item.lengthBytes);
        return back.md5 === expected
          ? undefined
          : `MD5 MISMATCH for ${item.blob}: got ${back.md5}, expected ${expected}`;
      });
      if (bad.length)
        return {
          verified: false,
          verification: `${bad.length} of ${items.length} file(s) read back wrong; first: ${bad[0]}`,
        };
      return {
        verified: true,
        verification: `${items.length} file(s) read back with GET: length and MD5 match what was sent`,
      };
    },

    async remove(prefix, items, { signal, progress }: RemoveOptions = {}) {
      if (refused || !items.length) return { left: refused ? items.length : 0 };
      progress?.(0, items.length);
      if (await removeFolder(prefix, items, signal)) {
        progress?.(items.length, items.length);
        return { left: 0 };
      }
      let deleted = 0;
      const failed = await forEach(
        items,
        async (item, client) => {
          // A refusal is for every file: the rest are not asked.
          if (refused) return undefined;
          const url = signer.blobUrl(item.blob);
          const r = await client.request({
            url,
            method: 'DELETE',
            headers: signer.headers('DELETE', url),
            timeoutMs: opts.timeoutMs,
            trace: false,
            signal,
          });
          if (signal?.aborted) return undefined;
          if (r.error && REFUSALS.has(r.status)) refused = r.error;
          // Already gone is as good as deleted.
          if (r.error && r.status !== 404) return r;
          deleted++;
          progress?.(deleted, items.length);
          return undefined;
        },
        signal,
      );
      log.verbose(`deleted ${deleted} of ${items.length} file(s) under ${prefix}/`);
      if (failed.length && !signal?.aborted)
        warnOnce(`${items.length - deleted} of ${items.length} not deleted: ${failed[0]!.error}`);
      return { left: items.length - deleted };
    },

    leftBehind(prefix, left) {
      const folder = `${shown.replace(/\/?$/, '/')}${prefix}/`;
      const what = left === undefined ? 'the files' : `${left} file(s)`;
      return `${what} below ${folder}; remove them with: curl -X DELETE -H 'Depth: infinity' ${folder} (WebDAV), or each file with DELETE`;
    },

    async close() {
      if (refused) return;
      // The folders a WebDAV server made for the run's paths (create_full_put_path); other servers
      // may answer 404 or 405, which is fine: the files themselves are gone.
      const url = signer.blobUrl(`${opts.prefix}/`);
      const client = NodeHttpClient.to(url, 1);
      const r = await client.request({
        url,
        method: 'DELETE',
        headers: signer.headers('DELETE', url, { depth: 'infinity' }),
        timeoutMs: opts.timeoutMs,
        trace: false,
      });
      client.close();
      log.verbose(`DELETE ${opts.prefix}/: ${r.error ?? `HTTP ${r.status}`}`);
    },
  };
}
