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

function send(
  opts: HttpRequest,
  agent: http.Agent,
  highWaterMark: number | undefined,
): Promise<TracedResult> {
  return new Promise((resolve) => {
    const tracer = new RequestTracer(opts.queuedAt);
    const transport = opts.url.protocol === 'https:' ? nodeHttps() : nodeHttp();
    let bytes = 0;
    let answered: { status: number; headers: http.IncomingHttpHeaders } = { status: 0, headers: {} };
    let settled = false;
    const finish = (status: number, headers: http.IncomingHttpHeaders, error?: string) => {
      if (settled) return;
      settled = true;
      opts.signal?.removeEventListener('abort', abort);
      tracer.mark('end');
      const phases = tracer.phases();
      const totalMs = tracer.totalMs();
      resolve({
        status,
        bytes,
        reused: tracer.reused,
        phases,
        totalMs,
        startEpochMs: tracer.startEpochMs,
        headers,
        error,
      });
    };
    if (opts.signal?.aborted) return finish(0, {}, NOT_SENT_ERROR);
    const headers = { ...withUrlCredentials(opts.url, opts.headers) };
    if (opts.body) headers['content-length'] = String(opts.body.length);
    // highWaterMark sizes the response stream's reads; older typings omit it. `auth` unset: the
    // URL's credentials are in `headers` already, made the same way as for our raw client.
    const requestOptions = {
      method: opts.method ?? 'GET',
      headers,
      agent,
      highWaterMark,
      auth: undefined,
    } as http.RequestOptions;
    const req = transport.request(opts.url, requestOptions);
    // Finish first: a destroyed response would report ECONNRESET instead. (Hoisted: finish() names it.)
    function abort() {
      finish(answered.status, answered.headers, CANCELLED_ERROR);
      req.destroy();
    }
    opts.signal?.addEventListener('abort', abort, { once: true });
    if (opts.trace !== false) tracer.attach(req);
    if (opts.watch) req.once('finish', () => opts.watch!.onSent(req.reusedSocket));
    req.on('error', (err) => finish(0, {}, errnoText(err)));
    if (opts.timeoutMs) {
      req.setTimeout(opts.timeoutMs, () => {
        req.destroy(Object.assign(new Error(`no data for ${opts.timeoutMs} ms`), { code: 'ETIMEDOUT' }));
      });
    }
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      answered = { status, headers: res.headers };
      const ok = isExpected(status, opts.expectStatus);
      const errorBody = new ErrorBody();
      // The sink's latest pending write: 'end' can come before it settles, and must wait for it.
      let sinking: Promise<void> | undefined;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (!ok) return void errorBody.add(chunk);
        let pending: void | Promise<void>;
        try {
          pending = opts.onData?.(chunk);
        } catch (err) {
          // A sink that throws fails this request; thrown from an event handler it would end the process.
          finish(status, res.headers, `sink: ${(err as Error).message}`);
          res.destroy();
          return;
        }
        if (pending) {
          res.pause();
          sinking = pending.then(
            () => void res.resume(),
            (err: Error) => {
              // Finish first: destroy() emits 'aborted' at once, which would report ECONNRESET instead.
              finish(status, res.headers, `sink: ${err.message}`);
              res.destroy();
            },
          );
        }
      });
      res.on('end', () => {
        if (!ok)
          return finish(
            status,
            res.headers,
            answerError({
              status,
              headers: res.headers,
              body: errorBody.text(),
              expectStatus: opts.expectStatus,
            }),
          );
        if (sinking) return void sinking.then(() => finish(status, res.headers));
        finish(status, res.headers);
      });
      res.on('error', (err) => finish(status, res.headers, errnoText(err)));
      res.on('aborted', () => finish(status, res.headers, 'ECONNRESET: response aborted'));
    });
    req.end(opts.body);
  });
}
