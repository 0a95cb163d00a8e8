// An emulated storage target with a known optimum: an in-memory plain HTTP server (PUT, GET with
// ranges, HEAD, DELETE) that paces every connection at r bytes/s, caps all of them together at
// R bytes/s, answers 503 ServerBusy with Azure's "over the account limit" body past N requests a
// second, and stalls one request in K for S ms. The best concurrency is then about R / r, and past
// N requests/s a search must meet throttling. An emulation for tests and rehearsals, never a
// measurement of Azure.
import type * as Http from 'node:http';
import { nodeHttp } from '../transport/node-http.js';
import type { Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { RequestWindow, StragglerPlan, TokenBucket } from './buckets.js';

export interface StragglerOptions {
  /** One request in this many stalls (1: every one). */
  every: number;
  stallMs: number;
  /** Before the status line (no first byte yet), or halfway through the body. */
  at: 'first-byte' | 'mid-body';
  seed: number;
  /** Which requests may stall; GET by default. */
  methods?: readonly string[];
}

export interface EmulateOptions {
  /** Each connection's pace, request and response bodies alike. */
  perConnectionBytesPerSecond?: number;
  /** All connections together. */
  totalBytesPerSecond?: number;
  /** Requests a second the "account" takes; past it, 503 ServerBusy as Azure answers. */
  opsPerSecond?: number;
  /** The window the request rate is held over (1000 ms, as Azure); shorter throttles a burst at once. */
  opsWindowMs?: number;
  stragglers?: StragglerOptions;
  /** Objects there from the start, by path (e.g. `/data/large.bin`). */
  objects?: ReadonlyMap<string, Buffer>;
}

export interface EmulateLog {
  requests: number;
  byMethod: Record<string, number>;
  /** 503s for the operations limit. */
  throttled: number;
  stalled: number;
  /** Requests whose client went away before their answer was complete (a hedge's loser, a timeout). */
  abandoned: number;
  bytesOut: number;
  bytesIn: number;
  /** The most requests in progress at one moment. */
  maxInFlight: number;
}

export interface EmulatedTarget {
  url: string;
  files: Map<string, Buffer>;
  log: EmulateLog;
  close(): Promise<void>;
}

/** Azure's answer past an account's request rate (Storage scalability targets; the SDK sees code ServerBusy). */
export const OPS_LIMIT_BODY =
  '<?xml version="1.0" encoding="utf-8"?><Error><Code>ServerBusy</Code><Message>Operations per second is over the account limit.</Message></Error>';
/** A slice is paced as one: small enough to keep the pace smooth, large enough to cost little CPU. */
const SLICE_BYTES = 16 * 1024;

export function emulatedTarget(options: EmulateOptions = {}): { server: Http.Server; files: Map<string, Buffer>; log: EmulateLog } {
  const files = new Map(options.objects ?? []);
  const log: EmulateLog = { requests: 0, byMethod: {}, throttled: 0, stalled: 0, abandoned: 0, bytesOut: 0, bytesIn: 0, maxInFlight: 0 };
  const now = () => performance.now();
  const r = options.perConnectionBytesPerSecond;
  const R = options.totalBytesPerSecond;
  const total = R ? new TokenBucket(R, Math.max(SLICE_BYTES, R / 100), now()) : undefined;
  const perConnection = new WeakMap<Socket, TokenBucket>();
  const window = options.opsPerSecond ? new RequestWindow(options.opsPerSecond, options.opsWindowMs) : undefined;
  const stragglers = options.stragglers ? new StragglerPlan(options.stragglers.every, options.stragglers.seed) : undefined;
  const stallMethods = options.stragglers?.methods ?? ['GET'];
  let inFlight = 0;
  let arrivals = 0;

  /** How long the next `bytes` of this connection must wait: the later of its own pace and the shared one. */
  const pace = (socket: Socket, bytes: number): number => {
    let own = 0;
    if (r) {
      let bucket = perConnection.get(socket);
      if (!bucket) perConnection.set(socket, (bucket = new TokenBucket(r, Math.max(SLICE_BYTES, r / 100), now())));
      own = bucket.take(bytes, now());
    }
    return Math.max(own, total ? total.take(bytes, now()) : 0);
  };

  const server = nodeHttp().createServer((req, res) => {
    log.requests++;
    const method = req.method ?? 'GET';
    log.byMethod[method] = (log.byMethod[method] ?? 0) + 1;
    log.maxInFlight = Math.max(log.maxInFlight, ++inFlight);
    let finished = false;
    res.on('finish', () => (finished = true));
    res.on('close', () => {
      inFlight--;
      if (!finished) log.abandoned++;
    });
    if (window && !window.admit(now())) {
      log.throttled++;
      res.writeHead(503, { 'content-type': 'application/xml', 'x-ms-error-code': 'ServerBusy', 'content-length': Buffer.byteLength(OPS_LIMIT_BODY) });
      res.end(OPS_LIMIT_BODY);
      req.resume();
      return;
    }
    const stall = stallMethods.includes(method) && stragglers?.stalls(arrivals++) ? options.stragglers! : undefined;
    if (stall) log.stalled++;
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    void answer(req, res, method, path, stall).catch(() => res.destroy());
  });

  async function answer(req: Http.IncomingMessage, res: Http.ServerResponse, method: string, path: string, stall: StragglerOptions | undefined): Promise<void> {
    if (stall?.at === 'first-byte') await sleep(stall.stallMs);
    if (method === 'PUT') {
      const body = await pacedBody(req);
      log.bytesIn += body.length;
      const existed = files.has(path);
      files.set(path, body);
      res.writeHead(existed ? 204 : 201).end();
      return;
    }
    if (method === 'DELETE') {
      req.resume();
      if (path.endsWith('/')) {
        for (const p of [...files.keys()]) if (p.startsWith(path)) files.delete(p);
        res.writeHead(204).end();
        return;
      }
      res.writeHead(files.delete(path) ? 204 : 404).end();
      return;
    }
    req.resume();
    const body = files.get(path);
    if (method !== 'GET' && method !== 'HEAD') return void res.writeHead(405).end();
    // A folder is always there, as on a WebDAV server: the preflight asks for it.
    if (!body && path.endsWith('/')) return void res.writeHead(200, { 'content-length': 0 }).end();
    if (!body) return void res.writeHead(404).end();
    const range = rangeOf(req.headers.range, body.length);
    if (range === 'invalid') return void res.writeHead(416, { 'content-range': `bytes */${body.length}` }).end();
    const [first, last] = range ?? [0, body.length - 1];
    const headers: Http.OutgoingHttpHeaders = { 'content-length': last - first + 1, 'accept-ranges': 'bytes' };
    if (range) headers['content-range'] = `bytes ${first}-${last}/${body.length}`;
    res.writeHead(range ? 206 : 200, headers);
    if (method === 'HEAD') return void res.end();
    await pacedWrite(res, body.subarray(first, last + 1), stall?.at === 'mid-body' ? stall.stallMs : 0);
  }

  /** The body, read no faster than the pace: the socket is paused while its debt is paid. */
  function pacedBody(req: Http.IncomingMessage): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => {
        chunks.push(chunk);
        const waitMs = pace(req.socket, chunk.length);
        if (waitMs > 0) {
          req.pause();
          setTimeout(() => req.resume(), waitMs);
        }
      });
      req.on('end', () => resolve(Buffer.concat(chunks)));
      req.on('error', reject);
    });
  }

  async function pacedWrite(res: Http.ServerResponse, bytes: Buffer, midStallMs: number): Promise<void> {
    const half = midStallMs > 0 ? bytes.length >> 1 : -1;
    for (let at = 0; at < bytes.length && !res.destroyed; ) {
      if (at === half || (half > at && half < at + SLICE_BYTES)) {
        // The slice that crosses the middle is cut there, so the stall falls mid-body.
        if (at < half) {
          await send(res, bytes.subarray(at, half));
          at = half;
        }
        await sleep(midStallMs);
      }
      const slice = bytes.subarray(at, Math.min(bytes.length, at + SLICE_BYTES));
      await send(res, slice);
      at += slice.length;
    }
    if (!res.destroyed) res.end();
  }

  async function send(res: Http.ServerResponse, slice: Buffer): Promise<void> {
    const waitMs = pace(res.socket!, slice.length);
    if (waitMs > 0) await sleep(waitMs);
    if (res.destroyed) return;
    log.bytesOut += slice.length;
    if (!res.write(slice)) await new Promise<void>((resolve) => {
      const done = () => {
        res.off('drain', done);
        res.off('close', done);
        resolve();
      };
      res.on('drain', done);
      res.on('close', done);
    });
  }

  return { server, files, log };
}

/** `bytes=a-b`, `bytes=a-` or `bytes=-n` as [first, last]; undefined for none; 'invalid' for one that cannot be served. */
function rangeOf(header: string | undefined, length: number): [number, number] | undefined | 'invalid' {
  if (header === undefined) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return 'invalid';
  const [first, last] = m[1] === '' ? [Math.max(0, length - Number(m[2])), length - 1] : [Number(m[1]), m[2] === '' ? length - 1 : Math.min(Number(m[2]), length - 1)];
  return first > last || first >= length ? 'invalid' : [first, last];
}

/** Starts the emulation on `host:port` (port 0: a free one). */
export async function startEmulatedTarget(options: EmulateOptions = {}, host = '127.0.0.1', port = 0): Promise<EmulatedTarget> {
  const { server, files, log } = emulatedTarget(options);
  // Keep-alive connections outlive a test's client: a close must not wait for them.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`, files, log,
    close: () => new Promise((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    }),
  };
}
