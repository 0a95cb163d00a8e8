// Real servers for tests: plain http on 127.0.0.1 port 0, a deterministic body, and a port that
// refuses connections. No mocks of the transport or the storage API.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Starts `server` on 127.0.0.1 with a free port; resolves to its base URL. */
export async function listen(server: http.Server): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Closes `server`, dropping idle keep-alive connections so the close does not wait for them. */
export function close(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** A base URL on which nothing listens: a server's port, taken and given back. */
export async function refusingUrl(): Promise<string> {
  const server = http.createServer();
  const url = await listen(server);
  await close(server);
  return url;
}

/** `sizeBytes` of reproducible, non-repeating-looking content (xorshift32 from `seed`). */
export function deterministicBuffer(sizeBytes: number, seed = 0x9e3779b9): Buffer {
  const out = Buffer.allocUnsafe(sizeBytes);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < sizeBytes; i++) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out[i] = x & 0xff;
  }
  return out;
}

export interface ObjectServerLog {
  /** The Range header of each GET, or undefined for a whole-object GET. */
  getRanges: (string | undefined)[];
  heads: number;
}

/**
 * Serves `body` at any path: HEAD with Content-Length, GET whole (200) or, when `honourRange`,
 * `Range: bytes=a-b` as 206 with Content-Range. A server that does not honour Range always
 * answers 200 with the whole body, as some plain web servers and proxies do.
 */
export function objectServer(
  body: Buffer,
  honourRange: boolean,
): { server: http.Server; log: ObjectServerLog } {
  const log: ObjectServerLog = { getRanges: [], heads: 0 };
  const server = http.createServer((req, res) => {
    if (req.method === 'HEAD') {
      log.heads++;
      res.writeHead(200, { 'content-length': body.length, 'accept-ranges': honourRange ? 'bytes' : 'none' });
      res.end();
      return;
    }
    if (req.method !== 'GET') {
      res.writeHead(405).end();
      return;
    }
    const range = req.headers.range;
    log.getRanges.push(range);
    if (!honourRange || range === undefined) {
      res.writeHead(200, { 'content-length': body.length });
      res.end(body);
      return;
    }
    const m = /^bytes=(\d+)-(\d+)$/.exec(range);
    const first = m ? Number(m[1]) : NaN;
    const last = m ? Math.min(Number(m[2]), body.length - 1) : NaN;
    if (!m || first > last || first >= body.length) {
      res.writeHead(416, { 'content-range': `bytes */${body.length}` }).end();
      return;
    }
    res.writeHead(206, {
      'content-length': last - first + 1,
      'content-range': `bytes ${first}-${last}/${body.length}`,
    });
    res.end(body.subarray(first, last + 1));
  });
  return { server, log };
}

/**
 * Serves `body` slowly (64 KiB every 40 ms; HEAD with Content-Length, GET whole or one range), so a
 * run is still in flight when a test acts on it. `onRange` hears each ranged GET.
 */
export function slowObjectServer(body: Buffer, onRange: () => void = () => {}): http.Server {
  return http.createServer((req, res) => {
    if (req.method === 'HEAD') {
      res.writeHead(200, { 'content-length': body.length, 'accept-ranges': 'bytes' });
      return res.end();
    }
    const m = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? '');
    if (m) onRange();
    const [start, end] = m ? [Number(m[1]), Number(m[2])] : [0, body.length - 1];
    res.writeHead(m ? 206 : 200, {
      'content-length': end - start + 1,
      ...(m ? { 'content-range': `bytes ${start}-${end}/${body.length}` } : {}),
    });
    let at = start;
    const timer = setInterval(() => {
      if (res.destroyed) return clearInterval(timer);
      const next = Math.min(end + 1, at + 64 * 1024);
      res.write(body.subarray(at, next));
      at = next;
      if (at > end) {
        clearInterval(timer);
        res.end();
      }
    }, 40);
  });
}
