// Answers that lie: a 206 whose Content-Range is not the range asked for fails
// its request; a body that runs past what was asked for (an endless one included) is cut off; and a
// plain URL's bytes, which nothing vouches for, are "not verified (why)", never "ok", in the run
// record and in every report format.
import http from 'node:http';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DownloadConfig } from '../src/config/load.js';
import { runDownload } from '../src/engine/download.js';
import { setLogLevel } from '../src/log/logger.js';
import { runCli } from './helpers/cli.js';
import { close, deterministicBuffer, listen } from './helpers/http-servers.js';
import { testConfig, type TestSettings } from './helpers/config.js';

/**
 * Failed, as the run record says it (written out here so the test also runs against code without the helper).
 */
const runFailed = (r: { verified: boolean; notVerified?: string; error?: string }) =>
  !r.verified && (r.notVerified === undefined || r.error !== undefined);

const SIZE = 1024 * 1024;
const body = deterministicBuffer(SIZE);
type Lie = 'wrong-content-range' | 'endless-206' | 'extra-bytes-200' | 'none';

/** A plain server that answers HEAD truthfully and GETs with `lie`. */
function lyingServer(lie: Lie): http.Server {
  return http.createServer((req, res) => {
    if (req.method === 'HEAD') return void res.writeHead(200, { 'content-length': SIZE }).end();
    const m = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
    if (!m) {
      if (lie === 'extra-bytes-200') {
        // A whole-object answer that keeps going past the size HEAD gave (chunked, so no length to trip).
        res.writeHead(200, { 'transfer-encoding': 'chunked' });
        res.write(body);
        res.end(body.subarray(0, 4096));
        return;
      }
      return void res.writeHead(200, { 'content-length': SIZE }).end(body);
    }
    const [first, last] = [Number(m[1]), Number(m[2])];
    if (lie === 'wrong-content-range' && first > 0) {
      // The bytes and the header of the first range, whatever was asked for.
      res.writeHead(206, {
        'content-length': last - first + 1,
        'content-range': `bytes 0-${last - first}/${SIZE}`,
      });
      return void res.end(body.subarray(0, last - first + 1));
    }
    if (lie === 'endless-206') {
      res.writeHead(206, {
        'content-range': `bytes ${first}-${last}/${SIZE}`,
        'transfer-encoding': 'chunked',
      });
      const chunk = body.subarray(0, 64 * 1024);
      const more = () => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', more);
      };
      res.on('close', () => res.removeAllListeners('drain'));
      return more();
    }
    res.writeHead(206, {
      'content-length': last - first + 1,
      'content-range': `bytes ${first}-${last}/${SIZE}`,
    });
    res.end(body.subarray(first, last + 1));
  });
}

const configFor = (url: string, o: TestSettings<DownloadConfig>): DownloadConfig =>
  testConfig('download', {
    logLevel: 'error',
    sourceMethod: 'chunked',
    concurrency: 4,
    fileSizeBytes: 0,
    processes: 1,
    maxSockets: 4,
    sink: 'memory',
    bufferSizeBytes: 65536,
    container: 'unused',
    cleanup: false,
    credentials: { kind: 'url', url },
    runs: 1,
    warmup: 0,
    format: 'console',
    maxRetries: 2,
    timeoutMs: 5_000,
    trace: true,
    httpClient: 'raw',
    ...o,
  });

async function withServer<T>(lie: Lie, use: (url: string) => Promise<T>): Promise<T> {
  const server = lyingServer(lie);
  const url = `${await listen(server)}/blob.bin`;
  try {
    return await use(url);
  } finally {
    await close(server);
  }
}

beforeAll(() => setLogLevel('error'));

describe('a 206 must carry the range asked for', () => {
  for (const httpClient of ['raw', 'node'] as const) {
    it(`a 206 with the wrong Content-Range fails the run, not retried (${httpClient} client)`, async () => {
      const run = await withServer('wrong-content-range', (url) =>
        runDownload(configFor(url, { httpClient })),
      );
      const r = run.results[0]!;
      expect(runFailed(r)).toBe(true);
      expect(r.verified).toBe(false);
      expect(r.verification).toMatch(
        /CONTENT_RANGE: "bytes 0-262143\/1048576" where bytes 262144-524287 was asked for/,
      );
      expect(r.retries).toBe(0);
    });
  }

  it('the run with --out keeps the file at .partial, not at --out, and exits 1', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'safety-transport-'));
    try {
      const run = await withServer('wrong-content-range', (url) =>
        runCli(
          [
            'download',
            '--url',
            url,
            '--source-method',
            'chunked',
            '--sink',
            'file',
            '--out',
            'blob.bin',
            '--results',
            'r.json',
            '--log-level',
            'error',
          ],
          { cwd: dir },
        ),
      );
      expect(run.code, run.stderr).toBe(1);
      expect(run.stdout).toContain('FAILED');
      expect((await readdir(dir)).sort()).toEqual(['blob.bin.partial', 'r.json']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('with nothing to compare, the record and all formats say "not verified (why)", never "ok"', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'safety-transport-'));
    try {
      await withServer('none', async (url) => {
        const run = await runCli(
          [
            'download',
            '--url',
            url,
            '--source-method',
            'single',
            '--results',
            'r.json',
            '--log-level',
            'error',
          ],
          { cwd: dir },
        );
        expect(run.code, run.stderr).toBe(0);
        expect(run.stdout).toMatch(/not verified \(plain URL: no source MD5/);
        expect(run.stdout).not.toMatch(/\sok$/m);
        const doc = JSON.parse(
          await import('node:fs/promises').then((fs) => fs.readFile(join(dir, 'r.json'), 'utf8')),
        ) as { runs: { verified: boolean; notVerified?: string; verification: string }[] };
        expect(doc.runs[0]).toMatchObject({
          verified: false,
          notVerified: expect.stringMatching(/^plain URL/),
          verification: expect.stringMatching(/^not verified \(/),
        });
        for (const format of ['md', 'csv', 'json', 'html']) {
          const out = await runCli(['report', 'r.json', '--format', format], { cwd: dir });
          expect(out.code, `${format}: ${out.stderr}`).toBe(0);
          expect(out.stdout, format).toMatch(
            format === 'json' ? /"notVerified": "plain URL/ : /not verified/,
          );
          expect(out.stdout, format).not.toMatch(/✓ ok|\| ok \|/);
        }
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('bodies past what was asked for are cut off', () => {
  for (const httpClient of ['raw', 'node'] as const) {
    it(`an endless chunked 206 body is cut off at the range and fails (${httpClient} client)`, {
      timeout: 30_000,
    }, async () => {
      const run = await withServer('endless-206', (url) => runDownload(configFor(url, { httpClient })));
      const r = run.results[0]!;
      expect(runFailed(r)).toBe(true);
      expect(r.verification).toMatch(/EXTRA_BYTES: the body ran past the 262144 bytes asked for/);
    });
  }

  it('a 200 whose body runs past the size HEAD gave fails the request', async () => {
    const run = await withServer('extra-bytes-200', (url) =>
      runDownload(configFor(url, { sourceMethod: 'single' })),
    );
    expect(runFailed(run.results[0]!)).toBe(true);
    expect(run.results[0]!.verification).toMatch(/EXTRA_BYTES/);
  });

  it('an endless body with --duration ends with the run', { timeout: 30_000 }, async () => {
    const run = await withServer('endless-206', (url) =>
      runDownload(configFor(url, { steady: { durationMs: 500, intervalMs: 100 } })),
    );
    expect(run.results.length).toBe(1);
    expect(runFailed(run.results[0]!)).toBe(true);
  });
});

afterAll(() => setLogLevel('info'));
