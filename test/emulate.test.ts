// The emulated target: it stores and serves like a plain server, never lets a connection or all of
// them together go faster than their pace (upper bounds only: load can slow a test, never speed the
// server up), throttles past its request rate with Azure's body, and stalls exactly one in K.
import http from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { StragglerPlan, TokenBucket } from '../src/emulate/buckets.js';
import {
  OPS_LIMIT_BODY,
  startEmulatedTarget,
  type EmulatedTarget,
  type EmulateOptions,
} from '../src/emulate/server.js';
import { deterministicBuffer } from './helpers/http-servers.js';

const MiB = 1024 * 1024;
let target: EmulatedTarget | undefined;
afterEach(async () => {
  await target?.close();
  target = undefined;
});

async function start(options: EmulateOptions): Promise<EmulatedTarget> {
  target = await startEmulatedTarget(options);
  return target;
}

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  ms: number;
}

function request(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: Buffer; agent?: http.Agent } = {},
): Promise<Answer> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: init.method ?? 'GET', headers: init.headers, agent: init.agent ?? false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            headers: res.headers,
            body: Buffer.concat(chunks),
            ms: performance.now() - started,
          }),
        );
      },
    );
    req.setTimeout(20_000, () => req.destroy(new Error('no answer in 20 s')));
    req.on('error', reject);
    req.end(init.body);
  });
}

describe('emulated target', () => {
  it('stores with PUT, serves whole and ranged GETs and HEAD, deletes', async () => {
    const t = await start({});
    const body = deterministicBuffer(100_000);
    expect((await request(`${t.url}/a/b.bin`, { method: 'PUT', body })).status).toBe(201);
    expect((await request(`${t.url}/a/b.bin`, { method: 'PUT', body })).status).toBe(204);
    const whole = await request(`${t.url}/a/b.bin`);
    expect(whole.status).toBe(200);
    expect(whole.body.equals(body)).toBe(true);
    const part = await request(`${t.url}/a/b.bin`, { headers: { range: 'bytes=1000-1999' } });
    expect(part.status).toBe(206);
    expect(part.headers['content-range']).toBe('bytes 1000-1999/100000');
    expect(part.body.equals(body.subarray(1000, 2000))).toBe(true);
    expect((await request(`${t.url}/a/b.bin`, { headers: { range: 'bytes=200000-' } })).status).toBe(416);
    expect((await request(`${t.url}/a/b.bin`, { method: 'HEAD' })).headers['content-length']).toBe('100000');
    expect((await request(`${t.url}/a/`, { method: 'DELETE' })).status).toBe(204);
    expect((await request(`${t.url}/a/b.bin`)).status).toBe(404);
    expect(t.log.byMethod).toMatchObject({ PUT: 2, GET: 4, HEAD: 1, DELETE: 1 });
    expect(t.log.bytesIn).toBe(200_000);
  });

  it('one connection never goes faster than its pace, in either direction', async () => {
    const body = deterministicBuffer(2 * MiB);
    const t = await start({ perConnectionBytesPerSecond: 8 * MiB, objects: new Map([['/x', body]]) });
    const got = await request(`${t.url}/x`);
    expect(got.body.equals(body)).toBe(true);
    // 2 MiB at 8 MiB/s, less the first burst (1/100 s of the rate): at least ~240 ms.
    expect(got.ms).toBeGreaterThanOrEqual(((2 * MiB - (8 * MiB) / 100) / (8 * MiB)) * 1000 - 5);
    const put = await request(`${t.url}/y`, { method: 'PUT', body });
    expect(put.status).toBe(201);
    expect(put.ms).toBeGreaterThanOrEqual(((2 * MiB - (8 * MiB) / 100) / (8 * MiB)) * 1000 - 5);
  });

  it(
    'connections together never go faster than the total, so the best concurrency ' + 'is about R / r',
    async () => {
      const body = deterministicBuffer(1 * MiB);
      const t = await start({
        perConnectionBytesPerSecond: 4 * MiB,
        totalBytesPerSecond: 8 * MiB,
        objects: new Map([['/x', body]]),
      });
      const started = performance.now();
      const answers = await Promise.all(Array.from({ length: 4 }, () => request(`${t.url}/x`)));
      const seconds = (performance.now() - started) / 1000;
      expect(answers.every((a) => a.body.equals(body))).toBe(true);
      // 4 MiB through an 8 MiB/s cap (less its one burst): at least ~0.49 s whatever the load.
      expect(seconds).toBeGreaterThanOrEqual((4 * MiB - (8 * MiB) / 100) / (8 * MiB) - 0.005);
      expect(t.log.bytesOut).toBe(4 * MiB);
    },
  );

  it("past its request rate it answers 503 ServerBusy with Azure's account-limit body", async () => {
    const t = await start({ opsPerSecond: 5, objects: new Map([['/x', Buffer.from('x')]]) });
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => request(`${t.url}/x`, { method: 'HEAD', agent })),
    );
    agent.destroy();
    const busy = answers.filter((a) => a.status === 503);
    // 20 requests: at most 5 a second are admitted; they all go out well within 2 s here.
    expect(busy.length).toBe(t.log.throttled);
    expect(answers.length - busy.length).toBeLessThanOrEqual(10);
    expect(busy.length).toBeGreaterThanOrEqual(10);
    expect(busy[0]!.headers['x-ms-error-code']).toBe('ServerBusy');
    const get = await request(`${t.url}/x`);
    if (get.status === 503) expect(get.body.toString()).toBe(OPS_LIMIT_BODY);
    expect(OPS_LIMIT_BODY).toContain('Operations per second is over the account limit');
  });

  it('stalls exactly one request in K, the same ones for the same seed', async () => {
    const plan = (seed: number) => {
      const p = new StragglerPlan(10, seed);
      return Array.from({ length: 100 }, (_, i) => p.stalls(i)).flatMap((s, i) => (s ? [i] : []));
    };
    expect(plan(7)).toHaveLength(10);
    expect(plan(7)).toEqual(plan(7));
    expect(plan(7)).not.toEqual(plan(8));
    for (const [i, index] of plan(7).entries()) expect(Math.floor(index / 10)).toBe(i);

    const t = await start({
      stragglers: { every: 5, stallMs: 300, at: 'first-byte', seed: 7 },
      objects: new Map([['/x', deterministicBuffer(1000)]]),
    });
    const stalledIndexes = plan5(7);
    const times: number[] = [];
    for (let i = 0; i < 10; i++) times.push((await request(`${t.url}/x`)).ms);
    expect(t.log.stalled).toBe(2);
    // The stalled ones took at least the stall; load can only add to the others.
    for (const i of stalledIndexes) expect(times[i]).toBeGreaterThanOrEqual(295);
  });

  it('a mid-body stall sends the first half, then waits, and the body still arrives whole', async () => {
    const body = deterministicBuffer(200_000);
    const t = await start({
      stragglers: { every: 1, stallMs: 200, at: 'mid-body', seed: 1 },
      objects: new Map([['/x', body]]),
    });
    const got = await new Promise<{ firstHalfMs: number; totalMs: number; body: Buffer }>(
      (resolve, reject) => {
        const started = performance.now();
        http
          .get(`${t.url}/x`, { agent: false }, (res) => {
            const chunks: Buffer[] = [];
            let received = 0;
            let firstHalfMs = 0;
            res.on('data', (c: Buffer) => {
              chunks.push(c);
              received += c.length;
              if (received >= 100_000 && !firstHalfMs) firstHalfMs = performance.now() - started;
            });
            res.on('end', () =>
              resolve({ firstHalfMs, totalMs: performance.now() - started, body: Buffer.concat(chunks) }),
            );
          })
          .on('error', reject);
      },
    );
    expect(got.body.equals(body)).toBe(true);
    expect(got.totalMs - got.firstHalfMs).toBeGreaterThanOrEqual(195);
  });

  it('a client that goes away mid-body is counted as abandoned and the server stops sending', async () => {
    const t = await start({
      perConnectionBytesPerSecond: 1 * MiB,
      objects: new Map([['/x', deterministicBuffer(4 * MiB)]]),
    });
    await new Promise<void>((resolve) => {
      const req = http.get(`${t.url}/x`, { agent: false }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', () => {});
    });
    await new Promise((r) => setTimeout(r, 200));
    expect(t.log.abandoned).toBe(1);
    expect(t.log.bytesOut).toBeLessThan(1 * MiB);
  });

  it('a token bucket lends its burst, then charges the debt as waiting time', () => {
    const b = new TokenBucket(1000, 100, 0);
    expect(b.take(100, 0)).toBe(0);
    expect(b.take(100, 0)).toBe(100);
    expect(b.take(0, 100)).toBe(0);
  });
});

/** The stalled request indexes among the first 10 with K = 5 and this seed. */
function plan5(seed: number): number[] {
  const p = new StragglerPlan(5, seed);
  return Array.from({ length: 10 }, (_, i) => p.stalls(i)).flatMap((s, i) => (s ? [i] : []));
}
