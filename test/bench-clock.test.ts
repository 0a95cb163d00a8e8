// The benchmark suite's server clock (bench/lib/server-clock.ts), which decides its goals: a real
// embedded Azurite watched in-process, and nginx access-log lines in the suite's own format (a real
// nginx too, where one is installed). Only data requests count: container calls, HEADs, listings
// and tiny probes before or after them must not stretch the span.
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { BlobServiceClient, StorageSharedKeyCredential } from '@azure/storage-blob';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startNginx } from '../bench/lib/nginx.js';
import { AzuriteClock, nginxClock } from '../bench/lib/server-clock.js';
import { startEmbeddedAzurite, type EmbeddedAzurite } from './helpers/azurite.js';
import { NGINX_PATH, requires } from './helpers/requires.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const GAP_MS = 300;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'bc-clock-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('Azurite clock', () => {
  let azurite: EmbeddedAzurite;
  const clock = new AzuriteClock();
  beforeAll(async () => {
    azurite = await startEmbeddedAzurite();
    clock.watch(azurite.httpServer);
  });
  afterAll(() => azurite?.stop());

  it(
    'spans the data requests only: Put Blob, Put Block and Put Block List; GETs of ' + 'blob bodies',
    async () => {
      const container = new BlobServiceClient(
        azurite.endpoint,
        new StorageSharedKeyCredential(azurite.account, azurite.key),
      ).getContainerClient('clock');
      const mark = clock.mark();
      // A control call, then a pause: it must not stretch the upload's span.
      await container.create();
      await sleep(GAP_MS);
      const t0 = performance.now();
      const blob = container.getBlockBlobClient('a');
      await blob.upload(Buffer.alloc(100_000, 1), 100_000);
      const id = Buffer.from('000001').toString('base64');
      const staged = container.getBlockBlobClient('b');
      await staged.stageBlock(id, Buffer.alloc(50_000, 2), 50_000);
      await staged.commitBlockList([id]);
      const uploadMs = performance.now() - t0;
      await sleep(GAP_MS);
      await blob.getProperties();
      const t1 = performance.now();
      await blob.downloadToBuffer();
      const getMs = performance.now() - t1;
      await sleep(GAP_MS);
      // A listing is a GET too, but no blob body.
      for await (const _ of container.listBlobsFlat()) void _;

      const put = clock.span(mark, 'PUT');
      const get = clock.span(mark, 'GET');
      expect(put).toBeGreaterThan(0);
      expect(put!).toBeLessThanOrEqual(uploadMs);
      expect(get).toBeGreaterThan(0);
      expect(get!).toBeLessThanOrEqual(getMs);
      // Nothing after a later mark: spans are per run.
      expect(clock.span(clock.mark(), 'PUT')).toBeUndefined();
    },
  );
});

describe('nginx clock', () => {
  it(
    'reads its own log format: start = $msec - $request_time; HEADs and small ' + 'probe PUTs are not data',
    () => {
      const log = join(dir, 'access.log');
      writeFileSync(log, '1000.000 0.500 GET 200 1048576 120\n');
      const clock = nginxClock(log);
      const mark = clock.mark();
      appendFileSync(
        log,
        [
          '2000.000 0.001 HEAD 200 0 90', // preflight
          '2000.100 0.050 PUT 201 0 150', // our upload probe: a few bytes
          '2001.000 0.400 GET 206 4194304 140', // 2000.600 -> 2001.000
          '2001.500 0.700 GET 206 4194304 140', // 2000.800 -> 2001.500
          '2001.700 0.100 GET 404 150 140', // not an answer with data
          '2002.000 0.300 PUT 201 0 102600', // 2001.700 -> 2002.000
          '',
        ].join('\n'),
      );
      expect(clock.span(mark, 'GET')).toBeCloseTo(900, 6);
      expect(clock.span(mark, 'PUT')).toBeCloseTo(300, 6);
      // The line before the mark belongs to another run.
      expect(clock.span(0, 'GET')).toBeCloseTo(2_001_500 - 999_500, 3);
    },
  );

  requires('nginx').it('a real nginx writes that format, and a GET of a file is spanned by it', async () => {
    const nginx = await startNginx(NGINX_PATH, join(dir, 'nginx'));
    try {
      writeFileSync(join(nginx.rootDir, 'f.bin'), Buffer.alloc(2 * 1024 * 1024, 3));
      const mark = nginx.clock.mark();
      await (await fetch(nginx.url('f.bin'), { method: 'HEAD' })).arrayBuffer();
      const t0 = performance.now();
      const body = await (await fetch(nginx.url('f.bin'))).arrayBuffer();
      const getMs = performance.now() - t0;
      expect(body.byteLength).toBe(2 * 1024 * 1024);
      const span = nginx.clock.span(mark, 'GET');
      expect(span).toBeGreaterThanOrEqual(0);
      // 1 ms resolution on nginx's side.
      expect(span!).toBeLessThanOrEqual(getMs + 1);
      expect(nginx.clock.span(mark, 'PUT')).toBeUndefined();
    } finally {
      await nginx.stop();
    }
  });
});
