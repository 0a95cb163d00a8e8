// One traced HTTP request through node:http over a capped keep-alive agent. The body is handed to
// `onData` chunk by chunk; a promise returned from it pauses the response (backpressure from the sink).
import type * as http from 'node:http';
import { nodeHttp, nodeHttps } from '../startup/lazy.js';
import { answerError, ErrorBody, isExpected } from './answer.js';
import {
  CANCELLED_ERROR,
  errnoText,
  NOT_SENT_ERROR,
  withUrlCredentials,
  type Answered,
  type HttpClient,
  type HttpRequest,
  type TracedResult,
} from './http-client.js';
import { RequestTracer } from './tracer.js';

export interface TracedRequestOptions extends HttpRequest {
  agent: http.Agent;
  highWaterMark?: number;
}

/**
 * `ca`: the certificates (PEM) to trust, in place of Node's defaults, e.g. the embedded target's throwaway
 * one.
 */
export function createAgent(url: URL, maxSockets: number, ca?: string): http.Agent {
  const options: http.AgentOptions = {
    keepAlive: true,
    maxSockets,
    maxFreeSockets: maxSockets,
    scheduling: 'fifo',
  };
  return url.protocol === 'https:'
    ? new (nodeHttps().Agent)({ ...options, ...(ca ? { ca } : {}) })
    : new (nodeHttp().Agent)(options);
}

/** node:http as an HttpClient: every request through one agent (its socket cap and keep-alive). */
export class NodeHttpClient implements HttpClient {
  readonly agent: http.Agent;
  /** Sizes the response stream's reads (--buffer-size). */
  private readonly highWaterMark?: number;

  constructor(agent: http.Agent, highWaterMark?: number) {
    this.agent = agent;
    this.highWaterMark = highWaterMark;
  }

  /** A client with an agent of its own, for `maxSockets` at a time to `url`'s origin; close() it. */
  static to(url: URL, maxSockets: number, ca?: string): NodeHttpClient {
    return new NodeHttpClient(createAgent(url, maxSockets, ca));
  }

  request(req: HttpRequest): Promise<TracedResult> {
    return send(req, this.agent, this.highWaterMark);
  }

  send(req: HttpRequest, to: Answered): void {
    void send(req, this.agent, this.highWaterMark).then((result) => to.answered(result));
  }

  close(): void {
    this.agent.destroy();
  }
}

export function tracedRequest(opts: TracedRequestOptions): Promise<TracedResult> {
  return send(opts, opts.agent, opts.highWaterMark);
}

/** One request's state as its handlers share it: bytes so far, the answer's head, and its one end. */
interface Exchange {
  bytes: number;
  answered: { status: number; headers: http.IncomingHttpHeaders };
  finish(status: number, headers: http.IncomingHttpHeaders, error?: string): void;
}

function send(
  opts: HttpRequest,
  agent: http.Agent,
  highWaterMark: number | undefined,
): Promise<TracedResult> {
  return new Promise((resolve) => {
    const tracer = new RequestTracer(opts.queuedAt);
    const transport = opts.url.protocol === 'https:' ? nodeHttps() : nodeHttp();
    let settled = false;
    const x: Exchange = {
      bytes: 0,
      answered: { status: 0, headers: {} },
      finish(status, headers, error) {
        if (settled) return;
        settled = true;
        opts.signal?.removeEventListener('abort', abort);
        tracer.mark('end');
        const phases = tracer.phases();
        const totalMs = tracer.totalMs();
        resolve({
          status,
          bytes: x.bytes,
          reused: tracer.reused,
          phases,
          totalMs,
          startEpochMs: tracer.startEpochMs,
          headers,
          error,
        });
      },
    };
    if (opts.signal?.aborted) return x.finish(0, {}, NOT_SENT_ERROR);
    const req = transport.request(opts.url, requestOptions(opts, agent, highWaterMark));
    // Finish first: a destroyed response would report ECONNRESET instead. (Hoisted: finish() names it.)
    function abort() {
      x.finish(x.answered.status, x.answered.headers, CANCELLED_ERROR);
      req.destroy();
    }
    opts.signal?.addEventListener('abort', abort, { once: true });
    if (opts.trace !== false) tracer.attach(req);
    if (opts.watch) req.once('finish', () => opts.watch!.onSent(req.reusedSocket));
    req.on('error', (err) => x.finish(0, {}, errnoText(err)));
    if (opts.timeoutMs) {
      req.setTimeout(opts.timeoutMs, () => {
        req.destroy(Object.assign(new Error(`no data for ${opts.timeoutMs} ms`), { code: 'ETIMEDOUT' }));
      });
    }
    req.on('response', (res) => readResponse(res, opts, x));
    req.end(opts.body);
  });
}

function requestOptions(
  opts: HttpRequest,
  agent: http.Agent,
  highWaterMark: number | undefined,
): http.RequestOptions {
  const headers = { ...withUrlCredentials(opts.url, opts.headers) };
  if (opts.body) headers['content-length'] = String(opts.body.length);
  // highWaterMark sizes the response stream's reads; older typings omit it. `auth` unset: the
  // URL's credentials are in `headers` already, made the same way as for our raw client.
  return {
    method: opts.method ?? 'GET',
    headers,
    agent,
    highWaterMark,
    auth: undefined,
  } as http.RequestOptions;
}

/** The answer: its body into the sink (an unexpected status's into its error), then the one end. */
function readResponse(res: http.IncomingMessage, opts: HttpRequest, x: Exchange): void {
  const status = res.statusCode ?? 0;
  x.answered = { status, headers: res.headers };
  const ok = isExpected(status, opts.expectStatus);
  const errorBody = new ErrorBody();
  // The sink's latest pending write: 'end' can come before it settles, and must wait for it.
  let sinking: Promise<void> | undefined;
  res.on('data', (chunk: Buffer) => {
    x.bytes += chunk.length;
    if (!ok) return void errorBody.add(chunk);
    let pending: void | Promise<void>;
    try {
      pending = opts.onData?.(chunk);
    } catch (err) {
      // A sink that throws fails this request; thrown from an event handler it would end the process.
      x.finish(status, res.headers, `sink: ${(err as Error).message}`);
      res.destroy();
      return;
    }
    if (pending) {
      res.pause();
      sinking = pending.then(
        () => void res.resume(),
        (err: Error) => {
          // Finish first: destroy() emits 'aborted' at once, which would report ECONNRESET instead.
          x.finish(status, res.headers, `sink: ${err.message}`);
          res.destroy();
        },
      );
    }
  });
  res.on('end', () => {
    if (!ok) {
      const body = errorBody.text();
      return x.finish(
        status,
        res.headers,
        answerError({ status, headers: res.headers, body, expectStatus: opts.expectStatus }),
      );
    }
    if (sinking) return void sinking.then(() => x.finish(status, res.headers));
    x.finish(status, res.headers);
  });
  res.on('error', (err) => x.finish(status, res.headers, errnoText(err)));
  res.on('aborted', () => x.finish(status, res.headers, 'ECONNRESET: response aborted'));
}
