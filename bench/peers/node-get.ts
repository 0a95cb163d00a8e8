// Peer: the plainest Node download there is, one http.get of the whole URL, to measure what Node
// itself can do on this machine. Bytes are dropped (optionally MD5-hashed, the work our discard sink
// does) or piped to a file. Prints one JSON line: {"ms", "bytes"}.
//   node bench/peers/node-get.ts <url> [--md5] [--out <path>]
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { pipeline } from 'node:stream/promises';

const [url, ...rest] = process.argv.slice(2);
if (!url) throw new Error('usage: node-get.ts <url> [--md5] [--out <path>]');
const md5 = rest.includes('--md5');
const outAt = rest.indexOf('--out');
const out = outAt >= 0 ? rest[outAt + 1] : undefined;

const started = performance.now();
const res = await new Promise<http.IncomingMessage>((resolve, reject) =>
  http.get(url, resolve).on('error', reject),
);
if (res.statusCode !== 200) throw new Error(`HTTP ${res.statusCode}`);
let bytes = 0;
if (out) {
  res.on('data', (c: Buffer) => (bytes += c.length));
  await pipeline(res, createWriteStream(out));
} else {
  const hash = md5 ? createHash('md5') : undefined;
  res.on('data', (c: Buffer) => {
    bytes += c.length;
    hash?.update(c);
  });
  await new Promise<void>((resolve, reject) => res.on('end', resolve).on('error', reject));
  hash?.digest();
}
process.stdout.write(`${JSON.stringify({ ms: performance.now() - started, bytes })}\n`);
