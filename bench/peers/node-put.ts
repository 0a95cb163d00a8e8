// Peer: a plain Node PUT loop, SOCKETS lanes over one keep-alive agent, each PUTting the next file
// until COUNT are done. Against nginx (DAV) it is the machine's ceiling; against a blob service it
// signs each request with SharedKey (account in --account, key in BENCH_SHAREDKEY_KEY) using
// blob-cacher's own signer, so it does the same per-request work as ours minus the harness.
// Payloads are made before the clock starts. Prints one JSON line.
//   node bench/peers/node-put.ts --base <url> --count N --size-bytes B --sockets S [--account A]
import http from 'node:http';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import type { signSharedKey as signFn } from '../../dist/storage/sharedkey.js';
import type { contentBuffer as contentFn } from '../../dist/payload/content.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const base = arg('base');
const count = Number(arg('count'));
const sizeBytes = Number(arg('size-bytes'));
const sockets = Number(arg('sockets'));
const account = arg('account');
const dist = process.env.BLOB_CACHER_DIST ?? new URL('../../dist', import.meta.url).pathname;
if (!base || !(count > 0) || !(sizeBytes > 0) || !(sockets > 0))
  throw new Error('usage: node-put.ts --base <url> --count N --size-bytes B --sockets S [--account A]');

const { contentBuffer, FIXTURE_SEED } = (await import(
  pathToFileURL(join(dist, 'payload/content.js')).href
)) as { contentBuffer: typeof contentFn; FIXTURE_SEED: string };
const { signSharedKey } = (await import(pathToFileURL(join(dist, 'storage/sharedkey.js')).href)) as {
  signSharedKey: typeof signFn;
};
const keyBytes = account ? Buffer.from(process.env.BENCH_SHAREDKEY_KEY ?? '', 'base64') : undefined;
const payloads = Array.from({ length: count }, (_, i) =>
  contentBuffer(FIXTURE_SEED, i * sizeBytes, sizeBytes),
);
const agent = new http.Agent({ keepAlive: true, maxSockets: sockets });

function put(i: number): Promise<number> {
  const url = new URL(`${base}/file-${i}`);
  let headers: Record<string, string> = {
    'content-length': String(sizeBytes),
    'content-type': 'application/octet-stream',
  };
  if (account && keyBytes)
    headers = signSharedKey('PUT', url, { ...headers, 'x-ms-blob-type': 'BlockBlob' }, account, keyBytes);
  return new Promise((resolve) => {
    const req = http.request(url, { method: 'PUT', agent, headers }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.end(payloads[i]);
  });
}

let next = 0;
let failed = 0;
let firstError: number | undefined;
const started = performance.now();
await Promise.all(
  Array.from({ length: sockets }, async () => {
    for (let i = next++; i < count; i = next++) {
      const status = await put(i);
      if (status !== 201) {
        failed++;
        firstError ??= status;
      }
    }
  }),
);
const ms = performance.now() - started;
agent.destroy();
process.stdout.write(
  `${JSON.stringify({ ms, bytes: count * sizeBytes, requests: count, failed, firstError })}\n`,
);
