// Where a run's uploads are checked and removed, after the timed section: a blob container here;
// a plain HTTP(S) server in url-store.ts.
import { nodeCrypto } from '../startup/lazy.js';
import type { BlobBatchClient, ContainerClient } from '@azure/storage-blob';
import pLimit from 'p-limit';
import { contentMd5, FIXTURE_SEED } from '../payload/content.js';
import { log } from '../log/logger.js';
import type { Items } from '../plan/items.js';
import type { WorkItem } from '../plan/items.js';
import type { Verification } from '../results/record.js';

/** How a removal is bounded and followed: its signal stops it (what is left counted); `progress`: how far. */
export interface RemoveOptions {
  signal?: AbortSignal;
  progress?(done: number, total: number): void;
}

/** What a removal left: 0 when all is gone; undefined when it stopped before it knew how much there was. */
export interface Removal {
  left: number | undefined;
}

export interface UploadStore {
  /** Each stored object's length and MD5 equal what was sent (the seed's stream at each item's offset). */
  verify(items: Items): Promise<Verification>;
  /**
   * Deletes what one strategy run uploaded: `items`, all named under `prefix`/; stops when its signal aborts.
   */
  remove(prefix: string, items: Items, opts?: RemoveOptions): Promise<Removal>;
  /**
   * What a removal cut short left, and how to remove it: `3210 blob(s) under …/ in container c; remove them
   * with: …`.
   */
  leftBehind(prefix: string, left: number | undefined): string;
  /** Once, after every strategy run, unless --keep. */
  close?(): Promise<void>;
}

async function md5OfBlob(container: ContainerClient, blob: string): Promise<{ length: number; md5: string }> {
  const res = await container.getBlobClient(blob).download();
  const hash = nodeCrypto().createHash('md5');
  let length = 0;
  for await (const chunk of res.readableStreamBody!) {
    hash.update(chunk as Buffer);
    length += (chunk as Buffer).length;
  }
  return { length, md5: hash.digest('base64') };
}

async function verifyBlobs(container: ContainerClient, items: readonly WorkItem[]): Promise<Verification> {
  const blobs = [...new Set(items.map((i) => i.blob!))];
  if (blobs.length > 1) {
    // Many small blobs: the listing carries the MD5 the service computed on Put Blob.
    const prefix = items[0]!.blob!.slice(0, items[0]!.blob!.lastIndexOf('/') + 1);
    const stored = new Map<string, { length: number; md5?: string }>();
    for await (const b of container.listBlobsFlat({ prefix })) {
      stored.set(b.name, {
        length: b.properties.contentLength ?? -1,
        md5: b.properties.contentMD5 ? Buffer.from(b.properties.contentMD5).toString('base64') : undefined,
      });
    }
    for (const item of items) {
      const s = stored.get(item.blob!);
      const expected = contentMd5(FIXTURE_SEED, item.destOffsetBytes, item.lengthBytes);
      if (!s) return { verified: false, verification: `${item.blob} is missing after upload` };
      if (s.length !== item.lengthBytes)
        return {
          verified: false,
          verification: `${item.blob} has ${s.length} bytes, sent ${item.lengthBytes}`,
        };
      if (s.md5 !== undefined && s.md5 !== expected)
        return { verified: false, verification: `MD5 MISMATCH for ${item.blob}` };
      if (s.md5 === undefined) {
        const got = await md5OfBlob(container, item.blob!);
        if (got.md5 !== expected) return { verified: false, verification: `MD5 MISMATCH for ${item.blob}` };
      }
    }
    return { verified: true, verification: `${items.length} blob(s): length and MD5 match` };
  }
  for (const blob of blobs) {
    const mine = items.filter((i) => i.blob === blob);
    const offset = Math.min(...mine.map((i) => i.destOffsetBytes));
    const length = mine.reduce((s, i) => s + i.lengthBytes, 0);
    const expected = contentMd5(FIXTURE_SEED, offset, length);
    const got = await md5OfBlob(container, blob);
    if (got.length !== length)
      return { verified: false, verification: `${blob} has ${got.length} bytes, sent ${length}` };
    if (got.md5 !== expected)
      return {
        verified: false,
        verification: `MD5 MISMATCH for ${blob}: got ${got.md5}, expected ${expected}`,
      };
  }
  return { verified: true, verification: `${blobs.length} blob(s): length and MD5 match` };
}

/** The most deletions one Blob Batch request may carry. */
const BATCH_SIZE = 256;
const BATCHES_IN_FLIGHT = 4;

function chunks<T>(values: readonly T[], size: number): T[][] {
  return Array.from({ length: Math.ceil(values.length / size) }, (_, i) =>
    values.slice(i * size, (i + 1) * size),
  );
}

/** A container: verified from the listing's Content-MD5 (or a read-back), cleaned by prefix (Blob Batch). */
export function blobStore(container: ContainerClient): UploadStore {
  return {
    // Reached only without the service's own MD5 of each Put Blob (staged blocks): few items.
    verify: (items) => verifyBlobs(container, [...items]),
    remove: (prefix, _items, opts = {}) => removeUnder(container, prefix, opts),
    leftBehind: (prefix, left) => leftInContainer(container, prefix, left),
  };
}

/** Deletes every blob under `prefix`/, listed first: what is left where the signal stopped it. */
async function removeUnder(
  container: ContainerClient,
  prefix: string,
  opts: RemoveOptions,
): Promise<Removal> {
  const { signal, progress } = opts;
  const names: string[] = [];
  try {
    for await (const b of container.listBlobsFlat({ prefix: `${prefix}/`, abortSignal: signal }))
      names.push(b.name);
  } catch (err) {
    if (signal?.aborted) return { left: undefined };
    throw err;
  }
  let deleted = 0;
  const gone = (count: number) => {
    deleted += count;
    progress?.(deleted, names.length);
  };
  progress?.(0, names.length);
  const limit = pLimit(BATCHES_IN_FLIGHT);
  const batch = container.getBlobBatchClient();
  // Blob Batch: up to 256 deletions a request, a few requests at a time; where the service or
  // the credentials refuse a batch, those blobs go one by one.
  const deleting: Deleting = { container, batch, prefix, signal, gone };
  try {
    await Promise.all(chunks(names, BATCH_SIZE).map((group) => limit(() => deleteGroup(deleting, group))));
  } catch (err) {
    if (!signal?.aborted) throw err;
  }
  log.verbose(`deleted ${deleted} of ${names.length} blob(s) under ${prefix}/`);
  return { left: names.length - deleted };
}

/** What deleting a removal's groups shares: where, how, its signal, and whom to tell of blobs gone. */
interface Deleting {
  container: ContainerClient;
  batch: BlobBatchClient;
  prefix: string;
  signal: AbortSignal | undefined;
  gone(count: number): void;
}

/** One group of up to 256 blobs: in one Blob Batch request, or one by one where it is refused. */
async function deleteGroup(
  { container, batch, prefix, signal, gone }: Deleting,
  group: string[],
): Promise<void> {
  if (signal?.aborted) return;
  try {
    const blobs = group.map((n) => container.getBlobClient(n));
    const r = await batch.deleteBlobs(blobs, { deleteSnapshots: 'include', abortSignal: signal });
    if (r.subResponsesFailedCount === 0) return gone(group.length);
  } catch (err) {
    if (signal?.aborted) return;
    log.debug(
      `batch delete under ${prefix}/ refused (${(err as Error).message.split('\n')[0]}): ` +
        'deleting one by one',
    );
  }
  const one = pLimit(32);
  await Promise.all(
    group.map((n) =>
      one(async () => {
        if (signal?.aborted) return;
        const gone404 = (err: { statusCode?: number }) => {
          if (err.statusCode !== 404) throw err;
        };
        await container.deleteBlob(n, { deleteSnapshots: 'include', abortSignal: signal }).catch(gone404);
        gone(1);
      }),
    ),
  );
}

/** What a removal cut short left in a container, and the command that removes it. */
function leftInContainer(container: ContainerClient, prefix: string, left: number | undefined): string {
  // The container's URL without its query (a SAS): az takes it as --source and finds the account in it.
  const url = container.url.replace(/\?.*$/, '');
  const what = left === undefined ? 'the blobs' : `${left} blob(s)`;
  return (
    `${what} under ${prefix}/ in container ${container.containerName}; ` +
    `remove them with: az storage blob delete-batch --source ${url} --pattern '${prefix}/*' ` +
    '(and your credentials)'
  );
}
