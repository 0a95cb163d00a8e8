// Our raw HTTP/1.1 client (GET and PUT) against real servers on 127.0.0.1: node:http ones, and raw `net`
// ones where the bytes on the wire must be exact (a head split across reads, a reset mid-body, a
// chunked body, bytes past Content-Length). Same contract as tracedRequest: phases, reuse, errors.
import { createHash } from 'node:crypto';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CONNECTION_PHASES, PHASES } from '../src/transport/phases.js';
import { rawRequest, RawPool, wireHead } from '../src/transport/raw-client.js';
import { CANCELLED_ERROR, NOT_SENT_ERROR, type TracedResult } from '../src/transport/http-client.js';
import { close, deterministicBuffer, listen, refusingUrl } from './helpers/http-servers.js';
import { requires } from './helpers/requires.js';
import { startTlsServer, type TlsServer } from './helpers/tls.js';

const BODY = deterministicBuffer(3 * 1024 * 1024 + 17);
const md5 = (b: Buffer) => createHash('md5').update(b).digest('base64');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let server: http.Server;
let base: string;
/** Connections the http server accepted, to tell reuse from new sockets on the server's side. */
let connections = 0;
let inFlight = 0;
let maxInFlight = 0;
const pools: RawPool[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    res.on('close', () => inFlight--);
    const url = new URL(req.url!, 'http://x');
    switch (url.pathname) {
      case '/body': {
        const range = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? '');
        if (range) {
          const part = BODY.subarray(Number(range[1]), Number(range[2]) + 1);
          res.writeHead(206, {
            'content-length': part.length,
            'content-range': `bytes ${range[1]}-${range[2]}/${BODY.length}`,
          });
          return void res.end(part);
        }
        res.writeHead(200, { 'content-length': BODY.length });
        return void res.end(BODY);
      }
      case '/chunked':
        // No Content-Length and several writes: node sends Transfer-Encoding: chunked.
        res.writeHead(200);
        res.write(BODY.subarray(0, 1000));
        res.write(BODY.subarray(1000, 70_000));
        setTimeout(() => res.end(BODY.subarray(70_000, 300_000)), 10);
        return;
      case '/slow':
        return void setTimeout(() => res.end('slow'), Number(url.searchParams.get('ms') ?? 50));
      case '/busy':
        res.writeHead(503, { 'retry-after': '1', 'content-type': 'application/xml' });
        return void res.end(
          '<?xml version="1.0"?><Error><Code>ServerBusy</Code><Message>try later</Message></Error>',
        );
      case '/close':
        res.writeHead(200, { connection: 'close', 'content-length': 5 });
        return void res.end('bye!!');
      case '/empty':
        res.writeHead(204);
        return void res.end();
      default:
        res.end('hello');
    }
  });
  server.on('connection', () => connections++);
  base = await listen(server);
});

afterEach(() => {
  for (const p of pools.splice(0)) p.destroy();
});

afterAll(() => close(server));

function poolFor(
  url: string,
  maxSockets = 4,
  bufferBytes = 64 * 1024,
  tls?: ConstructorParameters<typeof RawPool>[3],
): RawPool {
  const pool = new RawPool(new URL(url), maxSockets, bufferBytes, tls);
  pools.push(pool);
  return pool;
}

async function get(
  pool: RawPool,
  url: string,
  opts: { headers?: Record<string, string>; timeoutMs?: number; expectStatus?: number[] } = {},
) {
  const chunks: Buffer[] = [];
  // Chunks are views of the socket's read buffer: copy them, as a sink that keeps them must.
  const r = await rawRequest({
    url: new URL(url),
    headers: opts.headers ?? {},
    pool,
    timeoutMs: opts.timeoutMs,
    expectStatus: opts.expectStatus,
    onData: (c) => void chunks.push(Buffer.from(c)),
  });
  return { r, body: Buffer.concat(chunks) };
}

function expectPhasesAddUp(r: TracedResult): void {
  let sum = 0;
  for (const p of PHASES) {
    const ms = r.phases[p];
    if (ms === undefined) continue;
    expect(ms, p).toBeGreaterThanOrEqual(0);
    sum += ms;
  }
  expect(Math.abs(sum - r.totalMs)).toBeLessThan(1e-6);
}

/** A raw TCP server that answers each connection with `script(socket)`. */
async function rawServer(
  script: (socket: net.Socket) => void,
): Promise<{ url: string; stop(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const srv = net.createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {});
    script(s);
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        srv.close(() => resolve());
      }),
  };
}

describe('raw GET client: bodies, phases and reuse', () => {
  it(
    'delivers a Content-Length body exactly; a fresh socket has tcp, a reused one ' +
      'has no connection phases',
    async () => {
      const pool = poolFor(base);
      const before = connections;
      const first = await get(pool, `${base}/body`);
      expect(first.r.error).toBeUndefined();
      expect(first.r.status).toBe(200);
      expect(first.r.bytes).toBe(BODY.length);
      expect(md5(first.body)).toBe(md5(BODY));
      expect(first.r.reused).toBe(false);
      expect(first.r.phases.tcp).toBeGreaterThan(0);
      expect(first.r.phases.download).toBeGreaterThan(0);
      expectPhasesAddUp(first.r);

      const second = await get(pool, `${base}/body`, {
        headers: { range: 'bytes=100-199999' },
        expectStatus: [206],
      });
      expect(second.r.status).toBe(206);
      expect(md5(second.body)).toBe(md5(BODY.subarray(100, 200_000)));
      expect(second.r.reused).toBe(true);
      for (const p of CONNECTION_PHASES) expect(second.r.phases[p], p).toBeUndefined();
      expectPhasesAddUp(second.r);
      expect(connections - before).toBe(1);
    },
  );

  it("firstByte carries the server's think time", async () => {
    const pool = poolFor(base);
    const { r } = await get(pool, `${base}/slow?ms=80`);
    expect(r.error).toBeUndefined();
    expect(r.phases.firstByte!).toBeGreaterThanOrEqual(75);
    expect(r.phases.firstByte!).toBeLessThan(200);
    expectPhasesAddUp(r);
  });

  it('never opens more than maxSockets; the rest wait in order and show it as wait', async () => {
    const pool = poolFor(base, 2);
    maxInFlight = 0;
    const before = connections;
    const results = await Promise.all(Array.from({ length: 6 }, () => get(pool, `${base}/slow?ms=60`)));
    expect(results.every(({ r }) => !r.error)).toBe(true);
    expect(connections - before).toBe(2);
    expect(maxInFlight).toBe(2);
    const waits = results.map(({ r }) => r.phases.wait!).sort((a, b) => a - b);
    expect(waits[5]!).toBeGreaterThan(100);
    expect(results.filter(({ r }) => r.reused)).toHaveLength(4);
  });

  it(
    'a request aborted while it waits for a socket leaves the queue at once, not sent; the next in ' +
      'line gets the socket',
    async () => {
      const pool = poolFor(base, 1);
      const holder = get(pool, `${base}/slow?ms=150`);
      const stop = new AbortController();
      const started = performance.now();
      const queued = pool.request({
        url: new URL(`${base}/slow?ms=1`),
        headers: {},
        expectStatus: [200],
        signal: stop.signal,
      });
      const after = get(pool, `${base}/slow?ms=1`);
      setTimeout(() => stop.abort(), 20);
      const r = await queued;
      expect(r.error).toBe(NOT_SENT_ERROR);
      // Out at the abort (~20 ms), not when the holder's socket came free (~150 ms).
      expect(performance.now() - started).toBeLessThan(120);
      expect((await holder).r.error).toBeUndefined();
      const next = (await after).r;
      expect(next.error).toBeUndefined();
      expect(next.reused).toBe(true);
    },
  );

  it(
    "a run's stop ends every request in flight on it at once (one listener for " +
      'them all), and only those',
    async () => {
      const pool = poolFor(base, 4);
      const stop = new AbortController();
      const started = performance.now();
      const onStop = Array.from({ length: 3 }, () =>
        pool.request({
          url: new URL(`${base}/slow?ms=400`),
          headers: {},
          expectStatus: [200],
          signal: stop.signal,
        }),
      );
      const other = pool.request({
        url: new URL(`${base}/slow?ms=100`),
        headers: {},
        expectStatus: [200],
        signal: new AbortController().signal,
      });
      setTimeout(() => stop.abort(), 30);
      const ended = await Promise.all(onStop);
      expect(ended.map((r) => r.error)).toEqual([CANCELLED_ERROR, CANCELLED_ERROR, CANCELLED_ERROR]);
      expect(performance.now() - started).toBeLessThan(300);
      expect((await other).error).toBeUndefined();
      // Requests on the stop after it are not sent; the pool serves others.
      expect(
        (
          await pool.request({
            url: new URL(`${base}/`),
            headers: {},
            expectStatus: [200],
            signal: stop.signal,
          })
        ).error,
      ).toBe(NOT_SENT_ERROR);
      expect((await get(pool, `${base}/`)).r.error).toBeUndefined();
    },
  );

  it("send() hands the result to the caller's object, as request() resolves it", async () => {
    const pool = poolFor(base, 1);
    const got = await new Promise<TracedResult>((resolve) =>
      pool.send({ url: new URL(`${base}/`), headers: {}, expectStatus: [200] }, { answered: resolve }),
    );
    expect([got.status, got.bytes, got.error]).toEqual([200, 5, undefined]);
  });

  it('decodes a chunked body, then reuses the connection', async () => {
    const pool = poolFor(base, 1);
    const before = connections;
    const a = await get(pool, `${base}/chunked`);
    expect(a.r.error).toBeUndefined();
    expect(md5(a.body)).toBe(md5(BODY.subarray(0, 300_000)));
    const b = await get(pool, `${base}/chunked`);
    expect(md5(b.body)).toBe(md5(BODY.subarray(0, 300_000)));
    expect(b.r.reused).toBe(true);
    expect(connections - before).toBe(1);
  });

  it('a 204 has no body and keeps the connection', async () => {
    const pool = poolFor(base, 1);
    const a = await get(pool, `${base}/empty`);
    expect(a.r.status).toBe(204);
    expect(a.r.bytes).toBe(0);
    const b = await get(pool, `${base}/`);
    expect(b.body.toString()).toBe('hello');
    expect(b.r.reused).toBe(true);
  });

  it('Connection: close is honoured: the next request opens a new socket', async () => {
    const pool = poolFor(base, 1);
    const before = connections;
    const a = await get(pool, `${base}/close`);
    expect(a.body.toString()).toBe('bye!!');
    const b = await get(pool, `${base}/`);
    expect(b.r.reused).toBe(false);
    expect(connections - before).toBe(2);
  });

  it('an idle socket the server closed is not reused: the next request just opens another', async () => {
    const pool = poolFor(base, 1);
    await get(pool, `${base}/`);
    server.closeIdleConnections();
    await sleep(50);
    const b = await get(pool, `${base}/body`);
    expect(b.r.error).toBeUndefined();
    expect(b.r.reused).toBe(false);
    expect(md5(b.body)).toBe(md5(BODY));
  });

  it(
    'an async sink pauses the socket: the read buffer is not overwritten while a ' + 'write still reads it',
    async () => {
      const pool = poolFor(base, 1, 16 * 1024);
      const hash = createHash('md5');
      let calls = 0;
      const r = await rawRequest({
        url: new URL(`${base}/body`),
        headers: {},
        pool,
        onData: async (chunk) => {
          calls++;
          if (calls % 16 === 0) await sleep(1);
          // Hashing after the wait: had the socket gone on reading into the same buffer, this would differ.
          hash.update(chunk);
        },
      });
      expect(r.error).toBeUndefined();
      expect(hash.digest('base64')).toBe(md5(BODY));
      expect(calls).toBeGreaterThan(100);
    },
  );
});

describe('raw GET client: the wire, byte by byte', () => {
  it('a response head split over many reads, then a body split likewise', async () => {
    const payload = BODY.subarray(0, 5000);
    const srv = await rawServer((s) => {
      s.once('data', async () => {
        const wire = Buffer.concat([
          Buffer.from(
            `HTTP/1.1 200 OK\r\nContent-Length: ${payload.length}\r\nX-Long: ${'y'.repeat(3000)}\r\n\r\n`,
          ),
          payload,
        ]);
        for (let i = 0; i < wire.length; i += 700) {
          s.write(wire.subarray(i, i + 700));
          await sleep(1);
        }
      });
    });
    try {
      const pool = poolFor(srv.url, 1, 1024);
      const { r, body } = await get(pool, `${srv.url}/`);
      expect(r.error).toBeUndefined();
      expect(r.headers['x-long']).toHaveLength(3000);
      expect(md5(body)).toBe(md5(payload));
    } finally {
      await srv.stop();
    }
  });

  it('a reset mid-body is an ECONNRESET error with the bytes received so far', async () => {
    const srv = await rawServer((s) => {
      s.once('data', () => {
        s.write(
          Buffer.concat([
            Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n'),
            BODY.subarray(0, 30_000),
          ]),
        );
        setTimeout(() => s.resetAndDestroy(), 20);
      });
    });
    try {
      const { r, body } = await get(poolFor(srv.url), `${srv.url}/`);
      expect(r.error).toMatch(/^ECONNRESET/);
      expect(r.status).toBe(200);
      expect(r.bytes).toBe(30_000);
      expect(md5(body)).toBe(md5(BODY.subarray(0, 30_000)));
      expectPhasesAddUp(r);
    } finally {
      await srv.stop();
    }
  });

  it('a close before the body ends is an error, never a short success', async () => {
    const srv = await rawServer((s) => {
      s.once('data', () =>
        s.end(
          Buffer.concat([
            Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n'),
            BODY.subarray(0, 40),
          ]),
        ),
      );
    });
    try {
      const { r } = await get(poolFor(srv.url), `${srv.url}/`);
      expect(r.error).toMatch(/^ECONNRESET/);
      expect(r.bytes).toBe(40);
    } finally {
      await srv.stop();
    }
  });

  it(
    'one pool, two timeouts: each stalled request ends at its own (the watchdog looks as often as ' +
      'the shorter needs)',
    async () => {
      const srv = await rawServer((s) => {
        s.once('data', () =>
          s.write(
            Buffer.concat([
              Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n'),
              BODY.subarray(0, 10),
            ]),
          ),
        );
      });
      try {
        const pool = poolFor(srv.url, 2);
        const started = performance.now();
        const at = (p: Promise<{ r: TracedResult }>) =>
          p.then(({ r }) => ({ error: r.error, ms: performance.now() - started }));
        const [long, short] = await Promise.all([
          at(get(pool, `${srv.url}/`, { timeoutMs: 400 })),
          at(get(pool, `${srv.url}/`, { timeoutMs: 100 })),
        ]);
        expect(short.error).toMatch(/^ETIMEDOUT: no data for 100 ms/);
        expect(long.error).toMatch(/^ETIMEDOUT: no data for 400 ms/);
        expect(short.ms).toBeGreaterThanOrEqual(95);
        expect(long.ms).toBeGreaterThanOrEqual(390);
        expect(short.ms).toBeLessThan(long.ms);
      } finally {
        await srv.stop();
      }
    },
  );

  it('a body that stalls fails with ETIMEDOUT after the idle timeout', async () => {
    const srv = await rawServer((s) => {
      s.once('data', () =>
        s.write(
          Buffer.concat([
            Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n'),
            BODY.subarray(0, 10),
          ]),
        ),
      );
    });
    try {
      const started = performance.now();
      const { r } = await get(poolFor(srv.url), `${srv.url}/`, { timeoutMs: 150 });
      expect(r.error).toMatch(/^ETIMEDOUT: no data for 150 ms/);
      expect(performance.now() - started).toBeGreaterThanOrEqual(140);
    } finally {
      await srv.stop();
    }
  });

  it('bytes past Content-Length are not delivered and the connection is not reused', async () => {
    let accepted = 0;
    const srv = await rawServer((s) => {
      accepted++;
      s.on('data', () => s.write('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhelloEXTRA'));
    });
    try {
      const pool = poolFor(srv.url, 1);
      const a = await get(pool, `${srv.url}/`);
      expect(a.body.toString()).toBe('hello');
      const b = await get(pool, `${srv.url}/`);
      expect(b.body.toString()).toBe('hello');
      expect(b.r.reused).toBe(false);
      expect(accepted).toBe(2);
    } finally {
      await srv.stop();
    }
  });

  it("a body framed by the connection's close (no Content-Length) ends cleanly at the close", async () => {
    const payload = BODY.subarray(0, 200_000);
    const srv = await rawServer((s) => {
      s.once('data', () => {
        s.write('HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n');
        s.write(payload.subarray(0, 100_000));
        setTimeout(() => s.end(payload.subarray(100_000)), 20);
      });
    });
    try {
      const pool = poolFor(srv.url, 1);
      const { r, body } = await get(pool, `${srv.url}/`);
      expect(r.error).toBeUndefined();
      expect(md5(body)).toBe(md5(payload));
      // The slot came back: the next request opens a new connection and is not stuck.
      const again = await get(pool, `${srv.url}/`);
      expect(again.r.error).toBeUndefined();
      expect(again.r.reused).toBe(false);
    } finally {
      await srv.stop();
    }
  });

  it('a 100 Continue before the answer is skipped', async () => {
    const srv = await rawServer((s) => {
      s.once('data', () =>
        s.write('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok'),
      );
    });
    try {
      const { r, body } = await get(poolFor(srv.url), `${srv.url}/`);
      expect(r.status).toBe(200);
      expect(body.toString()).toBe('ok');
    } finally {
      await srv.stop();
    }
  });

  it('garbage instead of a status line is an HPE error', async () => {
    const srv = await rawServer((s) => s.once('data', () => s.write('SSH-2.0-OpenSSH\r\n\r\n')));
    try {
      const { r } = await get(poolFor(srv.url), `${srv.url}/`);
      expect(r.error).toMatch(/^HPE_INVALID/);
    } finally {
      await srv.stop();
    }
  });
});

describe('raw GET client: errors', () => {
  it(
    'an error status reports its storage error code and headers, keeps the body from the sink, and ' +
      'the socket',
    async () => {
      const pool = poolFor(base, 1);
      const delivered: Buffer[] = [];
      const r = await rawRequest({
        url: new URL(`${base}/busy`),
        headers: {},
        pool,
        onData: (c) => void delivered.push(c),
      });
      expect(r.status).toBe(503);
      // A throttled answer says which limit it met: the first line of the body's <Message>.
      expect(r.error).toBe('HTTP 503 ServerBusy (try later)');
      expect(r.headers['retry-after']).toBe('1');
      expect(delivered).toHaveLength(0);
      const next = await get(pool, `${base}/`);
      expect(next.r.reused).toBe(true);
    },
  );

  it('a 200 where 206 was expected says so', async () => {
    const { r } = await get(poolFor(base), `${base}/`, { expectStatus: [206] });
    expect(r.error).toBe('HTTP 200 where 206 was expected');
  });

  it('a refused connection is ECONNREFUSED, its time in tcp', async () => {
    const url = await refusingUrl();
    const pool = poolFor(url, 1);
    const { r } = await get(pool, `${url}/`);
    expect(r.error).toMatch(/^ECONNREFUSED/);
    expect(r.status).toBe(0);
    expect(r.phases.tcp).toBeGreaterThanOrEqual(0);
    expectPhasesAddUp(r);
    // The slot is free again: a second try is not stuck waiting for it.
    const again = await get(pool, `${url}/`);
    expect(again.r.error).toMatch(/^ECONNREFUSED/);
  });
});

requires('openssl').describe('raw GET client over TLS', () => {
  let tls: TlsServer | undefined;
  let why = '';

  beforeAll(async () => {
    const started = await startTlsServer((_req, res) => {
      res.writeHead(200, { 'content-length': BODY.length });
      res.end(BODY);
    });
    if (typeof started === 'string') why = started;
    else tls = started;
  });

  afterAll(() => tls?.stop());

  it(
    'https: dns, tcp and tls phases on a fresh socket, none on the reused one; the ' + 'body intact',
    async (ctx) => {
      if (!tls) {
        process.stdout.write(`skipped: ${why}\n`);
        return ctx.skip();
      }
      const tlsBase = tls.base;
      const pool = poolFor(tlsBase, 1, 64 * 1024, { ca: tls.ca });
      const a = await get(pool, `${tlsBase}/`);
      expect(a.r.error).toBeUndefined();
      expect(md5(a.body)).toBe(md5(BODY));
      expect(a.r.phases.dns).toBeGreaterThanOrEqual(0);
      expect(a.r.phases.tls).toBeGreaterThan(0);
      expectPhasesAddUp(a.r);
      const b = await get(pool, `${tlsBase}/`);
      expect(b.r.reused).toBe(true);
      expect(b.r.phases.tls).toBeUndefined();
      expect(md5(b.body)).toBe(md5(BODY));
    },
  );

  it('https: a certificate nobody vouches for is refused', async (ctx) => {
    if (!tls) return ctx.skip();
    const { r } = await get(poolFor(tls.base, 1), `${tls.base}/`);
    expect(r.error).toMatch(/SELF_SIGNED|UNABLE_TO_VERIFY|DEPTH_ZERO/);
  });
});

describe('raw PUT: the body goes out with its head', () => {
  const received: {
    method: string;
    url: string;
    contentLength: string | undefined;
    bytes: number;
    md5: string;
  }[] = [];
  let putServer: http.Server;
  let putBase: string;
  let putConnections = 0;

  beforeAll(async () => {
    putServer = http.createServer((req, res) => {
      const hash = createHash('md5');
      let bytes = 0;
      req.on('data', (c: Buffer) => {
        hash.update(c);
        bytes += c.length;
      });
      req.on('end', () => {
        received.push({
          method: req.method!,
          url: req.url!,
          contentLength: req.headers['content-length'],
          bytes,
          md5: hash.digest('base64'),
        });
        if (req.url === '/denied') {
          res.writeHead(403, { 'content-type': 'application/xml' });
          return void res.end('<?xml version="1.0"?><Error><Code>AuthorizationFailure</Code></Error>');
        }
        res.writeHead(201, { 'content-length': 0 });
        res.end();
      });
    });
    putServer.on('connection', () => putConnections++);
    putBase = await listen(putServer);
  });
  afterAll(() => close(putServer));

  it(
    'sends the exact body with its Content-Length, answered 201; the socket is ' + 'reused and phases add up',
    async () => {
      received.length = 0;
      const before = putConnections;
      const pool = poolFor(putBase, 1);
      const bodies = [BODY.subarray(0, 100 * 1024), BODY, Buffer.alloc(0)];
      const results: TracedResult[] = [];
      for (const [i, body] of bodies.entries()) {
        // A caller's own Content-Length is replaced by the body's real one.
        results.push(
          await rawRequest({
            url: new URL(`${putBase}/file-${i}?comp=block`),
            method: 'PUT',
            body,
            headers: { 'content-length': '1', 'x-ms-blob-type': 'BlockBlob' },
            pool,
            expectStatus: [201],
          }),
        );
      }
      expect(results.map((r) => [r.status, r.error])).toEqual([
        [201, undefined],
        [201, undefined],
        [201, undefined],
      ]);
      expect(received).toEqual(
        bodies.map((b, i) => ({
          method: 'PUT',
          url: `/file-${i}?comp=block`,
          contentLength: String(b.length),
          bytes: b.length,
          md5: md5(b),
        })),
      );
      expect(results.map((r) => r.reused)).toEqual([false, true, true]);
      expect(putConnections - before).toBe(1);
      for (const r of results) {
        expect(r.phases.send).toBeGreaterThanOrEqual(0);
        expect(r.phases.firstByte).toBeGreaterThanOrEqual(0);
        expectPhasesAddUp(r);
      }
      expect(results[0]!.phases.tcp).toBeGreaterThanOrEqual(0);
    },
  );

  it(
    'a head made before the barrier (wireHead) goes on the wire byte for byte as the one made for ' +
      'the request',
    async () => {
      const heads: string[] = [];
      const srv = await rawServer((s) => {
        let got = Buffer.alloc(0);
        s.on('data', (d: Buffer) => {
          got = Buffer.concat([got, d]);
          const end = got.indexOf('\r\n\r\n');
          if (end < 0 || got.length < end + 4 + 1000) return;
          heads.push(got.toString('latin1', 0, end + 4));
          got = got.subarray(end + 4 + 1000);
          s.write('HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n');
        });
      });
      try {
        const pool = poolFor(srv.url, 1);
        const request = {
          url: new URL(`${srv.url.replace('http://', 'http://user:pw@')}/dir/a%20b?comp=block`),
          method: 'PUT' as const,
          body: BODY.subarray(0, 1000),
          headers: { 'content-length': '1000', 'x-ms-blob-type': 'BlockBlob' },
          expectStatus: [201],
        };
        const made = await pool.request(request);
        const prebuilt = await pool.request({ ...request, head: wireHead(request) });
        expect([made.error, prebuilt.error, prebuilt.reused]).toEqual([undefined, undefined, true]);
        expect(heads).toHaveLength(2);
        expect(heads[1]).toBe(heads[0]);
        expect(heads[0]).toMatch(/^PUT \/dir\/a%20b\?comp=block HTTP\/1\.1\r\n.*authorization: Basic /is);
      } finally {
        await srv.stop();
      }
    },
  );

  it(
    "a socket idle past a request's timeout is still reused: the timeout kept between requests ends " +
      'only a request',
    async () => {
      const pool = poolFor(putBase, 1);
      const first = await rawRequest({
        url: new URL(`${putBase}/t1`),
        method: 'PUT',
        body: BODY.subarray(0, 10),
        headers: {},
        pool,
        expectStatus: [201],
        timeoutMs: 50,
      });
      await sleep(200);
      const second = await rawRequest({
        url: new URL(`${putBase}/t2`),
        method: 'PUT',
        body: BODY.subarray(0, 10),
        headers: {},
        pool,
        expectStatus: [201],
        timeoutMs: 50,
      });
      expect([first.error, second.error, second.reused]).toEqual([undefined, undefined, true]);
    },
  );

  it('an error answer to a PUT names its status and code; the socket stays usable', async () => {
    const pool = poolFor(putBase, 1);
    const r = await rawRequest({
      url: new URL(`${putBase}/denied`),
      method: 'PUT',
      body: BODY.subarray(0, 1000),
      headers: {},
      pool,
      expectStatus: [201],
    });
    expect(r.status).toBe(403);
    expect(r.error).toBe('HTTP 403 AuthorizationFailure');
    const again = await rawRequest({
      url: new URL(`${putBase}/after`),
      method: 'PUT',
      body: BODY.subarray(0, 10),
      headers: {},
      pool,
      expectStatus: [201],
    });
    expect(again.error).toBeUndefined();
    expect(again.reused).toBe(true);
  });

  it(
    'an answer that comes before the body is all sent closes that connection: the rest of the body ' +
      'is never read as a request',
    async () => {
      let accepted = 0;
      const srv = await rawServer((s) => {
        const n = ++accepted;
        let got = Buffer.alloc(0);
        s.on('data', (d: Buffer) => {
          if (n === 1) {
            // Refuse at once and stop reading: the client's 8 MiB cannot all be sent.
            s.pause();
            s.write('HTTP/1.1 413 Payload Too Large\r\nContent-Length: 0\r\n\r\n');
            return;
          }
          got = Buffer.concat([got, d]);
          const headEnd = got.indexOf('\r\n\r\n');
          const length = Number(
            /content-length: (\d+)/i.exec(got.toString('latin1', 0, Math.max(0, headEnd)))?.[1] ?? NaN,
          );
          if (headEnd >= 0 && got.length - headEnd - 4 >= length)
            s.write('HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n');
        });
      });
      try {
        const pool = poolFor(srv.url, 1);
        const big = await rawRequest({
          url: new URL(`${srv.url}/big`),
          method: 'PUT',
          body: Buffer.alloc(8 * 1024 * 1024, 7),
          headers: {},
          pool,
          expectStatus: [201],
          timeoutMs: 5000,
        });
        expect(big.error).toBe('HTTP 413 Payload Too Large');
        const small = await rawRequest({
          url: new URL(`${srv.url}/small`),
          method: 'PUT',
          body: BODY.subarray(0, 5000),
          headers: {},
          pool,
          expectStatus: [201],
          timeoutMs: 5000,
        });
        expect(small.error).toBeUndefined();
        expect(small.reused).toBe(false);
        expect(accepted).toBe(2);
      } finally {
        await srv.stop();
      }
    },
  );
});
