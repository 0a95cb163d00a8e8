// Misbehaving servers for reliability tests: a plain http object server on 127.0.0.1:0 that can
// reset, stall, throttle, fail or ignore Range on chosen GETs, and logs what it did to each request.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { close, listen } from './http-servers.js';

export { deterministicBuffer } from './http-servers.js';

/** What a faulted GET gets instead of a clean answer. HEAD is never faulted. */
export type Fault =
  /** Headers and `afterBytes` of the body, then the socket is destroyed. */
  | { kind: 'reset'; afterBytes: number }
  /** An error status with an Azure-style XML body; `retryAfter` becomes the Retry-After header. */
  | { kind: 'status'; status: number; code: string; retryAfter?: string }
  /**
   * Headers and `afterBytes` of the body, then nothing: the socket is held open until the client gives up.
   */
  | { kind: 'stall'; afterBytes: number }
  /** 200 with the whole body, whatever the Range header asked for. */
  | { kind: 'ignore-range' };

/** Which fault, if any, the GET numbered `getIndex` (0-based, in arrival order) gets. */
export type FaultPlan = (getIndex: number) => Fault | undefined;

export const firstGets =
  (count: number, fault: Fault): FaultPlan =>
  (n) =>
    n < count ? fault : undefined;
export const everyGet =
  (fault: Fault): FaultPlan =>
  () =>
    fault;
/** GET n gets faults[n]; GETs past the list are served cleanly. */
export const inOrder =
  (...faults: (Fault | undefined)[]): FaultPlan =>
  (n) =>
    faults[n];

export interface FaultLogEntry {
  method: string;
  /** The Range header as sent, or undefined for a whole-object request. */
  range?: string;
  /** The requested span [first, last] (the whole object without a Range header). */
  first: number;
  last: number;
  /** 0-based among GETs; undefined for other methods. */
  getIndex?: number;
  injected: Fault['kind'] | 'none';
  status: number;
  /** Body bytes handed to the socket before the answer ended, broke or stalled. */
  bodyBytesSent: number;
  /** Stalls only: whether the client closed the socket (it gave up) or the server did at shutdown. */
  stallEndedBy?: 'client' | 'server';
  /** Stalls only: how long the socket was held after the last byte was written. */
  stalledMs?: number;
}

export interface FaultServer {
  server: http.Server;
  url: string;
  log: FaultLogEntry[];
  /** The GETs only, in arrival order. */
  gets(): FaultLogEntry[];
  /** Closes the server, dropping any socket still held by a stall. */
  stop(): Promise<void>;
}

function requestedSpan(
  range: string | undefined,
  sizeBytes: number,
): { first: number; last: number } | undefined {
  if (range === undefined) return { first: 0, last: sizeBytes - 1 };
  const m = /^bytes=(\d+)-(\d*)$/.exec(range);
  if (!m) return undefined;
  const first = Number(m[1]);
  const last = m[2] === '' ? sizeBytes - 1 : Math.min(Number(m[2]), sizeBytes - 1);
  return first <= last && first < sizeBytes ? { first, last } : undefined;
}

/**
 * Serves `body` at any path (HEAD with Content-Length; GET whole as 200 or `Range: bytes=a-b` as
 * 206 with Content-Range) and injects `plan(n)` into the n-th GET. Starts listening before it resolves.
 */
export async function startFaultServer(
  body: Buffer,
  plan: FaultPlan = () => undefined,
): Promise<FaultServer> {
  const log: FaultLogEntry[] = [];
  let getCount = 0;
  let stopping = false;
  const server = http.createServer((req, res) => handle(req, res));

  function handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const range = req.headers.range;
    if (req.method === 'HEAD') {
      log.push({
        method: 'HEAD',
        range,
        first: 0,
        last: body.length - 1,
        injected: 'none',
        status: 200,
        bodyBytesSent: 0,
      });
      res.writeHead(200, { 'content-length': body.length, 'accept-ranges': 'bytes' }).end();
      return;
    }
    if (req.method !== 'GET') {
      res.writeHead(405).end();
      return;
    }
    const getIndex = getCount++;
    const fault = plan(getIndex);
    const span = requestedSpan(range, body.length);
    const entry: FaultLogEntry = {
      method: 'GET',
      range,
      first: span?.first ?? -1,
      last: span?.last ?? -1,
      getIndex,
      injected: fault?.kind ?? 'none',
      status: 0,
      bodyBytesSent: 0,
    };
    log.push(entry);

    if (fault?.kind === 'status') {
      const xml = Buffer.from(
        `<?xml version="1.0" ` +
          `encoding="utf-8"?><Error><Code>${fault.code}</Code><Message>injected</Message></Error>`,
      );
      const headers: http.OutgoingHttpHeaders = {
        'content-type': 'application/xml',
        'content-length': xml.length,
      };
      if (fault.retryAfter !== undefined) headers['retry-after'] = fault.retryAfter;
      entry.status = fault.status;
      res.writeHead(fault.status, headers).end(xml);
      return;
    }
    if (fault?.kind === 'ignore-range') {
      entry.status = 200;
      entry.bodyBytesSent = body.length;
      res.writeHead(200, { 'content-length': body.length }).end(body);
      return;
    }
    if (!span) {
      entry.status = 416;
      res.writeHead(416, { 'content-range': `bytes */${body.length}` }).end();
      return;
    }
    const slice = body.subarray(span.first, span.last + 1);
    if (range === undefined) {
      entry.status = 200;
      res.writeHead(200, { 'content-length': slice.length });
    } else {
      entry.status = 206;
      res.writeHead(206, {
        'content-length': slice.length,
        'content-range': `bytes ${span.first}-${span.last}/${body.length}`,
      });
    }
    if (!fault) {
      entry.bodyBytesSent = slice.length;
      res.end(slice);
      return;
    }
    const partial = slice.subarray(0, Math.min(fault.afterBytes, slice.length));
    entry.bodyBytesSent = partial.length;
    // The callback runs once the bytes are in the kernel: a destroy after it cannot drop them, so
    // the client sees exactly `afterBytes` and then the connection ending early.
    res.write(partial, () => {
      if (fault.kind === 'reset') {
        res.socket?.destroy();
        return;
      }
      const stalledAt = performance.now();
      // The server keeps its side half-open while a response is unfinished, so the client's FIN
      // ('end') is the sign it gave up; 'close' alone may wait for stop().
      const ended = () => {
        if (entry.stallEndedBy) return;
        entry.stalledMs = performance.now() - stalledAt;
        entry.stallEndedBy = stopping ? 'server' : 'client';
      };
      res.socket?.once('end', ended).once('close', ended);
    });
  }

  const url = `${await listen(server)}/object.bin`;
  return {
    server,
    url,
    log,
    gets: () => log.filter((e) => e.method === 'GET'),
    // Stalled sockets are held until the client gives up, or until here at the latest.
    stop: () => {
      stopping = true;
      return close(server);
    },
  };
}

/** What a faulted upload request gets instead of reaching the service. */
export type PutFault =
  | { kind: 'status'; status: number; code: string; retryAfter?: string }
  /** The request is read in full, then the connection is closed without an answer. */
  | { kind: 'drop' };

export interface ProxyLogEntry {
  method: string;
  /** Path and query as sent, e.g. /devstoreaccount1/c/blob?comp=block&blockid=... */
  path: string;
  /** 0-based among data PUTs (Put Blob, Put Block); undefined for everything else. */
  putIndex?: number;
  /** 0-based among blob GETs (Get Blob) and among List Blobs GETs; undefined for everything else. */
  getIndex?: number;
  listIndex?: number;
  injected: PutFault['kind'] | 'none';
  /** The status the client got: the injected one, the service's, or 0 for a drop. */
  status: number;
  /** Request body bytes received from the client. */
  bodyBytes: number;
}

export interface FaultProxy {
  /** The upstream endpoint's path (the account) on the proxy's origin. */
  endpoint: string;
  log: ProxyLogEntry[];
  stop(): Promise<void>;
}

/** Put Blob and Put Block carry data; container and block-list requests are passed through untouched. */
function isDataPut(req: http.IncomingMessage): boolean {
  if (req.method !== 'PUT') return false;
  const query = new URL(req.url ?? '/', 'http://x').searchParams;
  return query.get('restype') !== 'container' && query.get('comp') !== 'blocklist';
}

/** A GET of a blob's bytes (no comp or restype), and a List Blobs page. */
const queryOf = (req: http.IncomingMessage) => new URL(req.url ?? '/', 'http://x').searchParams;
const isBlobGet = (req: http.IncomingMessage) =>
  req.method === 'GET' && !queryOf(req).has('comp') && !queryOf(req).has('restype');
const isListGet = (req: http.IncomingMessage) => req.method === 'GET' && queryOf(req).get('comp') === 'list';

/** Downloads: which blob GET (by arrival and path) and which List Blobs page get a fault. */
export interface ReadFaultPlans {
  get?: (getIndex: number, path: string) => PutFault | undefined;
  list?: (listIndex: number) => PutFault | undefined;
}

/**
 * A reverse proxy in front of a real blob service (Azurite) that injects `plan(n)` into the n-th
 * data PUT, and `reads.get` / `reads.list` into blob GETs and List Blobs pages. SharedKey
 * signatures do not cover the host, so signed requests pass through unchanged.
 */
export async function startFaultProxy(
  upstreamEndpoint: string,
  plan: (putIndex: number) => PutFault | undefined,
  reads: ReadFaultPlans = {},
): Promise<FaultProxy> {
  const upstream = new URL(upstreamEndpoint);
  const log: ProxyLogEntry[] = [];
  let putCount = 0;
  let getCount = 0;
  let listCount = 0;
  const agent = new http.Agent({ keepAlive: true });
  const server = http.createServer((req, res) => {
    const putIndex = isDataPut(req) ? putCount++ : undefined;
    const getIndex = isBlobGet(req) ? getCount++ : undefined;
    const listIndex = isListGet(req) ? listCount++ : undefined;
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const fault =
      putIndex !== undefined
        ? plan(putIndex)
        : getIndex !== undefined
          ? reads.get?.(getIndex, path)
          : listIndex !== undefined
            ? reads.list?.(listIndex)
            : undefined;
    const entry: ProxyLogEntry = {
      method: req.method ?? '',
      path: req.url ?? '',
      putIndex,
      getIndex,
      listIndex,
      injected: fault?.kind ?? 'none',
      status: 0,
      bodyBytes: 0,
    };
    log.push(entry);
    req.on('data', (chunk: Buffer) => {
      entry.bodyBytes += chunk.length;
    });
    if (fault) {
      // Read the whole request first, as a service would, so the client is never cut off mid-send.
      req.resume();
      req.once('end', () => {
        if (fault.kind === 'drop') return void res.socket?.destroy();
        const xml = Buffer.from(
          `<?xml version="1.0" ` +
            `encoding="utf-8"?><Error><Code>${fault.code}</Code><Message>injected</Message></Error>`,
        );
        const headers: http.OutgoingHttpHeaders = {
          'content-type': 'application/xml',
          'content-length': xml.length,
        };
        if (fault.retryAfter !== undefined) headers['retry-after'] = fault.retryAfter;
        entry.status = fault.status;
        res.writeHead(fault.status, headers).end(xml);
      });
      return;
    }
    const forward = http.request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: upstream.host },
        agent,
      },
      (answer) => {
        entry.status = answer.statusCode ?? 0;
        res.writeHead(entry.status, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.socket?.destroy());
    req.pipe(forward);
  });
  const origin = await listen(server);
  return {
    endpoint: `${origin}${upstream.pathname}`,
    log,
    stop: async () => {
      await close(server);
      agent.destroy();
    },
  };
}
