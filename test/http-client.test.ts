// The one request contract, held by both clients (our raw pool and node:http) against a real http
// server: credentials in the URL go out as Basic auth, error answers read the same way (redirects
// with their Location), and an AbortSignal ends a request and a retry's wait.
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { answerError } from '../src/transport/answer.js';
import { CANCELLED_ERROR, NOT_SENT_ERROR, type HttpClient } from '../src/transport/http-client.js';
import { RawPool } from '../src/transport/raw-client.js';
import { NodeHttpClient } from '../src/transport/request.js';
import { outcomeOf, requestWithRetries } from '../src/transport/retry.js';
import { close, listen } from './helpers/http-servers.js';

let server: http.Server;
let base: string;
/** What the server saw of each request: its Authorization headers (each one sent) and the request line's URL. */
const seen: { authorization: string[]; url: string }[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    const authorization = req.rawHeaders.filter((_, i) => i % 2 === 1 && req.rawHeaders[i - 1]!.toLowerCase() === 'authorization');
    seen.push({ authorization, url: req.url! });
    const path = new URL(req.url!, 'http://x').pathname;
    switch (path) {
      case '/moved':
        return void res.writeHead(301, { location: 'https://elsewhere.example/new/place.bin?sv=2025-01-05&sig=c2VjcmV0', 'content-length': 0 }).end();
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
  ['raw', () => {
    const pool = new RawPool(new URL(base), 2, 16 * 1024);
    clients.push({ close: () => pool.destroy() });
    return pool;
  }],
  ['node', () => {
    const client = NodeHttpClient.to(new URL(base), 2);
    clients.push(client);
    return client;
  }],
];

describe.each(CLIENTS)('%s client', (_name, make) => {
  it('sends user:password from the URL as Authorization: Basic, never in the request line', async () => {
    const url = new URL(base.replace('http://', 'http://reader:p%40ss%3Aword@') + '/file.bin?x=1');
    const r = await make().request({ url, headers: {}, trace: false });
    expect(r.error).toBeUndefined();
    expect(seen).toEqual([{ authorization: [`Basic ${Buffer.from('reader:p@ss:word').toString('base64')}`], url: '/file.bin?x=1' }]);
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
    expect((await client.request({ url: new URL(`${base}/conflict`), method: 'HEAD', headers: {} })).error).toBe('HTTP 409 BlobAlreadyExists');
    expect((await client.request({ url: new URL(`${base}/gone`), headers: {} })).error).toBe('HTTP 410 Gone');
  });

  it('HEAD: the announced length is not waited for', async () => {
    const r = await make().request({ url: new URL(`${base}/file.bin`), method: 'HEAD', headers: {}, timeoutMs: 5000 });
    expect(r.error).toBeUndefined();
    expect(r.headers['content-length']).toBe('5');
    expect(r.bytes).toBe(0);
  });

  it('an abort ends a request that has no answer', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const r = await make().request({ url: new URL(`${base}/silent`), headers: {}, signal: controller.signal });
    expect(r.error).toBe(CANCELLED_ERROR);
  });

  it('an aborted signal: no request is sent', async () => {
    const r = await make().request({ url: new URL(`${base}/file.bin`), headers: {}, signal: AbortSignal.abort() });
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
      async () => outcomeOf(await client.request({ url: new URL(`${base}/busy`), headers: {}, signal: controller.signal })),
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
    expect(answerError({ status: 307, headers: { location: 'https://u:secret@other.example/a/b?sig=x' } })).toBe('HTTP 307 Temporary Redirect to https://other.example/a/b');
    expect(answerError({ status: 302, headers: { location: '/login?next=%2F' } })).toBe('HTTP 302 Found to /login');
  });

  it('the header\'s code wins over the body\'s; an unknown status has its number only', () => {
    const body = '<?xml version="1.0"?><Error><Code>FromBody</Code></Error>';
    expect(answerError({ status: 403, headers: { 'x-ms-error-code': 'AuthorizationFailure' }, body })).toBe('HTTP 403 AuthorizationFailure');
    expect(answerError({ status: 500, headers: {}, body })).toBe('HTTP 500 FromBody');
    expect(answerError({ status: 599, headers: {} })).toBe('HTTP 599');
  });
});
