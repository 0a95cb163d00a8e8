// One traced HTTP request over a capped keep-alive agent. The body is handed to `onData` chunk by
// chunk; a promise returned from it pauses the response (backpressure from the sink).
import http from 'node:http';
import https from 'node:https';
import { RequestTracer } from './tracer.js';
import type { PhaseDurationsMs } from './phases.js';

export interface TracedResult {
  status: number;
  bytes: number;
  reused: boolean;
  phases: PhaseDurationsMs;
  totalMs: number;
  startEpochMs: number;
  headers: http.IncomingHttpHeaders;
  error?: string;
}

export interface TracedRequestOptions {
  url: URL;
  method: 'GET' | 'PUT' | 'HEAD' | 'DELETE';
  headers: Record<string, string>;
  agent: http.Agent;
  highWaterMark?: number;
  body?: Buffer;
  onData?: (chunk: Buffer) => void | Promise<void>;
  /** Statuses whose body goes to onData; any other answer is an error (default: any 2xx). */
  expectStatus?: readonly number[];
  /** A try fails when the socket is idle this long, including a body that stalls. */
  timeoutMs?: number;
  /** False measures only the total: no per-phase listeners (to measure what tracing costs). */
  trace?: boolean;
  /**
   * When the request was issued, if it was held in the worker's own queue before being created
   * (performance.now() clock): its `wait` starts there, as it would have in the agent's queue.
   */
  queuedAt?: number;
}

export function createAgent(url: URL, maxSockets: number): http.Agent {
  const options: http.AgentOptions = { keepAlive: true, maxSockets, maxFreeSockets: maxSockets, scheduling: 'fifo' };
  return url.protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
}

export function tracedRequest(opts: TracedRequestOptions): Promise<TracedResult> {
  return new Promise((resolve) => {
    const tracer = new RequestTracer(opts.queuedAt);
    const transport = opts.url.protocol === 'https:' ? https : http;
    let bytes = 0;
    let settled = false;
    const finish = (status: number, headers: http.IncomingHttpHeaders, error?: string) => {
      if (settled) return;
      settled = true;
      tracer.mark('end');
      const { phases, totalMs } = tracer.phases();
      resolve({ status, bytes, reused: tracer.reused, phases, totalMs, startEpochMs: tracer.startEpochMs, headers, error });
    };
    const headers = { ...opts.headers };
    if (opts.body) headers['content-length'] = String(opts.body.length);
    // highWaterMark sizes the response stream's reads (--buffer-size); older typings omit it.
    const requestOptions = { method: opts.method, headers, agent: opts.agent, highWaterMark: opts.highWaterMark } as http.RequestOptions;
    const req = transport.request(opts.url, requestOptions);
    if (opts.trace !== false) tracer.attach(req);
    req.on('error', (err) => finish(0, {}, `${(err as NodeJS.ErrnoException).code ?? 'ERROR'}: ${err.message}`));
    if (opts.timeoutMs) {
      req.setTimeout(opts.timeoutMs, () => {
        req.destroy(Object.assign(new Error(`no data for ${opts.timeoutMs} ms`), { code: 'ETIMEDOUT' }));
      });
    }
    req.on('response', (res) => {
      const status = res.statusCode ?? 0;
      const ok = opts.expectStatus ? opts.expectStatus.includes(status) : status >= 200 && status < 300;
      const errorBody: Buffer[] = [];
      // The sink's latest pending write: 'end' can come before it settles, and must wait for it.
      let sinking: Promise<void> | undefined;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (!ok) {
          if (errorBody.length < 16) errorBody.push(chunk);
          return;
        }
        let pending: void | Promise<void>;
        try {
          pending = opts.onData?.(chunk);
        } catch (err) {
          // A sink that throws fails this request; thrown from an event handler it would end the process.
          finish(res.statusCode ?? 0, res.headers, `sink: ${(err as Error).message}`);
          res.destroy();
          return;
        }
        if (pending) {
          res.pause();
          sinking = pending.then(
            () => void res.resume(),
            (err: Error) => {
              // Finish first: destroy() emits 'aborted' at once, which would report ECONNRESET instead.
              finish(res.statusCode ?? 0, res.headers, `sink: ${err.message}`);
              res.destroy();
            },
          );
        }
      });
      res.on('end', () => {
        if (ok) {
          if (sinking) return void sinking.then(() => finish(res.statusCode!, res.headers));
          return finish(res.statusCode!, res.headers);
        }
        const code = /<Code>([^<]+)<\/Code>/.exec(Buffer.concat(errorBody).toString('utf8'))?.[1];
        const unexpected = opts.expectStatus && status >= 200 && status < 300 ? ` where ${opts.expectStatus.join('/')} was expected` : '';
        finish(status, res.headers, `HTTP ${status}${code ? ` ${code}` : ''}${unexpected}`);
      });
      res.on('error', (err) => finish(res.statusCode ?? 0, res.headers, `${(err as NodeJS.ErrnoException).code ?? 'ERROR'}: ${err.message}`));
      res.on('aborted', () => finish(res.statusCode ?? 0, res.headers, 'ECONNRESET: response aborted'));
    });
    req.end(opts.body);
  });
}
