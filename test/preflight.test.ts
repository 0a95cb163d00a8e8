// Problems found before anything is measured: wrong credentials (403), a missing object (404), an
// unreachable host, and --out paths that cannot or should not be written. Each is one line, exit 2.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddedAzurite, type EmbeddedAzurite } from '../src/storage/azurite.js';
import { preflightUrl, preflightUrlUpload } from '../src/storage/preflight.js';
import { close, listen, refusingUrl } from './helpers/http-servers.js';
import { ONE_RUN } from './helpers/cli-env.js';
import { freshDirsSync } from './helpers/temp-dirs.js';

// Scratch directories, removed after the file so none is left in /tmp.
const scratchDir = freshDirsSync('bc-pre-');

const root = resolve(import.meta.dirname, '..');
const WRONG_KEY = Buffer.alloc(64, 9).toString('base64');
let azurite: EmbeddedAzurite;
let notFound: http.Server;
let notFoundUrl: string;

beforeAll(async () => {
  azurite = await startEmbeddedAzurite();
  notFound = http.createServer((_req, res) => {
    res.statusCode = 404;
    res.end();
  });
  notFoundUrl = `${await listen(notFound)}/missing.bin`;
});
afterAll(async () => {
  await azurite.stop();
  await close(notFound);
});

interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
  lines: string[];
}

/** Async on purpose: the Azurite these runs talk to lives in this process's event loop. */
function cli(args: string[], env: Record<string, string> = {}, cwd = scratchDir()): Promise<CliResult> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [join(root, 'dist/cli.js'), ...args], {
      cwd,
      env: { ...ONE_RUN, PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
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

function expectOneLine(r: CliResult, ...mentions: (string | RegExp)[]) {
  expect(r.status, r.stderr).toBe(2);
  expect(r.lines, r.stderr).toHaveLength(1);
  expect(r.lines[0]).toMatch(/^blob-cacher: /);
  expect(r.stderr).not.toMatch(/\n\s+at /);
  for (const m of mentions) expect(r.lines[0]).toMatch(m);
}

describe('target problems found before the run', () => {
  it('a wrong account key: 403, names the credentials, never prints the key', async () => {
    const cs =
      `DefaultEndpointsProtocol=http;AccountName=${azurite.account};AccountKey=${WRONG_KEY};` +
      `BlobEndpoint=${azurite.endpoint}`;
    for (const command of ['download', 'upload']) {
      const r = await cli([command, '--log-level', 'error'], { STORAGE_CONNECTION_STRING: cs });
      expectOneLine(r, /403/, /STORAGE_KEY/);
      expect(r.stderr + r.stdout).not.toContain(WRONG_KEY);
    }
  });

  it('an unreachable blob endpoint', async () => {
    const endpoint = `${await refusingUrl()}/devstoreaccount1`;
    const cs =
      `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${WRONG_KEY};` +
      `BlobEndpoint=${endpoint}`;
    expectOneLine(
      await cli(['download', '--log-level', 'error', '--max-retries', '0'], {
        STORAGE_CONNECTION_STRING: cs,
      }),
      /cannot reach 127\.0\.0\.1:\d+ \(ECONNREFUSED\)/,
    );
  });

  it('a URL that answers 404, and one that cannot be reached', async () => {
    expectOneLine(await cli(['download', '--url', notFoundUrl, '--log-level', 'error']), /404/, /--url/);
    expectOneLine(
      await cli(['download', '--url', `${await refusingUrl()}/x`, '--log-level', 'error']),
      /cannot reach/,
      /--url/,
    );
  });
});

describe('--out', () => {
  it('in a directory that does not exist', async () => {
    expectOneLine(
      await cli(['download', '--sink', 'file', '--out', 'no/such/dir/x.bin']),
      /--out/,
      /does not exist/,
    );
  });

  it('an existing file without --force, and with it', async () => {
    const cwd = scratchDir();
    writeFileSync(join(cwd, 'x.bin'), 'keep me');
    expectOneLine(
      await cli(['download', '--sink', 'file', '--out', 'x.bin'], {}, cwd),
      /--out x\.bin already exists/,
      /--force/,
    );
    const forced = await cli(
      [
        'download',
        '--sink',
        'file',
        '--out',
        'x.bin',
        '--force',
        '--url',
        notFoundUrl,
        '--log-level',
        'error',
      ],
      {},
      cwd,
    );
    // Past the --out check, the next problem reported is the URL's 404.
    expectOneLine(forced, /404/);
  });
});

describe('preflight requests', () => {
  it(
    'the HEAD and the upload probe honour a short timeoutMs against a server that ' + 'never answers',
    async () => {
      // Takes each request and never answers it.
      const silent = http.createServer(() => {});
      const url = await listen(silent);
      try {
        for (const check of [
          () => preflightUrl(`${url}/file.bin`, { timeoutMs: 300 }),
          () => preflightUrlUpload(`${url}/dav/`, new URL(`${url}/dav/probe`), { timeoutMs: 300 }),
        ]) {
          const started = performance.now();
          await expect(check()).rejects.toThrow(
            /cannot reach 127\.0\.0\.1:\d+ \(ETIMEDOUT: no data for 300 ms\); check --url/,
          );
          // A coarse bound: a fixed 30 s wait would be far past it.
          expect(performance.now() - started).toBeLessThan(2000);
        }
      } finally {
        await close(silent);
      }
    },
  );

  it(
    'a throttled answer (503 ServerBusy) is tried again after its Retry-After; one that stays ' +
      'throttled names throttling, not the URL',
    async () => {
      // Azure's account-limit answer; the first `busyFor` requests get it, the rest a file.
      let asked = 0;
      let busyFor = 2;
      const busy = http.createServer((req, res) => {
        asked++;
        if (asked <= busyFor) {
          res.writeHead(503, { 'retry-after': '0', 'content-type': 'application/xml' });
          res.end(
            req.method === 'HEAD'
              ? undefined
              : '<?xml version="1.0"?><Error><Code>ServerBusy</Code><Message>Operations per second is ' +
                  'over the account limit.</Message></Error>',
          );
          return;
        }
        res.writeHead(req.method === 'DELETE' ? 202 : 201, {
          'content-length': req.method === 'HEAD' ? '1234' : '0',
        });
        res.end();
      });
      const url = await listen(busy);
      try {
        expect(await preflightUrl(`${url}/file.bin`, { timeoutMs: 5000 })).toBe(1234);
        expect(asked).toBe(3);
        asked = 0;
        expect(
          await preflightUrlUpload(`${url}/dav/`, new URL(`${url}/dav/probe`), { timeoutMs: 5000 }),
        ).toEqual({});
        expect(asked).toBe(4);
        asked = 0;
        busyFor = Infinity;
        await expect(preflightUrl(`${url}/file.bin`, { timeoutMs: 5000 })).rejects.toThrow(
          new RegExp(
            `^HEAD ${url}/file\\.bin answered HTTP 503 .* 4 times: the target is throttling; wait ` +
              `until its load falls \\(or lower it\\) and run again$`,
          ),
        );
        expect(asked).toBe(4);
        await expect(
          preflightUrlUpload(`${url}/dav/`, new URL(`${url}/dav/probe`), { timeoutMs: 5000 }),
        ).rejects.toThrow(
          new RegExp(
            '^a test PUT below .* answered HTTP 503 ServerBusy ' +
              String.raw`\(Operations per second is over the account limit\.\) 4 times: the target is ` +
              'throttling',
          ),
        );
      } finally {
        await close(busy);
      }
    },
  );

  it('a redirect names where it points, without the query (a SAS may be there)', async () => {
    const redirecting = http.createServer((_req, res) => {
      res.writeHead(302, { location: 'http://elsewhere.example/data/file.bin?sv=2025-01-05&sig=c2VjcmV0' });
      res.end();
    });
    const url = await listen(redirecting);
    try {
      const failure = preflightUrl(`${url}/file.bin`, { timeoutMs: 5000 });
      await expect(failure).rejects.toThrow(
        `HEAD ${url}/file.bin answered HTTP 302 Found to http://elsewhere.example/data/file.bin; ` +
          `give a URL to a file`,
      );
    } finally {
      await close(redirecting);
    }
  });
});
