// Peer and ours alike: one HTTP/1.1 client library in the same loop, to tell what a client is worth
// apart from the harness around it. LANES loops over one pool of CONNECTIONS sockets take the next
// request until all are done: GETs of the whole URL or of RANGES equal ranges (bytes dropped), or
// COUNT PUTs of SIZE bytes below a URL (payloads made before the clock starts). Clients:
//   raw       blob-cacher's own client (dist/transport/raw-client.js: RawPool + rawRequest)
//   node      blob-cacher's node:http path (dist/transport/request.js: createAgent + tracedRequest)
//   undici    undici's Pool.request(), the API its README leads with, body consumed as a stream
//   undici-dispatch  undici's Pool.dispatch() with a bare handler: its fastest path, no streams
// Tracing is off for ours (totals only), as undici has none. Prints one JSON line: {"ms","bytes","requests"}.
//   node bench/peers/client-loop.ts --client raw|node|undici|undici-dispatch --url <url> --connections N
//        (--size-bytes B [--ranges K] | --put --count N --size-bytes B)
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { Pool } from 'undici';
import type * as Raw from '../../dist/transport/raw-client.js';
import type * as Req from '../../dist/transport/request.js';
import type * as Content from '../../dist/payload/content.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const client = arg('client');
const base = arg('url');
const connections = Number(arg('connections'));
const sizeBytes = Number(arg('size-bytes'));
const put = process.argv.includes('--put');
const count = put ? Number(arg('count')) : Number(arg('ranges') ?? 1);
if (
  !client ||
  !['raw', 'node', 'undici', 'undici-dispatch'].includes(client) ||
  !base ||
  !(connections > 0) ||
  !(sizeBytes > 0) ||
  !(count > 0)
) {
  throw new Error(
    'usage: client-loop.ts --client raw|node|undici|undici-dispatch --url <url> --connections N ' +
      '(--size-bytes B [--ranges K] | --put --count N --size-bytes B)',
  );
}
const dist = process.env.BLOB_CACHER_DIST ?? new URL('../../dist', import.meta.url).pathname;
const distImport = <T>(rel: string) => import(pathToFileURL(join(dist, rel)).href) as Promise<T>;

/** Bytes received (GET) or sent (PUT) and the status, per request. */
type Send = (i: number) => Promise<{ status: number; bytes: number }>;

// What each request is, made before the clock starts: ranges for GETs, URLs and payloads for PUTs.
const rangeBytes = Math.ceil(sizeBytes / count);
const rangeOf = (i: number) =>
  count === 1 ? undefined : `bytes=${i * rangeBytes}-${Math.min(sizeBytes, (i + 1) * rangeBytes) - 1}`;
const putUrls = put
  ? Array.from({ length: count }, (_, i) => new URL(`file-${i}`, base.endsWith('/') ? base : `${base}/`))
  : [];
let payloads: Buffer[] = [];
if (put) {
  const { contentBuffer, FIXTURE_SEED } = await distImport<typeof Content>('payload/content.js');
  payloads = Array.from({ length: count }, (_, i) => contentBuffer(FIXTURE_SEED, i * sizeBytes, sizeBytes));
}
const getUrl = new URL(base);
const expected = put ? [201, 204] : count === 1 ? [200] : [206];
const BUFFER_BYTES = 256 * 1024; // blob-cacher's default --buffer-size, for raw and node

let send: Send;
let close: () => Promise<void> | void;
if (client === 'raw') {
  const { RawPool, rawRequest } = await distImport<typeof Raw>('transport/raw-client.js');
  const pool = new RawPool(getUrl, connections, BUFFER_BYTES);
  send = async (i) => {
    let bytes = 0;
    const r = await rawRequest(
      put
        ? {
            url: putUrls[i]!,
            method: 'PUT',
            body: payloads[i],
            headers: { 'content-type': 'application/octet-stream' },
            pool,
            expectStatus: expected,
            trace: false,
          }
        : {
            url: getUrl,
            headers: rangeOf(i) ? { range: rangeOf(i)! } : {},
            pool,
            expectStatus: expected,
            onData: (c) => void (bytes += c.length),
            trace: false,
          },
    );
    return { status: r.error ? 0 : r.status, bytes: put ? sizeBytes : bytes };
  };
  close = () => pool.destroy();
} else if (client === 'node') {
  const { createAgent, tracedRequest } = await distImport<typeof Req>('transport/request.js');
  const agent = createAgent(getUrl, connections);
  send = async (i) => {
    let bytes = 0;
    const r = await tracedRequest(
      put
        ? {
            url: putUrls[i]!,
            method: 'PUT',
            body: payloads[i],
            headers: { 'content-type': 'application/octet-stream' },
            agent,
            expectStatus: expected,
            trace: false,
          }
        : {
            url: getUrl,
            method: 'GET',
            headers: rangeOf(i) ? { range: rangeOf(i)! } : {},
            agent,
            highWaterMark: BUFFER_BYTES,
            expectStatus: expected,
            onData: (c) => void (bytes += c.length),
            trace: false,
          },
    );
    return { status: r.error ? 0 : r.status, bytes: put ? sizeBytes : bytes };
  };
  close = () => agent.destroy();
} else {
  const pool = new Pool(getUrl.origin, { connections, pipelining: 1 });
  const options = (i: number) =>
    put
      ? {
          path: putUrls[i]!.pathname,
          method: 'PUT' as const,
          body: payloads[i],
          headers: { 'content-type': 'application/octet-stream' },
        }
      : { path: getUrl.pathname, method: 'GET' as const, headers: rangeOf(i) ? { range: rangeOf(i)! } : {} };
  send =
    client === 'undici'
      ? async (i) => {
          const res = await pool.request(options(i));
          let bytes = 0;
          for await (const c of res.body) bytes += (c as Buffer).length;
          return { status: res.statusCode, bytes: put ? sizeBytes : bytes };
        }
      : (i) =>
          new Promise((resolve) => {
            let bytes = 0;
            let status = 0;
            pool.dispatch(options(i), {
              onRequestStart: () => {},
              onResponseStart: (_c, code) => void (status = code),
              onResponseData: (_c, chunk) => void (bytes += chunk.length),
              onResponseEnd: () => resolve({ status, bytes: put ? sizeBytes : bytes }),
              onResponseError: () => resolve({ status: 0, bytes }),
            });
          });
  close = () => pool.close();
}

let next = 0;
let failed = 0;
let firstError: number | undefined;
let bytes = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: Math.min(connections, count) }, async () => {
    for (let i = next++; i < count; i = next++) {
      const r = await send(i);
      bytes += r.bytes;
      if (!expected.includes(r.status)) {
        failed++;
        firstError ??= r.status;
      }
    }
  }),
);
const ms = performance.now() - started;
await close();
if (!put && !failed && bytes !== sizeBytes) throw new Error(`got ${bytes} bytes, expected ${sizeBytes}`);
process.stdout.write(`${JSON.stringify({ ms, bytes, requests: count, failed, firstError })}\n`);
