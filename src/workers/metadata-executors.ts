// The many-blob workloads' requests that move no content: List Blobs page by page (each page one
// record: a listing is as fast as its pages), and a HEAD per blob; and the SDK's own calls for both.
// A listing's names are hashed in order (as namesMd5), so the coordinator checks every name without keeping any.
import { createHash } from 'node:crypto';
import type { BlockBlobClient, ContainerClient } from '@azure/storage-blob';
import { log } from '../log/logger.js';
import { listPageUrl, parseListPage } from '../storage/list-blobs.js';
import type { WorkItem } from '../plan/items.js';
import { requestWithRetries, outcomeOf } from '../transport/retry.js';
import { clientOf, timed, toRecord, urlOf, type ExecContext } from './executors.js';
import type { OpRecord, WorkerJob } from './protocol.js';

/** One stream of pages over the item's prefix, each page a request of its own. */
export async function runList(ctx: ExecContext, item: WorkItem, queuedAt?: number): Promise<OpRecord[]> {
  const { job, signer, signal } = ctx;
  if (job.target.kind !== 'blob' || !item.list) throw new Error(`${job.strategy} lists a blob container`);
  const info = job.target;
  const spec = item.list;
  const client = clientOf(ctx);
  const records: OpRecord[] = [];
  const hash = createHash('md5');
  let marker: string | undefined;
  do {
    const url = listPageUrl(info, spec, marker);
    let body: Buffer[] = [];
    let page: ReturnType<typeof parseListPage> | undefined;
    const first = records.length === 0;
    const retried = await requestWithRetries(async (n) => {
      body = [];
      const headers = signer.headers('GET', url);
      // The raw client's chunks are views of its socket buffer: copied.
      const result = await client.request({
        url, headers, timeoutMs: job.timeoutMs, trace: job.trace, expectStatus: [200], signal, onData: (c) => void body.push(Buffer.from(c)),
        queuedAt: n === 0 && first ? queuedAt : undefined,
      });
      if (result.error) return outcomeOf(result);
      try {
        page = parseListPage(Buffer.concat(body).toString('utf8'));
      } catch (err) {
        return { result, error: `LIST_BODY: ${(err as Error).message}`, retryable: true };
      }
      return outcomeOf(result);
    }, { maxRetries: job.maxRetries, label: `${job.strategy} LIST ${spec.prefix} page ${records.length + 1}`, signal, queuedAt: first ? queuedAt : undefined });
    const record = toRecord(job, item, retried, body.reduce((s, b) => s + b.length, 0));
    records.push(record);
    if (retried.error || !page) break;
    for (const name of [...page.names, ...page.prefixes]) hash.update(`${name}\n`);
    record.objects = page.names.length + page.prefixes.length;
    marker = page.nextMarker;
    if (log.isDebugEnabled()) log.debug(`${job.strategy} ${spec.prefix}: page ${records.length}, ${record.objects} name(s)${marker ? '' : ', last'}`);
  } while (marker);
  const last = records.at(-1)!;
  if (!last.error) last.md5 = hash.digest('base64');
  return records;
}

/**
 * The SDK's listBlobsFlat().byPage({ maxPageSize }): each page timed from asking for it to having
 * it (the SDK gives no per-request phases and no body size).
 */
export async function runSdkList(job: WorkerJob, container: ContainerClient, item: WorkItem): Promise<OpRecord[]> {
  const spec = item.list!;
  const pages = container.listBlobsFlat({ prefix: spec.prefix }).byPage({ maxPageSize: spec.pageSize });
  const records: OpRecord[] = [];
  const hash = createHash('md5');
  for (;;) {
    const rec = await timed(item, job.workerIndex, 0, () => pages.next());
    const { value, ...record } = rec;
    const step = value as IteratorResult<{ segment: { blobItems: { name: string }[] } }> | undefined;
    if (!record.error && step?.done) break;
    records.push(record);
    if (record.error || !step) break;
    for (const b of step.value.segment.blobItems) hash.update(`${b.name}\n`);
    record.objects = step.value.segment.blobItems.length;
  }
  const last = records.at(-1);
  if (last && !last.error) last.md5 = hash.digest('base64');
  return records;
}

/** Get Blob Properties (a HEAD): its Content-Length must be the file's; its Content-MD5, where sent, is kept. */
export async function runHead(ctx: ExecContext, item: WorkItem, queuedAt?: number): Promise<OpRecord> {
  const { job, signer, signal } = ctx;
  const client = clientOf(ctx);
  const url = urlOf(ctx, item);
  let md5: string | undefined;
  const retried = await requestWithRetries(async (n) => {
    const result = await client.request({
      url, method: 'HEAD', headers: signer.headers('HEAD', url), timeoutMs: job.timeoutMs, trace: job.trace, expectStatus: [200], signal,
      queuedAt: n === 0 ? queuedAt : undefined,
    });
    if (result.error) return outcomeOf(result);
    const length = Number(result.headers['content-length']);
    if (length !== item.lengthBytes) return { result, error: `CONTENT_LENGTH: ${result.headers['content-length']} where ${item.lengthBytes} was expected`, retryable: false };
    const sent = result.headers['content-md5'];
    md5 = typeof sent === 'string' ? sent : undefined;
    return outcomeOf(result);
  }, { maxRetries: job.maxRetries, label: `${job.strategy} HEAD ${item.blob} #${item.index}`, signal, queuedAt });
  const record = toRecord(job, item, retried, 0);
  if (md5 && !record.error) record.md5 = md5;
  return record;
}

export async function runSdkHead(job: WorkerJob, client: BlockBlobClient, item: WorkItem): Promise<OpRecord> {
  const { value, ...record } = await timed(item, job.workerIndex, 0, () => client.getProperties());
  const props = value as { contentLength?: number; contentMD5?: Uint8Array } | undefined;
  if (record.error || !props) return record;
  if (props.contentLength !== item.lengthBytes) return { ...record, status: 0, error: `CONTENT_LENGTH: ${props.contentLength} where ${item.lengthBytes} was expected` };
  if (props.contentMD5) record.md5 = Buffer.from(props.contentMD5).toString('base64');
  return record;
}
