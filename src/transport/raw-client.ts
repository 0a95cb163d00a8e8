// Our own HTTP/1.1 client, for GETs (downloads) and PUTs (uploads). node:http allocates a fresh
// Buffer for every socket read and runs each through its parser and a stream: on this kind of
// machine it tops out near 1 GB/s per process where curl does 3, and for small uploads its
// per-request objects cost more than the bytes. Here every socket reads into one fixed buffer of its
// own (net/tls `onread`), the response head is parsed once and the body is handed to the sink as
// views of that buffer. A sink that returns a promise pauses the socket until it settles, so the
// buffer is never overwritten while a write still reads it and memory stays at one buffer per
// socket. A request body goes out with its head in one corked write.
//
// The same HttpClient as node:http's (request.ts): a TracedResult with the same phases (wait, dns,
// tcp, tls, send, firstByte, download), the same error texts (answer.ts) and the same keep-alive
// pool semantics (at most maxSockets per worker, FIFO queue, idle sockets reused).
import type { IncomingHttpHeaders } from 'node:http';
import net from 'node:net';
import type * as Tls from 'node:tls';
import { answerError, ErrorBody, isExpected } from './answer.js';
import { CANCELLED_ERROR, errnoText, NOT_SENT_ERROR, withUrlCredentials, type HttpClient, type HttpRequest, type StopSignal, type TracedResult } from './http-client.js';
import { ChunkedDecoder, CRLF2, MAX_HEAD_BYTES, parseHead, requestHead, type Head } from './http1.js';
import { nodeTls } from './node-http.js';
import { RequestTracer } from './tracer.js';

export interface RawRequestOptions extends HttpRequest {
  pool: RawPool;
}

/** What a connection is doing with the bytes it reads: returns false to pause the socket. */
type Reader = (view: Buffer) => boolean;

class Conn {
  readonly socket: net.Socket;
  reader: Reader | undefined;
  closed = false;
  /**
   * Set when the socket closes or fails: tells the request in flight, if any. `clean`: closed by the
   * peer without an error (the end of a body framed by the connection's close).
   */
  onGone: ((error: string, clean: boolean) => void) | undefined;
  /** The request in flight's idle timeout. */
  onTimeout: (() => void) | undefined;

  constructor(url: URL, readBuffer: Buffer, onIdleClose: (c: Conn) => void, tlsOptions?: Tls.ConnectionOptions) {
    const onread = {
      buffer: readBuffer,
      callback: (n: number, buf: Uint8Array): boolean => {
        const reader = this.reader;
        if (!reader) {
          // Bytes on an idle socket: the server broke the framing. Never reuse it.
          this.socket.destroy();
          return false;
        }
        return reader(Buffer.from(buf.buffer, buf.byteOffset, n));
      },
    };
    const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    this.socket = url.protocol === 'https:'
      // tls.connect takes net's onread too (its typings omit it).
      ? nodeTls().connect({ ...tlsOptions, host, port, servername: net.isIP(host) ? undefined : host, onread, ALPNProtocols: ['http/1.1'] } as Tls.ConnectionOptions)
      : net.connect({ host, port, onread });
    this.socket.setNoDelay(true);
    const gone = (error: string, clean: boolean) => {
      if (this.closed) return;
      this.closed = true;
      const notify = this.onGone;
      this.onGone = undefined;
      if (notify) notify(error, clean);
      else onIdleClose(this);
    };
    this.socket.on('error', (err: Error) => gone(errnoText(err), false));
    this.socket.on('close', (hadError: boolean) => gone('ECONNRESET: socket closed before the response ended', !hadError));
    this.socket.on('end', () => this.socket.destroy());
    this.socket.on('timeout', () => this.onTimeout?.());
  }
}

/**
 * The keep-alive pool of one worker for one origin: at most maxSockets connections; requests beyond
 * that wait in FIFO order (the `wait` phase) for one to be released.
 */
export class RawPool implements HttpClient {
  private readonly idle: Conn[] = [];
  private readonly waiting: ((c: Conn | undefined) => void)[] = [];
  private open = 0;
  private destroyed = false;
  readonly origin: URL;
  readonly maxSockets: number;
  readonly bufferBytes: number;
  /** Extra options for https connections (e.g. a private CA). */
  private readonly tlsOptions?: Tls.ConnectionOptions;
  /**
   * The aborts of the requests in flight, by AbortSignal: one listener on each signal (a run's
   * stop), which ends them all. Adding and removing a listener on an AbortSignal for every request
   * was the costliest JavaScript of a small PUT after parsing the answer's head (~1.5 µs).
   */
  private readonly inFlight = new WeakMap<AbortSignal, Set<() => void>>();

  constructor(origin: URL, maxSockets: number, bufferBytes: number, tlsOptions?: Tls.ConnectionOptions) {
    this.origin = origin;
    this.maxSockets = maxSockets;
    this.bufferBytes = bufferBytes;
    this.tlsOptions = tlsOptions;
  }

  request(req: HttpRequest): Promise<TracedResult> {
    return exchange(this, req);
  }

  /**
   * A free connection, or a slot for a new one (undefined): resolves when one is available, or with
   * null once `signal` aborts while it waits (it leaves the queue: a hedge's loser, or a stop, does
   * not hold its caller until some other request frees a socket).
   */
  acquire(signal?: StopSignal): Promise<Conn | undefined | null> {
    const conn = this.idle.shift();
    if (conn) return Promise.resolve(conn);
    if (this.open < this.maxSockets) {
      this.open++;
      return Promise.resolve(undefined);
    }
    if (!signal) return new Promise((resolve) => this.waiting.push(resolve));
    return new Promise((resolve) => {
      const take = (c: Conn | undefined) => {
        this.unwatch(signal, leave);
        resolve(c);
      };
      const leave = () => {
        const at = this.waiting.indexOf(take);
        if (at < 0) return;
        this.waiting.splice(at, 1);
        resolve(null);
      };
      this.waiting.push(take);
      // Through the same watch as a request in flight: one listener on a run's AbortSignal for all.
      this.watch(signal, leave);
    });
  }

  /** Calls `abort` once `signal` aborts, until unwatch(); a hedge's cheap Stop keeps its own listeners. */
  watch(signal: StopSignal, abort: () => void): void {
    if (!(signal instanceof AbortSignal)) return signal.addEventListener('abort', abort, { once: true });
    let aborts = this.inFlight.get(signal);
    if (!aborts) {
      const all = (aborts = new Set());
      this.inFlight.set(signal, all);
      signal.addEventListener('abort', () => {
        for (const a of [...all]) a();
        all.clear();
      }, { once: true });
    }
    aborts.add(abort);
  }

  unwatch(signal: StopSignal, abort: () => void): void {
    if (signal instanceof AbortSignal) this.inFlight.get(signal)?.delete(abort);
    else signal.removeEventListener('abort', abort);
  }

  connect(url: URL): Conn {
    return new Conn(url, Buffer.allocUnsafeSlow(this.bufferBytes), (c) => this.dropIdle(c), this.tlsOptions);
  }

  /** Gives a connection back: reused by the next waiter, kept idle, or closed (and its slot freed). */
  release(conn: Conn, reusable: boolean): void {
    conn.reader = undefined;
    conn.onGone = undefined;
    conn.onTimeout = undefined;
    if (!reusable || conn.closed || this.destroyed) {
      conn.closed = true;
      conn.socket.destroy();
      this.freeSlot();
      return;
    }
    conn.socket.setTimeout(0);
    // Idle sockets keep reading, so that a server closing one is noticed before it is reused. Not at
    // once: called from inside a read callback that returns false, net would stop reading after us.
    queueMicrotask(() => {
      if (!conn.closed && conn.reader === undefined) conn.socket.resume();
    });
    const next = this.waiting.shift();
    if (next) next(conn);
    else this.idle.push(conn);
  }

  /** A slot whose connection never came to be (or was closed). */
  freeSlot(): void {
    const next = this.waiting.shift();
    if (next) next(undefined);
    else this.open--;
  }

  private dropIdle(conn: Conn): void {
    const i = this.idle.indexOf(conn);
    if (i >= 0) {
      this.idle.splice(i, 1);
      this.open--;
    }
  }

  destroy(): void {
    this.destroyed = true;
    for (const c of this.idle.splice(0)) {
      c.closed = true;
      c.socket.destroy();
    }
  }
}

/** One request over `opts.pool`, traced like tracedRequest. Never rejects. */
export function rawRequest(opts: RawRequestOptions): Promise<TracedResult> {
  return exchange(opts.pool, opts);
}

async function exchange(pool: RawPool, opts: HttpRequest): Promise<TracedResult> {
  const tracer = new RequestTracer(opts.queuedAt);
  const trace = opts.trace !== false;
  let status = 0;
  let headers: IncomingHttpHeaders = {};
  let bytes = 0;
  const result = (error?: string): TracedResult => {
    tracer.mark('end');
    const { phases, totalMs } = tracer.phases();
    return { status, bytes, reused: tracer.reused, phases, totalMs, startEpochMs: tracer.startEpochMs, headers, error };
  };

  const method = opts.method ?? 'GET';
  let head: string;
  try {
    head = requestHead(method, opts.url, withUrlCredentials(opts.url, opts.headers), opts.body?.length);
  } catch (err) {
    return result(`ERR_INVALID_HEADER: ${(err as Error).message}`);
  }
  const signal = opts.signal;
  if (signal?.aborted) return result(NOT_SENT_ERROR);
  let conn = await pool.acquire(signal);
  // A kept-alive socket the server closed while it was being handed over: its slot is free again.
  while (conn?.closed) {
    pool.release(conn, false);
    conn = await pool.acquire(signal);
  }
  if (conn === null) return result(NOT_SENT_ERROR);
  // Aborted while it waited for a socket: the socket goes to the next in line.
  if (signal?.aborted) {
    if (conn) pool.release(conn, true);
    else pool.freeSlot();
    return result(NOT_SENT_ERROR);
  }
  if (trace) tracer.mark('socket');
  if (conn) {
    tracer.reused = true;
  } else {
    try {
      conn = pool.connect(opts.url);
    } catch (err) {
      pool.freeSlot();
      return result(errnoText(err as Error));
    }
    if (trace) {
      const socket = conn.socket;
      socket.once('lookup', () => tracer.mark('lookup'));
      socket.once('connect', () => tracer.mark('connect'));
      socket.once('secureConnect', () => tracer.mark('secure'));
    }
  }
  const c = conn;

  return new Promise<TracedResult>((resolve) => {
    let settled = false;
    let headBuf: Buffer | undefined;
    let parsed: Head | undefined;
    let ok = false;
    let left = 0;
    const errorBody = new ErrorBody();
    let chunked: ChunkedDecoder | undefined;
    let pending: Promise<void> | undefined;

    // An answer that came before our body was all sent (an early 413 or 401) leaves the connection
    // out of step: the rest of the body would be read as the next request.
    let bodySent = !opts.body;
    const finish = (error?: string, reusable = false) => {
      if (settled) return;
      settled = true;
      if (signal) pool.unwatch(signal, abort);
      // An error status whose body ended in step may keep its socket; a broken one never does.
      pool.release(c, reusable && bodySent);
      resolve(result(error));
    };
    const abort = () => finish(CANCELLED_ERROR);
    if (signal) pool.watch(signal, abort);
    c.onGone = (error, clean) => {
      // A body without Content-Length or chunking ends when the server closes the connection.
      if (clean && parsed?.length === -2) bodyEnded();
      else finish(error);
    };
    if (opts.timeoutMs) {
      c.onTimeout = () => c.socket.destroy(Object.assign(new Error(`no data for ${opts.timeoutMs} ms`), { code: 'ETIMEDOUT' }));
      c.socket.setTimeout(opts.timeoutMs);
    }

    const bodyEnded = () => {
      const h = parsed!;
      if (!ok) return finish(answerError({ status: h.status, headers: h.headers, body: errorBody.text(), expectStatus: opts.expectStatus }), h.keepAlive);
      const done = () => finish(undefined, h.keepAlive);
      if (pending) void pending.then(done, () => {});
      else done();
    };

    /** Body bytes; false when the sink asked to wait (the socket is paused until it settles). */
    const deliver = (chunk: Buffer): boolean => {
      bytes += chunk.length;
      if (!ok) {
        errorBody.add(chunk);
        return true;
      }
      let p: void | Promise<void>;
      try {
        p = opts.onData?.(chunk);
      } catch (err) {
        finish(`sink: ${(err as Error).message}`);
        return false;
      }
      if (!p) return true;
      pending = p.then(
        () => {
          pending = undefined;
          if (!settled && !c.closed) c.socket.resume();
        },
        (err: Error) => finish(`sink: ${err.message}`),
      );
      return false;
    };

    const onBody = (view: Buffer): boolean => {
      const h = parsed!;
      if (h.length === -1) {
        let keepReading = true;
        const used = chunked!.feed(view, (data) => {
          // Within one read, several chunks may arrive: only the last deliver() may pause.
          keepReading = deliver(data) && keepReading;
        });
        if (chunked!.error) {
          finish(chunked!.error);
          return false;
        }
        if (chunked!.done) {
          if (used < view.length) parsed = { ...h, keepAlive: false };
          bodyEnded();
          return false;
        }
        return keepReading;
      }
      if (h.length === -2) return deliver(view);
      const take = Math.min(left, view.length);
      left -= take;
      const keepReading = take > 0 ? deliver(take === view.length ? view : view.subarray(0, take)) : true;
      if (left === 0) {
        // Bytes past the declared length: the connection is out of step; never reuse it.
        if (take < view.length) parsed = { ...h, keepAlive: false };
        bodyEnded();
        return false;
      }
      return keepReading;
    };

    const startBody = (h: Head, rest: Buffer): boolean => {
      parsed = h;
      status = h.status;
      headers = h.headers;
      ok = isExpected(h.status, opts.expectStatus);
      if (trace) tracer.mark('response');
      left = h.length;
      if (h.length === -1) chunked = new ChunkedDecoder();
      if (h.length === 0) {
        if (rest.length) parsed = { ...h, keepAlive: false };
        bodyEnded();
        return false;
      }
      return rest.length ? onBody(rest) : true;
    };

    c.reader = (view) => {
      if (settled) return false;
      if (parsed) return onBody(view);
      // The head may span reads: keep a copy (the read buffer is reused) until its end is seen.
      const searchFrom = headBuf ? Math.max(0, headBuf.length - 3) : 0;
      headBuf = headBuf ? Buffer.concat([headBuf, view]) : view;
      const end = headBuf.indexOf(CRLF2, searchFrom);
      if (end < 0) {
        if (headBuf.length > MAX_HEAD_BYTES) {
          finish('HPE_HEADER_OVERFLOW: response head larger than 64 KiB');
          return false;
        }
        if (headBuf === view) headBuf = Buffer.from(view);
        return true;
      }
      const h = parseHead(headBuf.toString('latin1', 0, end), method === 'HEAD');
      const rest = headBuf.subarray(end + 4);
      headBuf = undefined;
      if (typeof h === 'string') {
        finish(h);
        return false;
      }
      // Interim answers (100 Continue) are skipped; the real head follows.
      if (h.status >= 100 && h.status < 200) {
        return rest.length ? c.reader!(rest) : true;
      }
      return startBody(h, rest);
    };

    const sent = (err?: Error | null) => {
      if (err) return;
      bodySent = true;
      if (trace) tracer.mark('sent');
      opts.watch?.onSent(tracer.reused);
    };
    if (opts.body) {
      // Head and body leave in one writev; 'sent' when the last body byte is handed to the kernel.
      c.socket.cork();
      c.socket.write(head);
      c.socket.write(opts.body, sent);
      c.socket.uncork();
    } else {
      c.socket.write(head, sent);
    }
    // A socket paused at the end of its previous response (onread returned false) reads again.
    c.socket.resume();
  });
}
