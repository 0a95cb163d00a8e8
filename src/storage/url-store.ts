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
import { shownUrl, type HttpClient, type HttpRequest } from '../transport/http-client.js';
import { inLanes } from '../transport/lanes.js';
import { NodeHttpClient } from '../transport/request.js';
import { RequestSigner, type PlainUrlInfo } from './target.js';
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

type UrlInfo = PlainUrlInfo;

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
  return new UrlStore(info, opts);
}

/** Uploads below a plain URL: read back with GET, deleted with DELETE (a WebDAV folder at once). */
class UrlStore implements UploadStore {
  private readonly signer: RequestSigner;
  private readonly shown: string;
  /** Why DELETE is refused (the probe's, or the first file's): nothing more is asked to go. */
  private refused: string | undefined;
  private warned = false;
  private readonly info: UrlInfo;
  private readonly opts: UrlStoreOptions;

  constructor(info: UrlInfo, opts: UrlStoreOptions) {
    this.info = info;
    this.opts = opts;
    this.signer = new RequestSigner({ ...info, folder: true });
    this.shown = shownUrl(info.url);
    this.refused = opts.deleteRefused;
    if (this.refused) this.warnOnce(this.refused);
  }

  private warnOnce(why: string): void {
    if (this.warned) return;
    this.warned = true;
    log.warn(
      `DELETE below ${this.shown} failed (${why}): the run's files stay on the server under ` +
        `${this.opts.prefix}/; allow DELETE (nginx: dav_methods PUT DELETE) or pass --keep`,
    );
  }

  /**
   * Runs `each` over the items in IN_FLIGHT lanes over one keep-alive agent; what it returns besides
   * undefined is kept.
   */
  private async forEach<T>(
    items: Items,
    each: (item: WorkItem, client: HttpClient) => Promise<T | undefined>,
    signal?: AbortSignal,
  ): Promise<T[]> {
    const client = NodeHttpClient.to(new URL(this.info.url), IN_FLIGHT);
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

  /** A request of ours, outside any timing: a DELETE or HEAD after a run (`depth`: a whole folder). */
  private ask(
    client: HttpClient,
    url: URL,
    method: 'DELETE' | 'HEAD',
    more: Pick<HttpRequest, 'signal' | 'expectStatus'> & { depth?: 'infinity' } = {},
  ) {
    const { depth, ...rest } = more;
    return client.request({
      url,
      method,
      headers: this.signer.headers(method, url, depth ? { depth } : {}),
      timeoutMs: this.opts.timeoutMs,
      trace: false,
      ...rest,
    });
  }

  /**
   * A WebDAV server deletes a folder with everything below it in one request (RFC 4918 9.6.1): the
   * run's folder goes at once (one by one, a large set takes seconds). True only when the server
   * said so and the first and last files are then gone; otherwise the files go one by one.
   */
  private async removeFolder(prefix: string, items: Items, signal?: AbortSignal): Promise<boolean> {
    const url = this.signer.blobUrl(`${prefix}/`);
    const client = NodeHttpClient.to(url, 1);
    try {
      const r = await this.ask(client, url, 'DELETE', { depth: 'infinity', signal });
      if (r.error) return false;
      for (const item of [items.at(0)!, items.at(-1)!]) {
        const file = this.signer.blobUrl(item.blob);
        const gone = await this.ask(client, file, 'HEAD', { expectStatus: [404], signal });
        if (gone.error) return false;
      }
      log.verbose(`deleted ${prefix}/ and the ${items.length} file(s) below it with one DELETE`);
      return true;
    } finally {
      client.close();
    }
  }

  async verify(items: Items): Promise<Verification> {
    const { signer } = this;
    const bad = await this.forEach(items, async (item, client) => {
      const back = await readBackMd5(client, signer, signer.blobUrl(item.blob), item, this.opts.timeoutMs);
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
  }

  async remove(prefix: string, items: Items, { signal, progress }: RemoveOptions = {}) {
    if (this.refused || !items.length) return { left: this.refused ? items.length : 0 };
    progress?.(0, items.length);
    if (await this.removeFolder(prefix, items, signal)) {
      progress?.(items.length, items.length);
      return { left: 0 };
    }
    let deleted = 0;
    const failed = await this.forEach(
      items,
      async (item, client) => {
        // A refusal is for every file: the rest are not asked.
        if (this.refused) return undefined;
        const r = await this.ask(client, this.signer.blobUrl(item.blob), 'DELETE', { signal });
        if (signal?.aborted) return undefined;
        if (r.error && REFUSALS.has(r.status)) this.refused = r.error;
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
      this.warnOnce(`${items.length - deleted} of ${items.length} not deleted: ${failed[0]!.error}`);
    return { left: items.length - deleted };
  }

  leftBehind(prefix: string, left?: number): string {
    const folder = `${this.shown.replace(/\/?$/, '/')}${prefix}/`;
    const what = left === undefined ? 'the files' : `${left} file(s)`;
    return (
      `${what} below ${folder}; remove them with: ` +
      `curl -X DELETE -H 'Depth: infinity' ${folder} (WebDAV), or each file with DELETE`
    );
  }

  async close(): Promise<void> {
    if (this.refused) return;
    // The folders a WebDAV server made for the run's paths (create_full_put_path); other servers
    // may answer 404 or 405, which is fine: the files themselves are gone.
    const url = this.signer.blobUrl(`${this.opts.prefix}/`);
    const client = NodeHttpClient.to(url, 1);
    const r = await this.ask(client, url, 'DELETE', { depth: 'infinity' });
    client.close();
    log.verbose(`DELETE ${this.opts.prefix}/: ${r.error ?? `HTTP ${r.status}`}`);
  }
}
