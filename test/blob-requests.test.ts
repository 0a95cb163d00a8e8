// Put Block List from the coordinator: the XML it sends, retried through the one request path
// against a real http server that answers 503 first, and committed for real in embedded Azurite.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STORAGE_API_VERSION } from '../src/storage/api-version.js';
import { blockListXml, commitBlockList } from '../src/storage/blob-requests.js';
import { RequestSigner, type TargetInfo } from '../src/storage/target.js';
import { rawRequest, RawPool } from '../src/transport/raw-client.js';
import { containerOf, startEmbeddedAzurite, type EmbeddedAzurite } from './helpers/azurite.js';
import { close, deterministicBuffer, listen } from './helpers/http-servers.js';

const ACCOUNT = 'devstoreaccount1';
const KEY = Buffer.alloc(64, 3).toString('base64');
const BLOCK_IDS = ['YmxvY2stMDA=', 'YmxvY2stMDE='];

interface Seen {
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** Answers each request with the next of `statuses` (the last one repeats), recording what it got. */
async function statusServer(statuses: number[]): Promise<{ server: http.Server; url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const status = statuses[Math.min(seen.length, statuses.length) - 1]!;
      if (status === 201) return void res.writeHead(201, { 'content-length': 0 }).end();
      const code = status === 503 ? 'ServerBusy' : 'InternalError';
      res.writeHead(status, { 'x-ms-error-code': code, 'content-type': 'application/xml' });
      res.end(
        `<?xml version="1.0" encoding="utf-8"?><Error><Code>${code}</Code><Message>try ` +
          `again</Message></Error>`,
      );
    });
  });
  return { server, url: await listen(server), seen };
}

const blobTarget = (endpoint: string, key = KEY, account = ACCOUNT): TargetInfo => ({
  kind: 'blob',
  embedded: false,
  endpoint,
  container: 'uploads',
  account,
  key,
});

describe('commitBlockList', () => {
  it(
    'retries a 503, then succeeds: one record with the retry counted, the same ' + 'signed XML both times',
    async () => {
      const { server, url, seen } = await statusServer([503, 201]);
      try {
        const record = await commitBlockList(blobTarget(`${url}/${ACCOUNT}`), 'run/big.bin', BLOCK_IDS, {
          timeoutMs: 5000,
          maxRetries: 3,
        });
        expect(record).toMatchObject({
          worker: -1,
          item: -1,
          offsetBytes: 0,
          bytes: 0,
          status: 201,
          retries: 1,
          throttled: 1,
        });
        expect(record.error).toBeUndefined();
        expect(record.phases.retry).toBeGreaterThanOrEqual(0);
        const phaseSumMs = Object.values(record.phases).reduce((s: number, v) => s + (v ?? 0), 0);
        expect(phaseSumMs).toBeCloseTo(record.totalMs, 6);
        expect(seen).toHaveLength(2);
        for (const s of seen) {
          expect(s.url).toBe(`/${ACCOUNT}/uploads/run/big.bin?comp=blocklist`);
          expect(s.body).toBe(blockListXml(BLOCK_IDS).toString('utf8'));
          expect(s.body).toContain(`<Latest>${BLOCK_IDS[0]}</Latest><Latest>${BLOCK_IDS[1]}</Latest>`);
          expect(s.headers['x-ms-version']).toBe(STORAGE_API_VERSION);
          expect(s.headers.authorization).toMatch(new RegExp(`^SharedKey ${ACCOUNT}:`));
        }
      } finally {
        await close(server);
      }
    },
  );

  it('a failure that lasts: the error code after exactly maxRetries retries', async () => {
    const { server, url, seen } = await statusServer([500]);
    try {
      const record = await commitBlockList(blobTarget(`${url}/${ACCOUNT}`), 'b', BLOCK_IDS, {
        timeoutMs: 5000,
        maxRetries: 2,
      });
      expect(record.error).toBe('HTTP 500 InternalError');
      expect(record.retries).toBe(2);
      expect(seen).toHaveLength(3);
    } finally {
      await close(server);
    }
  });

  it('a server that never answers: each try ends at timeoutMs', async () => {
    const silent = http.createServer(() => {});
    const url = await listen(silent);
    try {
      const record = await commitBlockList(blobTarget(`${url}/${ACCOUNT}`), 'b', BLOCK_IDS, {
        timeoutMs: 200,
        maxRetries: 1,
      });
      expect(record.error).toBe('ETIMEDOUT: no data for 200 ms');
      expect(record.retries).toBe(1);
    } finally {
      await close(silent);
    }
  });
});

describe('commitBlockList in embedded Azurite', () => {
  let azurite: EmbeddedAzurite;
  beforeAll(async () => {
    azurite = await startEmbeddedAzurite();
    await containerOf(azurite, 'uploads').create();
  });
  afterAll(() => azurite.stop());

  it('commits staged blocks into a blob that reads back whole', async () => {
    const info = blobTarget(azurite.endpoint, azurite.key, azurite.account);
    const signer = new RequestSigner(info);
    const parts = [deterministicBuffer(70_000, 1), deterministicBuffer(30_001, 2)];
    const pool = new RawPool(new URL(azurite.endpoint), 1, 16 * 1024);
    try {
      for (const [i, part] of parts.entries()) {
        const url = signer.blobUrl('run/committed.bin');
        url.searchParams.set('comp', 'block');
        url.searchParams.set('blockid', BLOCK_IDS[i]!);
        const r = await rawRequest({
          url,
          method: 'PUT',
          body: part,
          headers: signer.headers('PUT', url, { 'content-length': String(part.length) }),
          pool,
          expectStatus: [201],
        });
        expect(r.error).toBeUndefined();
      }
    } finally {
      pool.destroy();
    }
    const record = await commitBlockList(info, 'run/committed.bin', BLOCK_IDS, {
      timeoutMs: 5000,
      maxRetries: 0,
    });
    expect(record.error).toBeUndefined();
    expect(record.status).toBe(201);
    const stored = await containerOf(azurite, 'uploads')
      .getBlobClient('run/committed.bin')
      .downloadToBuffer();
    expect(stored.equals(Buffer.concat(parts))).toBe(true);
  });
});
