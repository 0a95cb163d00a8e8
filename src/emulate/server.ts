// An emulated storage target with a known optimum: an in-memory plain HTTP server (PUT, GET with
// ranges, HEAD, DELETE) that paces every connection at r bytes/s, caps all of them together at
// R bytes/s, answers 503 ServerBusy with Azure's "over the account limit" body past N requests a
// second, and stalls one request in K for S ms. The best concurrency is then about R / r, and past
// N requests/s a search must meet throttling. An emulation for tests and rehearsals, never a
// measurement of Azure.
import type * as Http from 'node:http';
import { nodeHttp } from '../startup/lazy.js';
import type { Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { formatBytes } from '../config/sizes.js';
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
  /**
   * The most bytes it holds, its objects and every PUT body together (unbounded by default): a PUT
   * past it is answered 413 with a line saying so, and nothing is stored.
   */
  storeBytes?: number;
  /** Told the line of each PUT refused for its size. */
  onRefused?: (line: string) => void;
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
  /** PUTs answered 413: their bodies were more than it may still hold. */
  refused: number;
  /** Requests answered 400: a path that is not a path (bad percent-encoding). */
  badRequests: number;
}

export interface EmulatedTarget {
  url: string;
  files: Map<string, Buffer>;
  log: EmulateLog;
  close(): Promise<void>;
}

/**
 * Azure's answer past an account's request rate (Storage scalability targets; the SDK sees code ServerBusy).
 */
export const OPS_LIMIT_BODY =
  '<?xml version="1.0" encoding="utf-8"?><Error><Code>ServerBusy</Code><Message>Operations per second is over the account limit.</Message></Error>';
/** A slice is paced as one: small enough to keep the pace smooth, large enough to cost little CPU. */
const SLICE_BYTES = 16 * 1024;

export interface EmulatedServer {
  server: Http.Server;
  files: Map<string, Buffer>;
  log: EmulateLog;
  /** Resolves once no answer is in progress: every cut one has closed, and been counted. */
  idle(): Promise<void>;
}

export function emulatedTarget(options: EmulateOptions = {}): EmulatedServer {
  const files = new Map(options.objects ?? []);
  const log: EmulateLog = {
    requests: 0,
    byMethod: {},
    throttled: 0,
    stalled: 0,
    abandoned: 0,
    bytesOut: 0,
    bytesIn: 0,
    maxInFlight: 0,
    refused: 0,
    badRequests: 0,
  };
  const storeBytes = options.storeBytes ?? Infinity;
  let heldBytes = 0;
  for (const body of files.values()) heldBytes += body.length;
  /** What a PUT to `path` may bring: what is left, and what the object it replaces frees. */
  const roomFor = (path: string) => storeBytes - heldBytes + (files.get(path)?.length ?? 0);
  // Every wait of a request (a stall, a pace) ends when the server closes: a stalled request must
  // not keep a stopped emulation alive for its stall.
  const closing = new AbortController();
  const now = () => performance.now();
  const r = options.perConnectionBytesPerSecond;
  const R = options.totalBytesPerSecond;
  const total = R ? new TokenBucket(R, Math.max(SLICE_BYTES, R / 100), now()) : undefined;
  const perConnection = new WeakMap<Socket, TokenBucket>();
  const window = options.opsPerSecond
    ? new RequestWindow(options.opsPerSecond, options.opsWindowMs)
    : undefined;
  const stragglers = options.stragglers
    ? new StragglerPlan(options.stragglers.every, options.stragglers.seed)
    : undefined;
  const stallMethods = options.stragglers?.methods ?? ['GET'];
  let inFlight = 0;
  let arrivals = 0;
  const idleWaiters: (() => void)[] = [];
  const idle = () =>
    inFlight === 0 ? Promise.resolve() : new Promise<void>((resolve) => idleWaiters.push(resolve));

  /** How long the next `bytes` of this connection must wait: the later of its own pace and the shared one. */
  const pace = (socket: Socket, bytes: number): number => {
    let own = 0;
    if (r) {
      let bucket = perConnection.get(socket);
      if (!bucket)
        perConnection.set(socket, (bucket = new TokenBucket(r, Math.max(SLICE_BYTES, r / 100), now())));
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
      if (inFlight === 0) for (const resolve of idleWaiters.splice(0)) resolve();
    });
    if (window && !window.admit(now())) {
      log.throttled++;
      res.writeHead(503, {
        'content-type': 'application/xml',
        'x-ms-error-code': 'ServerBusy',
        'content-length': Buffer.byteLength(OPS_LIMIT_BODY),
      });
      res.end(OPS_LIMIT_BODY);
      req.resume();
      return;
    }
    const stall =
      stallMethods.includes(method) && stragglers?.stalls(arrivals++) ? options.stragglers! : undefined;
    if (stall) log.stalled++;
    const path = pathOf(req.url);
    if (path === undefined) {
      log.badRequests++;
      req.resume();
      res.writeHead(400, { 'content-type': 'text/plain' });
      return void res.end('not a path: percent-encoding must be % and two hex digits, of UTF-8\n');
    }
    void answer(req, res, method, path, stall).catch(() => res.destroy());
  });
  server.on('close', () => closing.abort());

  async function answer(
    req: Http.IncomingMessage,
    res: Http.ServerResponse,
    method: string,
    path: string,
    stall: StragglerOptions | undefined,
  ): Promise<void> {
    if (stall?.at === 'first-byte') await sleep(stall.stallMs, undefined, { signal: closing.signal });
    if (method === 'PUT') {
      const length = req.headers['content-length'];
      const declared = length === undefined ? undefined : Number(length);
      if (declared !== undefined && declared > roomFor(path)) {
        return refuse(req, res, declared, roomFor(path));
      }
      const body = await pacedBody(req, roomFor(path), declared);
      log.bytesIn += body.bytes;
      // Two PUTs at once may each have fit alone: what is stored is checked again at the end.
      if (!body.whole || body.whole.length > roomFor(path)) {
        return refuse(req, res, body.bytes, roomFor(path));
      }
      const existed = files.get(path);
      heldBytes += body.whole.length - (existed?.length ?? 0);
      files.set(path, body.whole);
      res.writeHead(existed ? 204 : 201).end();
      return;
    }
    if (method === 'DELETE') {
      req.resume();
      const folder = path.endsWith('/');
      const gone = folder
        ? [...files.keys()].filter((p) => p.startsWith(path))
        : files.has(path)
          ? [path]
          : [];
      for (const p of gone) {
        heldBytes -= files.get(p)!.length;
        files.delete(p);
      }
      res.writeHead(gone.length || folder ? 204 : 404).end();
      return;
    }
    req.resume();
    const body = files.get(path);
    if (method !== 'GET' && method !== 'HEAD') return void res.writeHead(405).end();
    // A folder is always there, as on a WebDAV server: the preflight asks for it.
    if (!body && path.endsWith('/')) return void res.writeHead(200, { 'content-length': 0 }).end();
    if (!body) return void res.writeHead(404).end();
    const range = rangeOf(req.headers.range, body.length);
    if (range === 'invalid')
      return void res.writeHead(416, { 'content-range': `bytes */${body.length}` }).end();
    const [first, last] = range ?? [0, body.length - 1];
    const headers: Http.OutgoingHttpHeaders = {
      'content-length': last - first + 1,
      'accept-ranges': 'bytes',
    };
    if (range) headers['content-range'] = `bytes ${first}-${last}/${body.length}`;
    res.writeHead(range ? 206 : 200, headers);
    if (method === 'HEAD') return void res.end();
    await pacedWrite(res, body.subarray(first, last + 1), stall?.at === 'mid-body' ? stall.stallMs : 0);
  }

  /** A PUT body past what it may hold: 413 and the line, the body read and dropped (the connection kept). */
  function refuse(req: Http.IncomingMessage, res: Http.ServerResponse, bytes: number, room: number): void {
    log.refused++;
    const line =
      `a PUT of ${formatBytes(bytes)} is more than the ${formatBytes(Math.max(0, room))} ` +
      'the emulated target may still hold in memory; DELETE objects first, ' +
      'or start it with smaller --objects on a machine with more memory';
    options.onRefused?.(line);
    req.resume();
    res.writeHead(413, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(line) + 1 });
    res.end(`${line}\n`);
  }

  /**
   * The body, read no faster than the pace: the socket is paused while its debt is paid. With a
   * Content-Length it lands in one buffer of that size (held once, never a list and then a copy);
   * past `limitBytes` it is read to its end and dropped (`whole` unset).
   */
  function pacedBody(req: Http.IncomingMessage, limit: number, declared?: number): Promise<PutBody> {
    return new Promise((resolve, reject) => {
      const known = declared !== undefined && Number.isSafeInteger(declared);
      const into = known ? Buffer.allocUnsafe(declared) : undefined;
      const chunks: Buffer[] = [];
      let bytes = 0;
      req.on('data', (chunk: Buffer) => {
        if (bytes + chunk.length <= limit) {
          if (into) chunk.copy(into, bytes);
          else chunks.push(chunk);
        } else chunks.length = 0;
        bytes += chunk.length;
        const waitMs = pace(req.socket, chunk.length);
        if (waitMs > 0) {
          req.pause();
          // A slow pace can mean a long wait: it ends with the server too.
          sleep(waitMs, undefined, { signal: closing.signal }).then(
            () => req.resume(),
            () => {},
          );
        }
      });
      req.on('end', () => {
        if (bytes > limit) return resolve({ bytes });
        resolve({ whole: into ? into.subarray(0, bytes) : Buffer.concat(chunks, bytes), bytes });
      });
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
        await sleep(midStallMs, undefined, { signal: closing.signal });
      }
      const slice = bytes.subarray(at, Math.min(bytes.length, at + SLICE_BYTES));
      await send(res, slice);
      at += slice.length;
    }
    if (!res.destroyed) res.end();
  }

  async function send(res: Http.ServerResponse, slice: Buffer): Promise<void> {
    const waitMs = pace(res.socket!, slice.length);
    if (waitMs > 0) await sleep(waitMs, undefined, { signal: closing.signal });
    if (res.destroyed) return;
    log.bytesOut += slice.length;
    if (!res.write(slice))
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
  }

  return { server, files, log, idle };
}

/** A PUT's body as read: `whole` where it was kept (within what may be held), and its length either way. */
interface PutBody {
  whole?: Buffer;
  bytes: number;
}

/** The decoded path of a request target; undefined for one that is not a path (`/%`, `/%zz`, `//`). */
function pathOf(target: string | undefined): string | undefined {
  try {
    return decodeURIComponent(new URL(target ?? '/', 'http://x').pathname);
  } catch {
    return undefined;
  }
}

/**
 * `bytes=a-b`, `bytes=a-` or `bytes=-n` as [first, last]; undefined for none; 'invalid' for one that cannot
 * be served.
 */
function rangeOf(header: string | undefined, length: number): [number, number] | undefined | 'invalid' {
  if (header === undefined) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return 'invalid';
  const [first, last] =
    m[1] === ''
      ? [Math.max(0, length - Number(m[2])), length - 1]
      : [Number(m[1]), m[2] === '' ? length - 1 : Math.min(Number(m[2]), length - 1)];
  return first > last || first >= length ? 'invalid' : [first, last];
}

/** Starts the emulation on `host:port` (port 0: a free one). */
export async function startEmulatedTarget(
  options: EmulateOptions = {},
  host = '127.0.0.1',
  port = 0,
): Promise<EmulatedTarget> {
  const { server, files, log, idle } = emulatedTarget(options);
  // Keep-alive connections outlive a test's client: a close must not wait for them.
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`,
    files,
    log,
    // Every connection is cut at once, a request stalled or paced mid-body too (counted abandoned):
    // a stop must not wait for a stall. Resolves once every cut answer has closed and been counted.
    close: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await Promise.all([closed, idle()]);
    },
  };
}
