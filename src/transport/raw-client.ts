// Our own HTTP/1.1 client, for GETs (downloads) and PUTs (uploads). node:http allocates a fresh
// Buffer for every socket read and runs each through its parser and a stream: on this kind of
// machine it tops out well below curl per process (bench case 7 compares it with this client), and
// for small uploads its per-request objects cost more than the bytes. Here every socket reads into
// one fixed buffer of its own (net/tls `onread`), the response head is parsed once and the body is
// handed to the sink as views of that buffer. A sink that returns a promise pauses the socket until
// it settles, so the buffer is never overwritten while a write still reads it and memory stays at
// one buffer per socket. A request body goes out with its head in one corked write.
//
// The same HttpClient as node:http's (request.ts): a TracedResult with the same phases (wait, dns,
// tcp, tls, send, firstByte, download), the same error texts (answer.ts) and the same keep-alive
// pool semantics (at most maxSockets per worker, FIFO queue, idle sockets reused).
import net from 'node:net';
import type * as Tls from 'node:tls';
import { answerError, ErrorBody, isExpected } from './answer.js';
import {
  CANCELLED_ERROR,
  errnoText,
  LazyHeadersResult,
  NOT_SENT_ERROR,
  withUrlCredentials,
  type Answered,
  type HttpClient,
  type HttpRequest,
  type StopSignal,
  type TracedResult,
} from './http-client.js';
import { ChunkedDecoder, headEnd, MAX_HEAD_BYTES, parseHead, requestHead, type Head } from './http1.js';
import { nodeTls } from '../startup/lazy.js';
import { RequestTracer } from './tracer.js';

export interface RawRequestOptions extends HttpRequest {
  pool: RawPool;
}

/**
 * The request a connection serves now. A method per event, called through the connection, so that
 * a request is one object rather than a dozen closures made for it (each would be garbage by its end).
 */
interface ConnUser {
  /** Bytes read: returns false to pause the socket. */
  read(view: Buffer): boolean;
  /**
   * The socket closed or failed; `clean`: closed by the peer without an error (a body framed by the close).
   */
  gone(error: string, clean: boolean): void;
  /** The socket was idle past the request's timeout (the pool's watchdog). */
  timeout(): void;
  /** Its idle timeout in ms (0: none). */
  readonly timeoutMs: number;
  /** The stop it ends with, and how it ends (a function: a hedge's stop takes it as its listener). */
  readonly signal: StopSignal | undefined;
  readonly cancel: () => void;
  /** The request's last byte was handed to the kernel (or the write failed). */
  written(error: Error | null | undefined): void;
}

/**
 * A request is written whole, at once, and nothing here waits for 'drain'. Above the default 16 KiB,
 * so that a body up to this size does not mark the stream as needing a 'drain', for which Node queued
 * a tick after every such write.
 */
const WRITE_HIGH_WATER_BYTES = 1024 * 1024;

/**
 * A pool's watchdog clock: counts its ticks, so that a connection notes when it last saw life by
 * copying a number.
 */
interface WatchdogClock {
  tick: number;
}

/**
 * How often a pool's watchdog looks, as a share of the shortest timeout in flight: a request idle
 * past its timeout ends within 1 + 2/WATCHDOG_TICKS of it (the tick that saw its last byte may have
 * just begun, and the one that finds it late may come a tick after).
 */
const WATCHDOG_TICKS = 8;

class Conn {
  readonly socket: net.Socket;
  user: ConnUser | undefined;
  closed = false;
  /**
   * net stopped reading (our read callback returned false): a request, or the pool for an idle
   * socket, resumes it. Tracked so that a socket still reading is not resumed: a pause and a resume
   * at every response's end would be two epoll_ctl calls a request.
   */
  paused = false;
  /**
   * The pool's watchdog tick at the last sign of life of the request it serves (sent, or bytes read):
   * a number written, where a socket timeout re-armed a timer at every read and write.
   */
  activeTick = 0;
  /** The write callback of every request on this connection (one function, not one a request). */
  readonly afterWrite = (error?: Error | null) => this.user?.written(error);

  constructor(
    url: URL,
    readBuffer: Buffer,
    clock: WatchdogClock,
    onIdleClose: (c: Conn) => void,
    tlsOptions?: Tls.ConnectionOptions,
  ) {
    const onread = {
      buffer: readBuffer,
      callback: (n: number, buf: Uint8Array): boolean => {
        const user = this.user;
        if (!user) {
          // Bytes on an idle socket: the server broke the framing. Never reuse it.
          this.socket.destroy();
          return false;
        }
        this.activeTick = clock.tick;
        const more = user.read(Buffer.from(buf.buffer, buf.byteOffset, n));
        if (!more) this.paused = true;
        return more;
      },
    };
    const port = Number(url.port) || (url.protocol === 'https:' ? 443 : 80);
    const host = url.hostname.replace(/^\[|\]$/g, '');
    this.socket =
      url.protocol === 'https:'
        ? // tls.connect takes net's onread too (its typings omit it).
          nodeTls().connect({
            ...tlsOptions,
            host,
            port,
            servername: net.isIP(host) ? undefined : host,
            onread,
            ALPNProtocols: ['http/1.1'],
          } as Tls.ConnectionOptions)
        : // net passes its options to the stream (its typings omit the stream's).
          net.connect({
            host,
            port,
            onread,
            writableHighWaterMark: WRITE_HIGH_WATER_BYTES,
          } as net.NetConnectOpts);
    this.socket.setNoDelay(true);
    const gone = (error: string, clean: boolean) => {
      if (this.closed) return;
      this.closed = true;
      const user = this.user;
      this.user = undefined;
      if (user) user.gone(error, clean);
      else onIdleClose(this);
    };
    this.socket.on('error', (err: Error) => gone(errnoText(err), false));
    this.socket.on('close', (hadError: boolean) =>
      gone('ECONNRESET: socket closed before the response ended', !hadError),
    );
    this.socket.on('end', () => this.socket.destroy());
  }

  /** Reads again if net stopped reading. */
  resume(): void {
    if (!this.paused) return;
    this.paused = false;
    this.socket.resume();
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
   * By AbortSignal (a run's stop), the requests waiting for a socket on it: one listener on each
   * signal ends them and every request in flight on it (found through the connections). Adding and
   * removing a listener, or a set entry, for every request would be a good part of a small PUT's cost.
   */
  private readonly waitingOn = new WeakMap<AbortSignal, Set<Cancellable>>();
  /**
   * The signal watched last and its set: every request of a run has the same one (no WeakMap lookup a
   * request).
   */
  private lastSignal: StopSignal | undefined;
  private lastWaiting: Set<Cancellable> | undefined;
  /**
   * Every connection opened (closed ones pruned as new ones come): what a stop and the watchdog look through.
   */
  private conns: Conn[] = [];
  private watchdog: NodeJS.Timeout | undefined;
  private watchdogMs = 0;
  readonly clock: WatchdogClock = { tick: 0 };

  constructor(origin: URL, maxSockets: number, bufferBytes: number, tlsOptions?: Tls.ConnectionOptions) {
    this.origin = origin;
    this.maxSockets = maxSockets;
    this.bufferBytes = bufferBytes;
    this.tlsOptions = tlsOptions;
  }

  request(req: HttpRequest): Promise<TracedResult> {
    return new Promise((resolve) => new Exchange(this, req, { answered: resolve }).start());
  }

  send(req: HttpRequest, to: Answered): void {
    new Exchange(this, req, to).start();
  }

  /**
   * A free connection, or a slot for a new one (undefined), at once when there is one; else a
   * promise of one, which resolves with null once `signal` aborts while it waits (it leaves the
   * queue: a hedge's loser, or a stop, does not hold its caller until some other request frees a
   * socket).
   */
  take(signal?: StopSignal): Conn | undefined | Promise<Conn | undefined | null> {
    const conn = this.idle.shift();
    if (conn) return conn;
    if (this.open < this.maxSockets) {
      this.open++;
      return undefined;
    }
    if (!signal) return new Promise((resolve) => this.waiting.push(resolve));
    return new Promise((resolve) => {
      const take = (c: Conn | undefined) => {
        this.unwatch(signal, leave);
        resolve(c);
      };
      const leave = {
        cancel: () => {
          const at = this.waiting.indexOf(take);
          if (at < 0) return;
          this.waiting.splice(at, 1);
          resolve(null);
        },
      };
      this.waiting.push(take);
      // Through the same watch as a request in flight: one listener on a run's AbortSignal for all.
      this.watch(signal, leave);
    });
  }

  /** As take(), always as a promise. */
  acquire(signal?: StopSignal): Promise<Conn | undefined | null> {
    const got = this.take(signal);
    return got instanceof Promise ? got : Promise.resolve(got);
  }

  /**
   * The set of requests waiting on `signal`, its one listener added the first time: at its abort it
   * ends them, then every request in flight on it.
   */
  private waitingSet(signal: AbortSignal): Set<Cancellable> {
    if (signal === this.lastSignal) return this.lastWaiting!;
    let waiting = this.waitingOn.get(signal);
    if (!waiting) {
      const all = (waiting = new Set());
      this.waitingOn.set(signal, all);
      signal.addEventListener(
        'abort',
        () => {
          for (const a of [...all]) a.cancel();
          all.clear();
          for (const conn of [...this.conns]) if (conn.user?.signal === signal) conn.user.cancel();
        },
        { once: true },
      );
    }
    this.lastSignal = signal;
    this.lastWaiting = waiting;
    return waiting;
  }

  /**
   * Cancels `c` (waiting for a socket) once `signal` aborts, until unwatch(); a hedge's cheap Stop keeps its
   * own listeners.
   */
  watch(signal: StopSignal, c: Cancellable): void {
    if (signal instanceof AbortSignal) this.waitingSet(signal).add(c);
    else signal.addEventListener('abort', c.cancel, { once: true });
  }

  unwatch(signal: StopSignal, c: Cancellable): void {
    if (signal instanceof AbortSignal) this.waitingSet(signal).delete(c);
    else signal.removeEventListener('abort', c.cancel);
  }

  /**
   * A request in flight on `signal` ends when it aborts: an AbortSignal (a run's stop, the same for
   * all its requests) through its one listener, which looks through the connections (nothing added
   * a request); any other stop (a hedge's) through a listener of the request's own.
   */
  watchInFlight(signal: StopSignal, user: ConnUser): void {
    if (signal instanceof AbortSignal) this.waitingSet(signal);
    else signal.addEventListener('abort', user.cancel, { once: true });
  }

  unwatchInFlight(signal: StopSignal, user: ConnUser): void {
    if (!(signal instanceof AbortSignal)) signal.removeEventListener('abort', user.cancel);
  }

  connect(url: URL): Conn {
    const conn = new Conn(
      url,
      Buffer.allocUnsafeSlow(this.bufferBytes),
      this.clock,
      (c) => this.dropIdle(c),
      this.tlsOptions,
    );
    if (this.conns.length >= this.maxSockets) this.conns = this.conns.filter((c) => !c.closed);
    this.conns.push(conn);
    return conn;
  }

  /**
   * Ends a request whose connection saw no life for its timeout: one timer for the pool, where a
   * socket timeout on each connection would be re-armed at every read and write. Runs while requests
   * with a timeout are in flight; a shorter timeout makes it look more often.
   */
  watchTimeout(timeoutMs: number): void {
    const periodMs = Math.max(1, Math.floor(timeoutMs / WATCHDOG_TICKS));
    if (this.watchdog && periodMs >= this.watchdogMs) return;
    clearInterval(this.watchdog);
    this.watchdogMs = periodMs;
    this.watchdog = setInterval(() => this.lookForIdle(), periodMs);
    this.watchdog.unref();
  }

  private lookForIdle(): void {
    const now = ++this.clock.tick;
    let busy = false;
    for (const conn of this.conns) {
      const user = conn.user;
      if (!user || conn.closed || !user.timeoutMs) continue;
      busy = true;
      // Whole ticks idle since the one that saw its last sign of life (which may have just begun).
      if ((now - conn.activeTick - 1) * this.watchdogMs >= user.timeoutMs) user.timeout();
    }
    if (!busy) {
      clearInterval(this.watchdog);
      this.watchdog = undefined;
    }
  }

  /** Gives a connection back: reused by the next waiter, kept idle, or closed (and its slot freed). */
  release(conn: Conn, reusable: boolean): void {
    conn.user = undefined;
    if (!reusable || conn.closed || this.destroyed) {
      conn.closed = true;
      conn.socket.destroy();
      this.freeSlot();
      return;
    }
    // Idle sockets keep reading, so that a server closing one is noticed before it is reused. A
    // request that ends inside a read callback keeps the socket reading; one that paused it (a sink
    // that made it wait) resumes it. Not at once: from inside a read callback that returns false,
    // net would stop reading after us.
    if (conn.paused) {
      queueMicrotask(() => {
        if (!conn.closed && conn.user === undefined) conn.resume();
      });
    }
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
    clearInterval(this.watchdog);
    this.watchdog = undefined;
    for (const c of this.idle.splice(0)) {
      c.closed = true;
      c.socket.destroy();
    }
  }
}

/** One request over `opts.pool`, traced like tracedRequest. Never rejects. */
export function rawRequest(opts: RawRequestOptions): Promise<TracedResult> {
  return opts.pool.request(opts);
}

/**
 * A request's head as our raw client would write it, as bytes: made once, before the barrier, for
 * a request that goes again and again unchanged (HttpRequest.head).
 */
export function wireHead(req: Pick<HttpRequest, 'url' | 'method' | 'headers' | 'body'>): Buffer {
  return Buffer.from(
    requestHead(req.method ?? 'GET', req.url, withUrlCredentials(req.url, req.headers), req.body?.length),
  );
}

/** An empty write, whose callback comes once what was written before it has gone. */
const NOTHING = Buffer.alloc(0);

/** What a pool's watch of a stop ends: a request in flight, or one waiting for a socket. */
interface Cancellable {
  readonly cancel: () => void;
}

/**
 * One request and its answer: an object with a method per event (ConnUser), its state in fields.
 * The flow: a head (made here, or the one the caller made before the barrier), a connection (an
 * idle one at once, else a new one, else a wait), head and body in one corked write, the answer's
 * head parsed, its body delivered, the connection given back.
 */
class Exchange implements ConnUser, Cancellable {
  private readonly pool: RawPool;
  private readonly opts: HttpRequest;
  private readonly tracer: RequestTracer;
  private readonly trace: boolean;
  private readonly method: string;
  private status = 0;
  private bytes = 0;
  private conn!: Conn;
  /** Takes the result, once: the caller's object, not a promise (a promise and its closures a request). */
  private readonly to: Answered;
  private settled = false;
  /** The head's bytes so far, when it spans reads (a copy: the read buffer is reused). */
  private headBuf: Buffer | undefined;
  private parsed: Head | undefined;
  /** Bytes came past the answer's end: the connection is out of step and is never reused. */
  private outOfStep = false;
  /** The answer's status was the expected one: its body goes to onData. */
  private ok = false;
  private left = 0;
  /** The start of an unexpected answer's body, for its error text. */
  private errorBody: ErrorBody | undefined;
  private chunked: ChunkedDecoder | undefined;
  /** The sink's last write, when it returned a promise. */
  private pending: Promise<void> | undefined;
  /**
   * An answer that came before our body was all sent (an early 413 or 401) leaves the connection
   * out of step: the rest of the body would be read as the next request.
   */
  private bodySent: boolean;
  readonly timeoutMs: number;
  readonly signal: StopSignal | undefined;
  /** Ends the request when its signal aborts (the pool's watch calls it). */
  readonly cancel = (): void => this.finish(CANCELLED_ERROR);

  constructor(pool: RawPool, opts: HttpRequest, to: Answered) {
    this.pool = pool;
    this.opts = opts;
    this.to = to;
    this.tracer = new RequestTracer(opts.queuedAt);
    this.trace = opts.trace !== false;
    this.method = opts.method ?? 'GET';
    this.bodySent = !opts.body;
    this.timeoutMs = opts.timeoutMs ?? 0;
    this.signal = opts.signal;
  }

  private result(error?: string): TracedResult {
    const tracer = this.tracer;
    tracer.mark('end');
    const phases = tracer.phases();
    const totalMs = tracer.totalMs();
    return new LazyHeadersResult(
      this.status,
      this.bytes,
      tracer.reused,
      phases,
      totalMs,
      tracer.startEpochMs,
      error,
      this.parsed,
    );
  }

  start(): void {
    const opts = this.opts;
    let head: string | Buffer;
    if (opts.head) head = opts.head;
    else {
      try {
        head = requestHead(
          this.method,
          opts.url,
          withUrlCredentials(opts.url, opts.headers),
          opts.body?.length,
        );
      } catch (err) {
        return this.to.answered(this.result(`ERR_INVALID_HEADER: ${(err as Error).message}`));
      }
    }
    if (opts.signal?.aborted) return this.to.answered(this.result(NOT_SENT_ERROR));
    const got = this.pool.take(opts.signal);
    if (got instanceof Promise) void got.then((c) => this.onConn(c, head));
    else this.onConn(got, head);
  }

  /** A connection (or a slot for a new one) is ours, or null: the wait was ended by the signal. */
  private onConn(got: Conn | undefined | null, head: string | Buffer): void {
    const { pool, opts, tracer } = this;
    const signal = opts.signal;
    // A kept-alive socket the server closed while it was being handed over: its slot is free again.
    if (got?.closed) {
      pool.release(got, false);
      const next = pool.take(signal);
      if (next instanceof Promise) void next.then((c) => this.onConn(c, head));
      else this.onConn(next, head);
      return;
    }
    if (got === null) return this.to.answered(this.result(NOT_SENT_ERROR));
    // Aborted while it waited for a socket: the socket goes to the next in line.
    if (signal?.aborted) {
      if (got) pool.release(got, true);
      else pool.freeSlot();
      return this.to.answered(this.result(NOT_SENT_ERROR));
    }
    if (this.trace) tracer.mark('socket');
    let conn: Conn;
    if (got) {
      tracer.reused = true;
      conn = got;
    } else {
      try {
        conn = pool.connect(opts.url);
      } catch (err) {
        pool.freeSlot();
        return this.to.answered(this.result(errnoText(err as Error)));
      }
      if (this.trace) {
        const socket = conn.socket;
        socket.once('lookup', () => tracer.mark('lookup'));
        socket.once('connect', () => tracer.mark('connect'));
        socket.once('secureConnect', () => tracer.mark('secure'));
      }
    }
    this.conn = conn;
    this.send(conn, head, !got);
  }

  private send(c: Conn, head: string | Buffer, fresh: boolean): void {
    const opts = this.opts;
    c.user = this;
    c.activeTick = this.pool.clock.tick;
    if (opts.signal) this.pool.watchInFlight(opts.signal, this);
    if (this.timeoutMs) this.pool.watchTimeout(this.timeoutMs);
    const socket = c.socket;
    if (opts.body) {
      // Head and body leave in one writev.
      socket.cork();
      socket.write(head);
      socket.write(opts.body);
      socket.uncork();
    } else {
      socket.write(head);
    }
    // 'sent' when the last byte is handed to the kernel. Written without a callback, as Node then
    // queues no tick to call one: most often the kernel takes it all at once, and that is now.
    // Otherwise (a socket still connecting, a full send buffer) an empty write's callback says when
    // the rest has gone.
    if (socket.writableLength === 0 && !socket.destroyed) this.written(null);
    else socket.write(NOTHING, c.afterWrite);
    // A socket paused at the end of its previous response (our read callback returned false) reads again.
    if (fresh) c.socket.resume();
    else c.resume();
  }

  written(err: Error | null | undefined): void {
    if (err) return;
    this.bodySent = true;
    this.conn.activeTick = this.pool.clock.tick;
    if (this.trace) this.tracer.mark('sent');
    this.opts.watch?.onSent(this.tracer.reused);
  }

  private finish(error?: string, reusable = false): void {
    if (this.settled) return;
    this.settled = true;
    if (this.opts.signal) this.pool.unwatchInFlight(this.opts.signal, this);
    // An error status whose body ended in step may keep its socket; a broken one never does.
    this.pool.release(this.conn, reusable && this.bodySent);
    this.to.answered(this.result(error));
  }

  gone(error: string, clean: boolean): void {
    // A body without Content-Length or chunking ends when the server closes the connection.
    if (clean && this.parsed?.length === -2) this.bodyEnded();
    else this.finish(error);
  }

  timeout(): void {
    const ms = this.opts.timeoutMs;
    this.conn.socket.destroy(Object.assign(new Error(`no data for ${ms} ms`), { code: 'ETIMEDOUT' }));
  }

  /**
   * The answer's body ended: returns whether the socket reads on (false pauses it). It does when the
   * request finished here and gave its connection back for reuse: an idle socket reads, so that a
   * close is seen.
   */
  private bodyEnded(): boolean {
    const h = this.parsed!;
    const keepAlive = h.keepAlive && !this.outOfStep;
    if (!this.ok) {
      this.finish(
        answerError({
          status: h.status,
          headers: h.headers,
          body: this.errorBody?.text(),
          expectStatus: this.opts.expectStatus,
        }),
        keepAlive,
      );
    } else if (this.pending) {
      const done = () => this.finish(undefined, keepAlive);
      void this.pending.then(done, () => {});
      return false;
    } else {
      this.finish(undefined, keepAlive);
    }
    return !this.conn.closed;
  }

  /** Body bytes; false when the sink asked to wait (the socket is paused until it settles). */
  private deliver(chunk: Buffer): boolean {
    this.bytes += chunk.length;
    if (!this.ok) {
      (this.errorBody ??= new ErrorBody()).add(chunk);
      return true;
    }
    let p: void | Promise<void>;
    try {
      p = this.opts.onData?.(chunk);
    } catch (err) {
      this.finish(`sink: ${(err as Error).message}`);
      return false;
    }
    if (!p) return true;
    const c = this.conn;
    this.pending = p.then(
      () => {
        this.pending = undefined;
        if (!this.settled && !c.closed) c.resume();
      },
      (err: Error) => this.finish(`sink: ${err.message}`),
    );
    return false;
  }

  private onBody(view: Buffer): boolean {
    const h = this.parsed!;
    if (h.length === -1) {
      const chunked = this.chunked!;
      let keepReading = true;
      const used = chunked.feed(view, (data) => {
        // Within one read, several chunks may arrive: only the last deliver() may pause.
        keepReading = this.deliver(data) && keepReading;
      });
      if (chunked.error) {
        this.finish(chunked.error);
        return false;
      }
      if (chunked.done) {
        if (used < view.length) this.outOfStep = true;
        return this.bodyEnded() && keepReading;
      }
      return keepReading;
    }
    if (h.length === -2) return this.deliver(view);
    const take = Math.min(this.left, view.length);
    this.left -= take;
    const keepReading = take > 0 ? this.deliver(take === view.length ? view : view.subarray(0, take)) : true;
    if (this.left === 0) {
      // Bytes past the declared length: the connection is out of step; never reuse it.
      if (take < view.length) this.outOfStep = true;
      return this.bodyEnded() && keepReading;
    }
    return keepReading;
  }

  private startBody(h: Head, rest: Buffer): boolean {
    this.parsed = h;
    this.status = h.status;
    this.ok = isExpected(h.status, this.opts.expectStatus);
    if (this.trace) this.tracer.mark('response');
    this.left = h.length;
    if (h.length === -1) this.chunked = new ChunkedDecoder();
    if (h.length === 0) {
      if (rest.length) this.outOfStep = true;
      return this.bodyEnded();
    }
    return rest.length ? this.onBody(rest) : true;
  }

  read(view: Buffer): boolean {
    if (this.settled) return false;
    if (this.parsed) return this.onBody(view);
    // The head may span reads: keep a copy (the read buffer is reused) until its end is seen.
    const prev = this.headBuf;
    const searchFrom = prev ? Math.max(0, prev.length - 3) : 0;
    const buf = prev ? Buffer.concat([prev, view]) : view;
    const end = headEnd(buf, searchFrom);
    if (end < 0) {
      if (buf.length > MAX_HEAD_BYTES) {
        this.finish('HPE_HEADER_OVERFLOW: response head larger than 64 KiB');
        return false;
      }
      this.headBuf = buf === view ? Buffer.from(view) : buf;
      return true;
    }
    const h = parseHead(buf.toString('latin1', 0, end), this.method === 'HEAD');
    const rest = buf.subarray(end + 4);
    this.headBuf = undefined;
    if (typeof h === 'string') {
      this.finish(h);
      return false;
    }
    // Interim answers (100 Continue) are skipped; the real head follows.
    if (h.status >= 100 && h.status < 200) {
      return rest.length ? this.read(rest) : true;
    }
    return this.startBody(h, rest);
  }
}
