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
import { formatBytes } from '../vocabulary/sizes.js';
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
  '<?xml version="1.0" encoding="utf-8"?><Error><Code>ServerBusy</Code>' +
  '<Message>Operations per second is over the account limit.</Message></Error>';
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
  const emulation = new Emulation(options);
  return {
    server: emulation.server,
    files: emulation.files,
    log: emulation.log,
    idle: () => emulation.idle(),
  };
}

const emptyLog = (): EmulateLog => ({
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
});

const now = () => performance.now();

/** One emulated target: its objects, its limits and paces, and the server that answers for them. */
class Emulation {
  readonly options: EmulateOptions;
  readonly files: Map<string, Buffer>;
  readonly log = emptyLog();
  readonly server: Http.Server;
  /** The most bytes it holds, and what its objects hold now. */
  private readonly storeBytes: number;
  private heldBytes = 0;
  /**
   * Every wait of a request (a stall, a pace) ends when the server closes: a stalled request must
   * not keep a stopped emulation alive for its stall.
   */
  private readonly closing = new AbortController();
  /** All connections' pace together, and each one's own. */
  private readonly total?: TokenBucket;
  private readonly perConnection = new WeakMap<Socket, TokenBucket>();
  private readonly window?: RequestWindow;
  private readonly stragglers?: StragglerPlan;
  private readonly stallMethods: readonly string[];
  private inFlight = 0;
  private arrivals = 0;
  private readonly idleWaiters: (() => void)[] = [];

  constructor(options: EmulateOptions) {
    this.options = options;
    this.files = new Map(options.objects ?? []);
    this.storeBytes = options.storeBytes ?? Infinity;
    for (const body of this.files.values()) this.heldBytes += body.length;
    const R = options.totalBytesPerSecond;
    this.total = R ? new TokenBucket(R, Math.max(SLICE_BYTES, R / 100), now()) : undefined;
    this.window = options.opsPerSecond
      ? new RequestWindow(options.opsPerSecond, options.opsWindowMs)
      : undefined;
    this.stragglers = options.stragglers
      ? new StragglerPlan(options.stragglers.every, options.stragglers.seed)
      : undefined;
    this.stallMethods = options.stragglers?.methods ?? ['GET'];
    this.server = nodeHttp().createServer((req, res) => this.onRequest(req, res));
    this.server.on('close', () => this.closing.abort());
  }

  /** Resolves once no answer is in progress. */
  idle(): Promise<void> {
    return this.inFlight === 0
      ? Promise.resolve()
      : new Promise<void>((resolve) => this.idleWaiters.push(resolve));
  }

  /** What a PUT to `path` may bring: what is left, and what the object it replaces frees. */
  private roomFor(path: string): number {
    return this.storeBytes - this.heldBytes + (this.files.get(path)?.length ?? 0);
  }

  /** How long the next `bytes` of this connection must wait: the later of its own pace and the shared one. */
  private pace(socket: Socket, bytes: number): number {
    const r = this.options.perConnectionBytesPerSecond;
    let own = 0;
    if (r) {
      let bucket = this.perConnection.get(socket);
      if (!bucket)
        this.perConnection.set(socket, (bucket = new TokenBucket(r, Math.max(SLICE_BYTES, r / 100), now())));
      own = bucket.take(bytes, now());
    }
    return Math.max(own, this.total ? this.total.take(bytes, now()) : 0);
  }

  /** Counts the request and its end, and answers it: throttled, refused, or by its method. */
  private onRequest(req: Http.IncomingMessage, res: Http.ServerResponse): void {
    const { log } = this;
    log.requests++;
    const method = req.method ?? 'GET';
    log.byMethod[method] = (log.byMethod[method] ?? 0) + 1;
    log.maxInFlight = Math.max(log.maxInFlight, ++this.inFlight);
    let finished = false;
    res.on('finish', () => (finished = true));
    res.on('close', () => {
      this.inFlight--;
      if (!finished) log.abandoned++;
      if (this.inFlight === 0) for (const resolve of this.idleWaiters.splice(0)) resolve();
    });
    if (this.window && !this.window.admit(now())) return this.throttle(req, res);
    const stall =
      this.stallMethods.includes(method) && this.stragglers?.stalls(this.arrivals++)
        ? this.options.stragglers!
        : undefined;
    if (stall) log.stalled++;
    const path = pathOf(req.url);
    if (path === undefined) {
      log.badRequests++;
      req.resume();
      res.writeHead(400, { 'content-type': 'text/plain' });
      return void res.end('not a path: percent-encoding must be % and two hex digits, of UTF-8\n');
    }
    void this.answer(req, res, method, path, stall).catch(() => res.destroy());
  }

  /** Past the request rate: 503 ServerBusy, as Azure answers. */
  private throttle(req: Http.IncomingMessage, res: Http.ServerResponse): void {
    this.log.throttled++;
    res.writeHead(503, {
      'content-type': 'application/xml',
      'x-ms-error-code': 'ServerBusy',
      'content-length': Buffer.byteLength(OPS_LIMIT_BODY),
    });
    res.end(OPS_LIMIT_BODY);
    req.resume();
  }

  private async answer(
    req: Http.IncomingMessage,
    res: Http.ServerResponse,
    method: string,
    path: string,
    stall: StragglerOptions | undefined,
  ): Promise<void> {
    if (stall?.at === 'first-byte') await sleep(stall.stallMs, undefined, { signal: this.closing.signal });
    if (method === 'PUT') return this.put(req, res, path);
    req.resume();
    if (method === 'DELETE') return this.delete(res, path);
    if (method !== 'GET' && method !== 'HEAD') return void res.writeHead(405).end();
    return this.get(req, res, method, path, stall);
  }

  private async put(req: Http.IncomingMessage, res: Http.ServerResponse, path: string): Promise<void> {
    const length = req.headers['content-length'];
    const declared = length === undefined ? undefined : Number(length);
    if (declared !== undefined && declared > this.roomFor(path)) {
      return this.refuse(req, res, declared, this.roomFor(path));
    }
    const body = await this.pacedBody(req, this.roomFor(path), declared);
    this.log.bytesIn += body.bytes;
    // Two PUTs at once may each have fit alone: what is stored is checked again at the end.
    if (!body.whole || body.whole.length > this.roomFor(path)) {
      return this.refuse(req, res, body.bytes, this.roomFor(path));
    }
    const existed = this.files.get(path);
    this.heldBytes += body.whole.length - (existed?.length ?? 0);
    this.files.set(path, body.whole);
    res.writeHead(existed ? 204 : 201).end();
  }

  private delete(res: Http.ServerResponse, path: string): void {
    const folder = path.endsWith('/');
    const gone = folder
      ? [...this.files.keys()].filter((p) => p.startsWith(path))
      : this.files.has(path)
        ? [path]
        : [];
    for (const p of gone) {
      this.heldBytes -= this.files.get(p)!.length;
      this.files.delete(p);
    }
    res.writeHead(gone.length || folder ? 204 : 404).end();
  }

  private async get(
    req: Http.IncomingMessage,
    res: Http.ServerResponse,
    method: string,
    path: string,
    stall: StragglerOptions | undefined,
  ): Promise<void> {
    const body = this.files.get(path);
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
    const midStallMs = stall?.at === 'mid-body' ? stall.stallMs : 0;
    await this.pacedWrite(res, body.subarray(first, last + 1), midStallMs);
  }

  /** A PUT body past what it may hold: 413 and the line, the body read and dropped (the connection kept). */
  private refuse(req: Http.IncomingMessage, res: Http.ServerResponse, bytes: number, room: number): void {
    this.log.refused++;
    const line =
      `a PUT of ${formatBytes(bytes)} is more than the ${formatBytes(Math.max(0, room))} ` +
      'the emulated target may still hold in memory; DELETE objects first, ' +
      'or start it with smaller --objects on a machine with more memory';
    this.options.onRefused?.(line);
    req.resume();
    res.writeHead(413, { 'content-type': 'text/plain', 'content-length': Buffer.byteLength(line) + 1 });
    res.end(`${line}\n`);
  }

  /**
   * The body, read no faster than the pace: the socket is paused while its debt is paid. With a
   * Content-Length it lands in one buffer of that size (held once, never a list and then a copy);
   * past `limitBytes` it is read to its end and dropped (`whole` unset).
   */
  private pacedBody(req: Http.IncomingMessage, limit: number, declared?: number): Promise<PutBody> {
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
        const waitMs = this.pace(req.socket, chunk.length);
        if (waitMs > 0) {
          req.pause();
          // A slow pace can mean a long wait: it ends with the server too.
          sleep(waitMs, undefined, { signal: this.closing.signal }).then(
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

  private async pacedWrite(res: Http.ServerResponse, bytes: Buffer, midStallMs: number): Promise<void> {
    const half = midStallMs > 0 ? bytes.length >> 1 : -1;
    for (let at = 0; at < bytes.length && !res.destroyed; ) {
      if (at === half || (half > at && half < at + SLICE_BYTES)) {
        // The slice that crosses the middle is cut there, so the stall falls mid-body.
        if (at < half) {
          await this.send(res, bytes.subarray(at, half));
          at = half;
        }
        await sleep(midStallMs, undefined, { signal: this.closing.signal });
      }
      const slice = bytes.subarray(at, Math.min(bytes.length, at + SLICE_BYTES));
      await this.send(res, slice);
      at += slice.length;
    }
    if (!res.destroyed) res.end();
  }

  private async send(res: Http.ServerResponse, slice: Buffer): Promise<void> {
    const waitMs = this.pace(res.socket!, slice.length);
    if (waitMs > 0) await sleep(waitMs, undefined, { signal: this.closing.signal });
    if (res.destroyed) return;
    this.log.bytesOut += slice.length;
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
