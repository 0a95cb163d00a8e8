// The one request contract: what is asked (HttpRequest), what comes back (TracedResult) and the
// client that does it, implemented by our raw pool (raw-client.ts) and by node:http (request.ts).
// Also what both do the same way before a request leaves: credentials in a URL become a header.
import type { IncomingHttpHeaders } from 'node:http';
import type { PhaseDurationsMs } from './phases.js';

export interface TracedResult {
  status: number;
  bytes: number;
  reused: boolean;
  phases: PhaseDurationsMs;
  totalMs: number;
  startEpochMs: number;
  headers: IncomingHttpHeaders;
  error?: string;
}

/**
 * A TracedResult whose headers are read from `from` (a response head, or the last try's result) only
 * when asked for: most answers' never are, and making an object of every header would be most of
 * what reading an answer costs. The raw client's results are these, and the retry layer's extend them.
 */
export class LazyHeadersResult implements TracedResult {
  readonly status: number;
  readonly bytes: number;
  readonly reused: boolean;
  readonly phases: PhaseDurationsMs;
  readonly totalMs: number;
  readonly startEpochMs: number;
  readonly error: string | undefined;
  private readonly from: { readonly headers: IncomingHttpHeaders } | undefined;

  constructor(
    status: number,
    bytes: number,
    reused: boolean,
    phases: PhaseDurationsMs,
    totalMs: number,
    startEpochMs: number,
    error: string | undefined,
    from: { readonly headers: IncomingHttpHeaders } | undefined,
  ) {
    this.status = status;
    this.bytes = bytes;
    this.reused = reused;
    this.phases = phases;
    this.totalMs = totalMs;
    this.startEpochMs = startEpochMs;
    this.error = error;
    this.from = from;
  }

  get headers(): IncomingHttpHeaders {
    return this.from ? this.from.headers : {};
  }
}

export interface HttpRequest {
  url: URL;
  /** Default GET. */
  method?: 'GET' | 'PUT' | 'HEAD' | 'DELETE';
  headers: Record<string, string>;
  /** Sent with its Content-Length. */
  body?: Buffer;
  /**
   * The head on the wire, made before the barrier from the same url, method, headers and body
   * length (raw-client.ts `wireHead`): our raw client sends it as it is instead of making it again for
   * every request; node:http makes its own from the rest.
   */
  head?: Buffer;
  /** The body of an expected answer, chunk by chunk; a returned promise pauses the response. */
  onData?: (chunk: Buffer) => void | Promise<void>;
  /** Statuses whose body goes to onData; any other answer is an error (default: any 2xx). */
  expectStatus?: readonly number[];
  /** A try fails when the socket is idle this long, including a body that stalls. */
  timeoutMs?: number;
  /** False measures only the total: no per-phase listeners (to measure what tracing costs). */
  trace?: boolean;
  /**
   * When the request was issued, if it was held in a queue of the caller's before being created
   * (performance.now() clock): its `wait` starts there.
   */
  queuedAt?: number;
  /** Aborts the request: it ends with CANCELLED_ERROR, never retried. */
  signal?: StopSignal;
  /**
   * Told once the request is written to its socket (connected, not queued): a hedge's clock starts
   * there. An object, not a callback: the hedger passes its per-request object itself, where a
   * callback would be a closure made for every request.
   */
  watch?: SentWatch;
}

export interface SentWatch {
  /** `reused`: on a connection an earlier request used (false: one opened for it). */
  onSent(reused: boolean): void;
}

/**
 * What a request's stop must offer: an AbortSignal has it, and so does a hedge's `Stop`, which
 * costs a fraction of an AbortController (made for every hedged GET).
 */
export interface StopSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** One traced request; never rejects: a failure is a result with `error`. */
export interface HttpClient {
  request(req: HttpRequest): Promise<TracedResult>;
  /**
   * As request(), the result handed to `to.answered`, which may be called before send returns: where
   * the client can, no promise is made (the raw pool: a small PUT's promises, and the closures made
   * for them, would be a good part of its cost). An object, so that a caller passes its own
   * per-request object.
   */
  send(req: HttpRequest, to: Answered): void;
}

/** Where send() hands a request's result. */
export interface Answered {
  answered(result: TracedResult): void;
}

/** The error text of a request ended by its AbortSignal (the engine counts `cancelled` as cut short). */
export const CANCELLED_ERROR = 'cancelled: request aborted';
/** A request the stop reached before any byte of it was sent: nothing to clean up after it. */
export const NOT_SENT_ERROR = 'cancelled: stopped before it was sent';

/** `CODE: message` for a socket or request error (ECONNRESET, ETIMEDOUT, …). */
export function errnoText(err: Error): string {
  return `${(err as NodeJS.ErrnoException).code ?? 'ERROR'}: ${err.message}`;
}

/**
 * The headers as they go on the wire: `user:password@` in the URL is sent as `Authorization: Basic`
 * (unless the caller set one). The request line never carries it (origin-form: path and query
 * only), so the URL itself is not copied: the same `headers` object when the URL has none.
 */
export function withUrlCredentials(url: URL, headers: Record<string, string>): Record<string, string> {
  if (!url.username && !url.password) return headers;
  if (Object.keys(headers).some((k) => k.toLowerCase() === 'authorization')) return headers;
  const credentials = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  return { ...headers, authorization: `Basic ${Buffer.from(credentials).toString('base64')}` };
}

/** A URL fit for a message or a log line: no credentials, no query (a SAS lives there). */
export function shownUrl(url: URL | string): string {
  const shown = new URL(url);
  shown.username = '';
  shown.password = '';
  shown.search = '';
  return shown.toString();
}
