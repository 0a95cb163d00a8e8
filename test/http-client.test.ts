// The one request contract, held by both clients (our raw pool and node:http) against a real http
// server: credentials in the URL go out as Basic auth, error answers read the same way (redirects
// with their Location), and an AbortSignal ends a request and a retry's wait.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { answerError, throttleClassOf } from '../src/transport/answer.js';
import { RecordTable } from '../src/metrics/record-table.js';
import { addTotals, countInto, emptyTotals } from '../src/metrics/totals.js';
import { CANCELLED_ERROR, NOT_SENT_ERROR, type HttpClient } from '../src/transport/http-client.js';
import { RawPool } from '../src/transport/raw-client.js';
import { NodeHttpClient } from '../src/transport/request.js';
import { outcomeOf, requestWithRetries } from '../src/transport/retry.js';
import { close, listen } from './helpers/http-servers.js';

let server: http.Server;
let base: string;
/**
 * What the server saw of each request: its Authorization headers (each one sent) and the request line's URL.
 */
const seen: { authorization: string[]; url: string }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const authorization = req.rawHeaders.filter(
      (_, i) => i % 2 === 1 && req.rawHeaders[i - 1]!.toLowerCase() === 'authorization',
    );
    seen.push({ authorization, url: req.url! });
    const path = new URL(req.url!, 'http://x').pathname;
    switch (path) {
      case '/moved':
        return void res
          .writeHead(301, {
            location: 'https://elsewhere.example/new/place.bin?sv=2025-01-05&sig=c2VjcmV0',
            'content-length': 0,
          })
          .end();
      case '/conflict':
        // The error code in the header only, no body: as Azure answers HEAD.
        return void res.writeHead(409, { 'x-ms-error-code': 'BlobAlreadyExists', 'content-length': 0 }).end();
      case '/gone':
        return void res.writeHead(410, { 'content-length': 4 }).end('gone');
      case '/busy':
        return void res.writeHead(503, { 'retry-after': '10', 'content-length': 0 }).end();
      case '/silent':
        return;
      default:
        res.writeHead(200, { 'content-length': 5 });
        res.end(req.method === 'HEAD' ? undefined : 'hello');
    }
  });
  base = await listen(server);
});
afterAll(() => close(server));

const clients: { close(): void }[] = [];
afterEach(() => {
  for (const c of clients.splice(0)) c.close();
  seen.length = 0;
});

const CLIENTS: [string, () => HttpClient][] = [
  [
    'raw',
    () => {
      const pool = new RawPool(new URL(base), 2, 16 * 1024);
      clients.push({ close: () => pool.destroy() });
      return pool;
    },
  ],
  [
    'node',
    () => {
      const client = NodeHttpClient.to(new URL(base), 2);
      clients.push(client);
      return client;
    },
  ],
];

describe.each(CLIENTS)('%s client', (_name, make) => {
  it('sends user:password from the URL as Authorization: Basic, never in the request line', async () => {
    const url = new URL(`${base.replace('http://', 'http://reader:p%40ss%3Aword@')}/file.bin?x=1`);
    const r = await make().request({ url, headers: {}, trace: false });
    expect(r.error).toBeUndefined();
    expect(seen).toEqual([
      {
        authorization: [`Basic ${Buffer.from('reader:p@ss:word').toString('base64')}`],
        url: '/file.bin?x=1',
      },
    ]);
    // The caller's URL is left as it was.
    expect(url.username).toBe('reader');
  });

  it('a URL without credentials sends no Authorization', async () => {
    await make().request({ url: new URL(`${base}/file.bin`), headers: {} });
    expect(seen[0]!.authorization).toEqual([]);
  });

  it('a redirect is an error that names its Location, without its query', async () => {
    const r = await make().request({ url: new URL(`${base}/moved`), headers: {} });
    expect(r.status).toBe(301);
    expect(r.error).toBe('HTTP 301 Moved Permanently to https://elsewhere.example/new/place.bin');
  });

  it('the storage error code from x-ms-error-code; else the status text', async () => {
    const client = make();
    expect(
      (await client.request({ url: new URL(`${base}/conflict`), method: 'HEAD', headers: {} })).error,
    ).toBe('HTTP 409 BlobAlreadyExists');
    expect((await client.request({ url: new URL(`${base}/gone`), headers: {} })).error).toBe('HTTP 410 Gone');
  });

  it('HEAD: the announced length is not waited for', async () => {
    const r = await make().request({
      url: new URL(`${base}/file.bin`),
      method: 'HEAD',
      headers: {},
      timeoutMs: 5000,
    });
    expect(r.error).toBeUndefined();
    expect(r.headers['content-length']).toBe('5');
    expect(r.bytes).toBe(0);
  });

  it('an abort ends a request that has no answer', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const r = await make().request({
      url: new URL(`${base}/silent`),
      headers: {},
      signal: controller.signal,
    });
    expect(r.error).toBe(CANCELLED_ERROR);
  });

  it('an aborted signal: no request is sent', async () => {
    const r = await make().request({
      url: new URL(`${base}/file.bin`),
      headers: {},
      signal: AbortSignal.abort(),
    });
    expect(r.error).toBe(NOT_SENT_ERROR);
    expect(seen).toHaveLength(0);
  });

  it('an abort ends the wait before a retry at once, and no try follows', async () => {
    const client = make();
    const controller = new AbortController();
    const started = performance.now();
    setTimeout(() => controller.abort(), 100);
    // Retry-After: 10 s; the abort comes 100 ms in.
    const r = await requestWithRetries(
      async () =>
        outcomeOf(
          await client.request({ url: new URL(`${base}/busy`), headers: {}, signal: controller.signal }),
        ),
      { maxRetries: 3, label: 'busy', signal: controller.signal },
    );
    expect(r.error).toBe('cancelled: stopped before retrying (HTTP 503 Service Unavailable)');
    expect(r.retries).toBe(0);
    expect(r.backoffMs).toBeLessThan(5000);
    expect(seen).toHaveLength(1);
    expect(performance.now() - started).toBeLessThan(5000);
  });
});

describe('answerError', () => {
  it('a Location is shown without credentials or query, a relative one as it is', () => {
    expect(
      answerError({ status: 307, headers: { location: 'https://u:secret@other.example/a/b?sig=x' } }),
    ).toBe('HTTP 307 Temporary Redirect to https://other.example/a/b');
    expect(answerError({ status: 302, headers: { location: '/login?next=%2F' } })).toBe(
      'HTTP 302 Found to /login',
    );
  });

  it("the header's code wins over the body's; an unknown status has its number only", () => {
    const body = '<?xml version="1.0"?><Error><Code>FromBody</Code></Error>';
    expect(answerError({ status: 403, headers: { 'x-ms-error-code': 'AuthorizationFailure' }, body })).toBe(
      'HTTP 403 AuthorizationFailure',
    );
    expect(answerError({ status: 500, headers: {}, body })).toBe('HTTP 500 FromBody');
    expect(answerError({ status: 599, headers: {} })).toBe('HTTP 599');
  });
});

describe('throttled answers by their limit', () => {
  const busy = (message: string) => ({
    status: 503,
    bytes: 0,
    reused: false,
    phases: {},
    totalMs: 1,
    startEpochMs: 0,
    headers: { 'x-ms-error-code': 'ServerBusy', 'retry-after': '0' },
    error: answerError({
      status: 503,
      headers: { 'x-ms-error-code': 'ServerBusy' },
      body:
        `<?xml ` +
        `version="1.0"?><Error><Code>ServerBusy</Code><Message>${message}\nRequestId:1</Message></Error>`,
    }),
  });
  const ok = { status: 200, bytes: 1, reused: true, phases: {}, totalMs: 1, startEpochMs: 0, headers: {} };

  it('a retry that overcame a 503 keeps which limit it named; the run counts them by class', async () => {
    const tries = [
      busy('Operations per second is over the account limit.'),
      busy('Egress is over the account limit.'),
      ok,
    ];
    const r = await requestWithRetries(async (n) => outcomeOf(tries[n]!), {
      maxRetries: 3,
      label: 'busy',
      baseDelayMs: 1,
      maxDelayMs: 1,
    });
    expect(r.error).toBeUndefined();
    expect(r.throttled).toBe(2);
    // The last throttled answer's class stands for the request.
    expect(r.throttledBy).toBe('egress');
    const t = emptyTotals();
    countInto(t, {
      worker: 0,
      item: 0,
      offsetBytes: 0,
      bytes: 1,
      status: 200,
      startEpochMs: 0,
      totalMs: 1,
      phases: {},
      reused: true,
      retries: 2,
      throttled: 2,
      throttledBy: 'egress',
      backoffMs: 0,
    });
    countInto(t, {
      worker: 0,
      item: 1,
      offsetBytes: 0,
      bytes: 1,
      status: 200,
      startEpochMs: 0,
      totalMs: 1,
      phases: {},
      reused: true,
      retries: 1,
      throttled: 1,
      throttledBy: 'operations',
      backoffMs: 0,
    });
    expect(addTotals([t, t]).throttledBy).toEqual({ egress: 4, operations: 2 });
    expect(throttleClassOf(busy('Ingress is over the account limit.').error)).toBe('ingress');
    expect(throttleClassOf('HTTP 503 ServerBusy')).toBe('other');
    // It travels with the record through the columns the worker sends.
    const table = RecordTable.from([
      {
        worker: 0,
        item: 0,
        offsetBytes: 0,
        bytes: 1,
        status: 200,
        startEpochMs: 0,
        totalMs: 1,
        phases: {},
        reused: true,
        retries: 1,
        throttled: 1,
        throttledBy: 'operations',
        backoffMs: 0,
      },
    ]);
    expect(RecordTable.decode(table.encode()).at(0)!.throttledBy).toBe('operations');
  });
});
