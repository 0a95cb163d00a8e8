// Uploads to a plain HTTP(S) server (--url): small-files PUT below the URL under the run prefix,
// verified by reading every file back, deleted unless --keep. Real servers only: an in-memory
// http.createServer PUT/GET/DELETE server (also one that refuses PUT or DELETE, or flips a byte of
// what it stores), and nginx with the WebDAV module where installed. The CLI runs from the build.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentBuffer, FIXTURE_SEED } from '../src/payload/content.js';
import { setLogLevel } from '../src/log/logger.js';
import { runUpload, type UploadRunResult } from '../src/engine/upload.js';
import { buildProgram, loadUploadConfig, parseFlags, type UploadConfig } from '../src/config/load.js';
import { UPLOAD_OPTIONS } from '../src/config/options.js';
import { close, refusingUrl } from './helpers/http-servers.js';
import { readBackMd5 } from '../src/storage/url-store.js';
import { RequestSigner } from '../src/storage/target.js';
import { NodeHttpClient } from '../src/transport/request.js';
import { startNginxDav, type NginxDav } from './helpers/nginx-dav.js';
import { requires } from './helpers/requires.js';
import { pathsUnder, startPutServer, type PutServer, type PutServerOptions } from './helpers/put-server.js';
import { ONE_RUN } from './helpers/cli-env.js';
import { testConfig, type TestSettings } from './helpers/config.js';

const ROOT = resolve(import.meta.dirname, '..');
const CLI_JS = join(ROOT, 'dist', 'cli.js');
let tmp: string;
const servers: PutServer[] = [];

function config(url: string, overrides: TestSettings<UploadConfig> = {}): UploadConfig {
  return testConfig('upload', {
    logLevel: 'error',
    uploadMethod: 'small-files',
    fileCount: 50,
    fileSizeBytes: 10_000,
    blobSizeBytes: 100_000,
    blockSizeBytes: 40_000,
    concurrency: 4,
    thresholdBytes: 0,
    processes: 2,
    maxSockets: 4,
    container: 'unused',
    keep: false,
    httpClient: 'raw',
    credentials: { kind: 'url', url },
    ...overrides,
  });
}

async function server(options: PutServerOptions = {}): Promise<PutServer> {
  const s = await startPutServer(options);
  servers.push(s);
  return s;
}

/** The one result of a small-files run, which must have uploaded and verified without errors. */
function verifiedResult(run: UploadRunResult) {
  expect(run.results.map((r) => r.strategy)).toEqual(['small-files']);
  const r = run.results[0]!;
  expect(r.error).toBeUndefined();
  expect(r.verified, r.verification).toBe(true);
  expect(r.failedRequests).toBe(0);
  return r;
}

const fileName = (prefix: string, i: number) => `${prefix}/small-files/0/file-${String(i).padStart(7, '0')}`;
const countBy = <T>(xs: readonly T[]) =>
  xs.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map<T, number>());

interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
  lines: string[];
}

/** Async on purpose: the servers these runs talk to live in this process's event loop. */
function cli(args: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const cwd = mkdtempSync(join(tmp, 'cli-'));
  return new Promise((done) => {
    const child = spawn(process.execPath, [CLI_JS, 'upload', ...args], {
      cwd,
      env: { ...ONE_RUN, PATH: process.env.PATH ?? '', HOME: cwd, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (status) => {
      clearTimeout(timer);
      done({ status, stdout, stderr, lines: stderr.trim().split('\n') });
    });
  });
}

function expectOneLine(r: CliResult, ...mentions: RegExp[]) {
  expect(r.status, r.stderr).toBe(2);
  expect(r.stdout).toBe('');
  expect(r.lines, r.stderr).toHaveLength(1);
  expect(r.lines[0]).toMatch(/^blob-cacher: /);
  expect(r.stderr).not.toMatch(/\n\s+at |Error:/);
  for (const m of mentions) expect(r.lines[0]).toMatch(m);
}

beforeAll(() => {
  setLogLevel('error');
  if (!existsSync(CLI_JS))
    throw new Error(`${CLI_JS} is missing; build first: node_modules/.bin/tsc -p tsconfig.json`);
  tmp = mkdtempSync(join(tmpdir(), 'blob-cacher-upload-url-'));
});
afterAll(async () => {
  for (const s of servers) await close(s.server);
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('small-files to an in-memory PUT server', () => {
  it(
    '50 x 10000 bytes over 2 processes with --keep: each file below the URL holds the seed bytes, ' +
      'checked by GET',
    async () => {
      const s = await server();
      const run = await runUpload(config(`${s.url}/dav/`, { keep: true }));
      const r = verifiedResult(run);
      expect(r.requests).toBe(50);
      expect(r.bytes).toBe(500_000);
      expect(r.records.every((rec) => rec.status === 201 && rec.bytes === 10_000)).toBe(true);
      expect(Object.fromEntries(countBy(r.records.map((rec) => rec.worker)))).toEqual({ 0: 25, 1: 25 });
      expect(r.verification).toBe('50 file(s) read back with GET: length and MD5 match what was sent');

      // Exactly the run's files, named as for a blob service, under the run prefix below /dav/; the
      // preflight probe is gone.
      const expected = Array.from({ length: 50 }, (_, i) => `/dav/${fileName(run.prefix, i)}`);
      expect(run.prefix).toMatch(/^run-\d{8}T\d{6}-[0-9a-f]{6}$/);
      expect(pathsUnder(s.files, '/')).toEqual(expected);
      for (const [i, path] of expected.entries()) {
        expect(s.files.get(path)!.equals(contentBuffer(FIXTURE_SEED, i * 10_000, 10_000)), path).toBe(true);
      }
      // Plain PUTs: Content-Length, none of the blob service's headers. One probe PUT, 50 files,
      // 50 read-backs.
      const filePuts = s.log.putHeaders.filter((h) => h['content-length'] === '10000');
      expect(filePuts).toHaveLength(50);
      expect(filePuts.some((h) => Object.keys(h).some((k) => k.startsWith('x-ms-')))).toBe(false);
      expect(s.log.puts).toBe(51);
      expect(s.log.gets).toBe(50);
    },
  );

  it(
    'queueing for a socket shows as wait: never more than MAX_SOCKETS PUTs at once, later ones ' +
      'waited for them',
    async () => {
      const s = await server({ delayMs: 40 });
      const run = await runUpload(
        config(`${s.url}/dav/`, { fileCount: 12, processes: 1, maxSockets: 3, keep: true }),
      );
      const r = verifiedResult(run);
      expect(s.log.maxConcurrentPuts).toBeLessThanOrEqual(3);
      // 12 PUTs of >= 40 ms each through 3 sockets: four rounds; the last round waited for three.
      const waits = r.records.map((rec) => rec.phases.wait ?? 0).sort((a, b) => a - b);
      expect(waits.slice(0, 3).every((w) => w < 40)).toBe(true);
      expect(waits.slice(-3).every((w) => w >= 110)).toBe(true);
      for (const rec of r.records) {
        const sum = Object.values(rec.phases).reduce((a, b) => a + (b ?? 0), 0);
        expect(Math.abs(sum - rec.totalMs)).toBeLessThan(0.01);
      }
    },
  );

  it('without --keep, every file and the probe are deleted afterwards', async () => {
    const s = await server();
    const run = await runUpload(config(`${s.url}/dav`, { fileCount: 20, processes: 1 }));
    expect(verifiedResult(run).requests).toBe(20);
    expect(s.log.puts).toBe(21);
    expect(s.files.size).toBe(0);
    // Probe, the run's folder at once (a 404 here: this server deletes files only), 20 files, and
    // the session's folder at close (a 404 again, which is fine).
    expect(s.log.deletes).toBe(23);
  });

  it('--upload-method all runs small-files only', async () => {
    const s = await server();
    const run = await runUpload(config(`${s.url}/dav/`, { uploadMethod: 'all', fileCount: 6, processes: 1 }));
    expect(verifiedResult(run).requests).toBe(6);
    expect(s.files.size).toBe(0);
  });

  it('a server that answers 200 to PUT: accepted as success', async () => {
    const s = await server({ putStatus: 200 });
    const run = await runUpload(config(`${s.url}/up/`, { fileCount: 8, processes: 1, keep: true }));
    const r = verifiedResult(run);
    expect(r.records.map((rec) => rec.status)).toEqual(Array(8).fill(200));
    expect(pathsUnder(s.files, `/up/${run.prefix}/`)).toHaveLength(8);
  });

  it(
    'a server that flips a byte of one file it stores: not verified, naming that ' + 'file; still cleaned up',
    async () => {
      const s = await server({ corrupt: (path) => path.endsWith('/file-0000003') });
      const run = await runUpload(config(`${s.url}/dav/`, { fileCount: 20, processes: 2 }));
      const r = run.results[0]!;
      expect(r.failedRequests).toBe(0);
      expect(r.requests).toBe(20);
      expect(r.verified).toBe(false);
      expect(r.verification).toMatch(
        new RegExp(
          String.raw`^1 of 20 file\(s\) read back wrong; first: MD5 MISMATCH for ` +
            String.raw`run-[^/]+\/small-files\/0\/file-0000003: got `,
        ),
      );
      expect(s.files.size).toBe(0);
    },
  );

  it('past 10,000 files a worker (each URL made as its request goes out) and 20,000 a run (each ' +
    'worker checks its share and sends a sample): all PUT, read back, counted ' +
    'and deleted as below that', async () => {
    const s = await server({ deleteFolders: 'yes' });
    const r = verifiedResult(
      await runUpload(
        config(`${s.url}/dav/`, { fileCount: 20_050, fileSizeBytes: 16, processes: 2, maxSockets: 16 }),
      ),
    );
    expect(r.requests).toBe(20_050);
    expect(r.bytes).toBe(20_050 * 16);
    expect(r.verification).toBe('20050 file(s) read back with GET: length and MD5 match what was sent');
    // The records a results file keeps: 10,000 a worker, evenly spaced over its share.
    expect(r.recordsSampled).toBe(true);
    expect(r.records.length).toBe(20_000);
    const items = Array.from({ length: r.records.length }, (_, i) => r.records.get('item', i)).sort(
      (a, b) => a - b,
    );
    expect(new Set(items).size).toBe(20_000);
    expect(items[0]).toBe(0);
    expect(items.at(-1)).toBeGreaterThan(20_040);
    expect(r.workers.map((w) => w.requests)).toEqual([10_025, 10_025]);
    expect(s.log.puts).toBe(20_050 + 1);
    expect(s.log.gets).toBe(20_050);
    expect(s.files.size).toBe(0);
  }, 60_000);

  it('past 20,000 files a run, a failed PUT is kept among the sampled records, named, and the run ' +
    'fails; the rest are still deleted', async () => {
    const s = await server({
      deleteFolders: 'yes',
      failPut: (path) => (path.endsWith('/file-0000777') ? 403 : undefined),
    });
    const r = (
      await runUpload(
        config(`${s.url}/dav/`, { fileCount: 20_050, fileSizeBytes: 16, processes: 2, maxSockets: 16 }),
      )
    ).results[0]!;
    expect(r.requests).toBe(20_050);
    expect(r.failedRequests).toBe(1);
    expect(r.verified).toBe(false);
    expect(r.verification).toMatch(/^1 request\(s\) failed: .*403/);
    const failed = r.records.failedRows().map((i) => r.records.get('item', i));
    expect(failed).toEqual([777]);
    expect(s.files.size).toBe(0);
  }, 60_000);

  it(
    "a server that deletes folders: the run's folder goes with one DELETE; one that says so but " +
      'keeps the files gets them deleted one by one',
    async () => {
      const s = await server({ deleteFolders: 'yes' });
      verifiedResult(await runUpload(config(`${s.url}/dav/`, { fileCount: 30, processes: 2 })));
      expect(s.files.size).toBe(0);
      // The probe, the run's folder, then the session's (its close): no file was deleted on its own.
      expect(s.log.folderDeletes).toBe(2);
      expect(s.log.deletes).toBe(3);
      const liar = await server({ deleteFolders: 'lie' });
      verifiedResult(await runUpload(config(`${liar.url}/dav/`, { fileCount: 30, processes: 2 })));
      expect(liar.files.size).toBe(0);
      expect(liar.log.deletes).toBe(3 + 30);
    },
  );

  it(
    'names below a folder URL: percent-encoded per segment, with or without the final slash, its ' +
      'query and credentials kept',
    () => {
      const below = (base: string, name: string) =>
        new RequestSigner({ kind: 'url', url: base, folder: true }).blobUrl(name).href;
      expect(below('http://127.0.0.1:8080/dav/', 'run-1/small-files/0/file-0000003')).toBe(
        'http://127.0.0.1:8080/dav/run-1/small-files/0/file-0000003',
      );
      expect(below('http://127.0.0.1:8080/dav//', 'a b/c#d')).toBe('http://127.0.0.1:8080/dav/a%20b/c%23d');
      expect(below('http://u:p@127.0.0.1:8080/dav?sig=x', 'f')).toBe('http://u:p@127.0.0.1:8080/dav/f?sig=x');
      expect(below('http://127.0.0.1:8080', 'f/g')).toBe('http://127.0.0.1:8080/f/g');
    },
  );

  it(
    'a read-back compared with what was sent: equal bytes have its MD5; a difference gives the MD5 ' +
      'of what came back',
    async () => {
      const s = await server();
      const sent = contentBuffer(FIXTURE_SEED, 0, 200_000);
      const expected = { bytes: sent, md5: createHash('md5').update(sent).digest('base64') };
      const flipped = Buffer.from(sent);
      flipped[150_000]! ^= 0xff;
      s.files.set('/same', sent);
      s.files.set('/flipped', flipped);
      s.files.set('/longer', Buffer.concat([sent, Buffer.from('x')]));
      const signer = new RequestSigner({ kind: 'url', url: s.url });
      const client = NodeHttpClient.to(new URL(s.url), 1);
      const back = (path: string) =>
        readBackMd5(
          client,
          signer,
          new URL(path, s.url),
          { index: 0, blob: path, destOffsetBytes: 0, lengthBytes: sent.length },
          5_000,
          expected,
        );
      try {
        expect(await back('/same')).toEqual({ md5: expected.md5 });
        expect(await back('/flipped')).toEqual({ md5: createHash('md5').update(flipped).digest('base64') });
        expect(await back('/longer')).toEqual({ error: '/longer has 200001 bytes, sent 200000' });
        expect((await back('/missing')).error).toMatch(/^GET \/missing: .*404/);
      } finally {
        client.close();
      }
    },
  );

  it(
    'a server that refuses DELETE: the run verifies and exits 0, the files stay, ' + 'and it warns once',
    async () => {
      const s = await server({ refuseDelete: 405 });
      const results = join(tmp, 'refuse-delete.json');
      const r = await cli([
        '--url',
        `${s.url}/dav/`,
        '--file-count',
        '6',
        '--file-size',
        '1000B',
        '--runs',
        '2',
        '--log-level',
        'warn',
        '--results',
        results,
        '--format',
        'json',
      ]);
      expect(r.status, r.stderr).toBe(0);
      const warnings = r.lines.filter((l) => / warn: /.test(l));
      expect(warnings, r.stderr).toHaveLength(1);
      expect(warnings[0]).toMatch(
        /DELETE below http:\/\/127\.0\.0\.1:\d+\/dav\/ failed \(HTTP 405.*dav_methods PUT DELETE.*--keep/,
      );
      const doc = JSON.parse(readFileSync(results, 'utf8')) as {
        runs: { verified: boolean; requests: number }[];
      };
      expect(doc.runs.map((x) => [x.verified, x.requests])).toEqual([
        [true, 6],
        [true, 6],
      ]);
      // Two runs of six, and the probe that could not be deleted; after the probe's, no DELETE is tried.
      expect(s.files.size).toBe(13);
      expect(s.log.deletes).toBe(1);
    },
  );
});

describe('bad --url uploads through the CLI: one line on stderr, exit 2, nothing uploaded', () => {
  it('a server that answers 405 to PUT', async () => {
    const s = await server({ refusePut: 405 });
    expectOneLine(
      await cli(['--url', `${s.url}/static/`, '--log-level', 'error']),
      /PUT/,
      /405/,
      /dav_methods PUT/,
      /--url/,
    );
    expect(s.log.puts).toBe(1);
    expect(s.files.size).toBe(0);
  });

  it('a server that answers 403 to PUT', async () => {
    const s = await server({ refusePut: 403 });
    expectOneLine(
      await cli(['--url', `${s.url}/dav/`, '--log-level', 'error']),
      /PUT/,
      /403/,
      /access denied/,
      /--url/,
    );
  });

  it('an unreachable URL', async () => {
    expectOneLine(
      await cli(['--url', `${await refusingUrl()}/dav/`, '--log-level', 'error']),
      /cannot reach 127\.0\.0\.1:\d+ \(ECONNREFUSED\)/,
      /--url/,
    );
  });

  it.each(['blocks', 'sdk-upload', 'sdk-small-files'])(
    '--upload-method %s needs a blob service',
    async (method) => {
      const s = await server();
      expectOneLine(
        await cli(['--url', `${s.url}/dav/`, '--upload-method', method]),
        new RegExp(`--upload-method ${method} needs a blob service`),
        /small-files or all/,
      );
      // From the environment, the same.
      expectOneLine(
        await cli([], { URL: `${s.url}/dav/`, BLOB_CACHER_UPLOAD_METHOD: method }),
        new RegExp(`--upload-method ${method}`),
        /--url/,
      );
      expect(s.log.puts).toBe(0);
    },
  );
});

describe('URL for uploads: one option, the same precedence as for downloads', () => {
  function load(argv: readonly string[], env: Record<string, string>): UploadConfig {
    const flags = parseFlags(buildProgram('upload', UPLOAD_OPTIONS, 'test'), argv)!;
    return loadUploadConfig(flags, { env });
  }

  it('from the environment, and --url over it', () => {
    expect(load([], { URL: 'http://127.0.0.1:8080/dav/' }).credentials).toEqual({
      kind: 'url',
      url: 'http://127.0.0.1:8080/dav/',
    });
    expect(
      load(['--url', 'http://127.0.0.1:9/a/'], { URL: 'http://127.0.0.1:8080/dav/' }).credentials,
    ).toEqual({ kind: 'url', url: 'http://127.0.0.1:9/a/' });
  });
});

requires('nginx').describe('nginx with the WebDAV module', () => {
  let nginx: NginxDav;
  beforeAll(async () => {
    nginx = await startNginxDav(mkdtempSync(join(tmp, 'nginx-')));
  });
  afterAll(() => nginx?.stop());

  it(
    '200 x 10 KiB over 2 processes x 8 sockets with --keep: 201 Created each, files on disk are the ' +
      'seed bytes',
    async () => {
      const run = await runUpload(
        config(`${nginx.url}/dav/`, {
          fileCount: 200,
          fileSizeBytes: 10_240,
          processes: 2,
          maxSockets: 8,
          keep: true,
        }),
      );
      const r = verifiedResult(run);
      expect(r.requests).toBe(200);
      expect(r.bytes).toBe(2_048_000);
      expect(r.records.every((rec) => rec.status === 201)).toBe(true);
      const dir = join(nginx.rootDir, 'dav', run.prefix);
      expect(readdirSync(dir)).toEqual(['small-files']);
      const names = readdirSync(join(dir, 'small-files', '0')).sort();
      expect(names).toEqual(Array.from({ length: 200 }, (_, i) => `file-${String(i).padStart(7, '0')}`));
      for (const [i, name] of names.entries()) {
        expect(
          readFileSync(join(dir, 'small-files', '0', name)).equals(
            contentBuffer(FIXTURE_SEED, i * 10_240, 10_240),
          ),
          name,
        ).toBe(true);
      }
    },
  );

  it('without --keep, nothing of the run remains, not even its folders', async () => {
    const run = await runUpload(
      config(`${nginx.url}/dav/`, { fileCount: 100, fileSizeBytes: 10_240, processes: 2, maxSockets: 8 }),
    );
    expect(verifiedResult(run).requests).toBe(100);
    expect(existsSync(join(nginx.rootDir, 'dav', run.prefix))).toBe(false);
  });

  it('a location with PUT but no DELETE: verified, and the files stay', async () => {
    const run = await runUpload(
      config(`${nginx.url}/put-only/`, { fileCount: 30, fileSizeBytes: 1000, processes: 1 }),
    );
    expect(verifiedResult(run).requests).toBe(30);
    expect(readdirSync(join(nginx.rootDir, 'put-only', run.prefix, 'small-files', '0'))).toHaveLength(30);
  });

  it('a location without DAV: PUT answered 405, one line, exit 2', async () => {
    expectOneLine(
      await cli(['--url', `${nginx.url}/static/`, '--log-level', 'error']),
      /PUT/,
      /405/,
      /dav_methods PUT/,
    );
  });
});
