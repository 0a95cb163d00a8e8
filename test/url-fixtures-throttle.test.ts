// Fixtures on a plain URL target that throttles (503 ServerBusy): the HEADs and PUTs that make a
// fixture set are retried as every other request is, and an answer still throttled after the
// retries is said as throttling, never as a missing file that needs PUT allowed.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureUrlFixtures } from '../src/fixture-setup/url-fixtures.js';
import { contentBuffer, FIXTURE_SEED } from '../src/payload/content.js';

const BUSY =
  '<?xml version="1.0" encoding="utf-8"?><Error><Code>ServerBusy</Code>' +
  '<Message>Operations per second is over the account limit.</Message></Error>';
let server: http.Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

interface Throttling {
  origin: string;
  files: Map<string, Buffer>;
  busy: () => number;
}

/**
 * A writable server: 503 to the first `busyTries` of each method on each path, always to `alwaysBusy` ones.
 */
async function throttling(busyTries: number, alwaysBusy: readonly string[] = []): Promise<Throttling> {
  const files = new Map<string, Buffer>();
  const seen = new Map<string, number>();
  let busy = 0;
  server = http.createServer((req, res) => {
    const key = `${req.method} ${req.url}`;
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (n < busyTries || alwaysBusy.includes(req.method!)) {
        busy++;
        res.writeHead(503, {
          'x-ms-error-code': 'ServerBusy',
          'retry-after': '0',
          'content-type': 'application/xml',
        });
        res.end(BUSY);
        return;
      }
      const body = files.get(req.url!);
      if (req.method === 'PUT') {
        files.set(req.url!, Buffer.concat(chunks));
        return void res.writeHead(201).end();
      }
      if (!body) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-length': body.length }).end(req.method === 'HEAD' ? undefined : body);
    });
  });
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
  return { origin: `http://127.0.0.1:${(server!.address() as AddressInfo).port}`, files, busy: () => busy };
}

const SPECS = [
  { blob: 'a.bin', offsetBytes: 0, lengthBytes: 5000 },
  { blob: 'b.bin', offsetBytes: 5000, lengthBytes: 3000 },
];
const fixtures = (origin: string, maxRetries: number) =>
  ensureUrlFixtures({ kind: 'url', url: `${origin}/d/` }, [SPECS], { timeoutMs: 5_000, maxRetries });
const failure = (origin: string, maxRetries: number) =>
  fixtures(origin, maxRetries).then(
    () => undefined,
    (e: Error) => e,
  );

describe('fixtures on a throttling URL target', () => {
  it('retries the HEADs and PUTs that are throttled, and the files land', async () => {
    const s = await throttling(2);
    const state = await fixtures(s.origin, 3);
    expect(state.created.sort()).toEqual(['a.bin', 'b.bin']);
    expect(s.busy()).toBeGreaterThanOrEqual(8);
    expect(s.files.get('/d/a.bin')!.equals(contentBuffer(FIXTURE_SEED, 0, 5000))).toBe(true);
    expect(s.files.get('/d/b.bin')!.equals(contentBuffer(FIXTURE_SEED, 5000, 3000))).toBe(true);
  });

  it('a HEAD still throttled after its retries is said as throttling, not as a missing file', async () => {
    const s = await throttling(0, ['HEAD']);
    const err = await failure(s.origin, 2);
    expect(err).toBeInstanceOf(Error);
    expect(err!.message).toMatch(/throttl/);
    expect(err!.message).not.toMatch(/missing|allow PUT/);
    // Nothing was PUT over a file that may well be there.
    expect(s.files.size).toBe(0);
  });

  it('a PUT still throttled after its retries is said as throttling, not as a refusal', async () => {
    const s = await throttling(0, ['PUT']);
    const err = await failure(s.origin, 1);
    expect(err!.message).toMatch(/throttl/);
    expect(err!.message).not.toMatch(/allow PUT/);
  });
});
