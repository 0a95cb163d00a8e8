// What a start costs in modules, checked by what a fresh process has loaded, not by timing it:
// importing node:http as ESM evaluates its lazy exports and loads Node's bundled undici (~25 ms of
// every process's start here), so the CLI, the transport and the worker reach it through require.
// A plain-URL download's two processes are checked too, as built by tsc and as `npm run build`
// bundles them (scripts/bundle.ts): each process writes the modules it loaded, through a load hook.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundle } from '../scripts/bundle.ts';

const ROOT = resolve(import.meta.dirname, '..');
const DIST = join(ROOT, 'dist');

/**
 * What Node had loaded after importing `modules` and then running `then` (with `last`, the last one's
 * exports).
 */
function loadedAfterImporting(modules: string[], then = ''): string[] {
  const code =
    `let last; for (const m of ` +
    `${JSON.stringify(modules.map((m) => pathToFileURL(join(DIST, m)).href))}) last = await ` +
    `import(m); ${then}; process.stdout.write(JSON.stringify(process.moduleLoadList));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
    encoding: 'utf8',
    timeout: 30_000,
  });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as string[];
}

describe('start-up imports', () => {
  const http = (m: string) => /^NativeModule (https?|tls|_http_\w+)$/.test(m);
  it(
    'the CLI, the transport and the worker load neither node:http, node:tls nor undici until a ' +
      'request through node:http needs them',
    () => {
      const modules = ['cli/commands.js', 'workers/job-run.js', 'cli/environment.js', 'transport/request.js'];
      const imported = loadedAfterImporting(modules);
      expect(imported.filter(http)).toEqual([]);
      expect(imported.filter((m) => m.includes('undici'))).toEqual([]);
      // node:http's agent made (as --http-client node does): node:http now, still no undici.
      const used = loadedAfterImporting(
        modules,
        "last.createAgent(new URL('http://127.0.0.1/x'), 1).destroy()",
      );
      expect(used).toContain('NativeModule http');
      expect(used.filter((m) => m.includes('undici'))).toEqual([]);
    },
  );
});

/**
 * Registered in every process of the run (a worker is forked with its parent's flags): each writes what it
 * loaded.
 */
const recorder = (dir: string) =>
  `data:text/javascript,${encodeURIComponent(
    `import { registerHooks } from 'node:module'; import { writeFileSync } from 'node:fs';
  const loaded = []; registerHooks({ load(url, context, next) { loaded.push(url); ` +
      `return next(url, context); } });
  process.on('exit', () => ` +
      `writeFileSync(${JSON.stringify(dir)} + '/' + (process.send ? 'worker' : 'coordinator') ` +
      `+ '-' + process.pid + '.json', JSON.stringify(loaded)));`,
  )}`;

/** What neither process of a plain-URL download needs: the SDK, Azurite, the HTML report, the SDK's kinds. */
const NOT_FOR_A_URL =
  /node_modules\/(@azure\/(?!storage-blob\/package\.json)|azurite\/)|\/report\/html|\/kinds\/sdk-/;
/**
 * winston, as the package or as `npm run build` packs it: loaded at a process's first log line, and only
 * then.
 */
const WINSTON = /node_modules\/winston\/|\/log\/winston-parts\.cjs$/;

describe('a plain-URL download loads only what it uses', () => {
  let server: Server;
  let url: string;
  let work: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      res.writeHead(200, { 'Content-Length': 1 });
      res.end(req.method === 'HEAD' ? undefined : 'x');
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/one.bin`;
    work = mkdtempSync(join(tmpdir(), 'startup-imports-'));
  });
  afterAll(() => {
    server.close();
    rmSync(work, { recursive: true, force: true });
  });

  /**
   * Runs the download from `cli` (spawned, not spawnSync: the server is this process's); the modules each
   * process loaded.
   */
  async function download(
    cli: string,
    name: string,
    command: string[] = ['download'],
  ): Promise<{ coordinator: string[]; workers: string[][] }> {
    const out = mkdtempSync(join(work, `${name}-loads-`));
    const child = spawn(
      process.execPath,
      [
        '--import',
        recorder(out),
        cli,
        ...command,
        '--url',
        url,
        '--source-method',
        'single',
        '--runs',
        '1',
        '--warmup',
        '0',
        '--results',
        join(out, 'results.json'),
      ],
      {
        cwd: work,
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 60_000,
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    // 'close': the worker holds the same stdout and stderr, so its records are written by then too.
    const code = await new Promise<number | null>((r) => child.on('close', r));
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(/Recommended: single/);
    // Its log lines, through winston (the package, or packed by the build), in one shape either way.
    expect(stderr).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z info: target: url 127\.0\.0\.1:\d+$/m);
    const read = (f: string) => JSON.parse(readFileSync(join(out, f), 'utf8')) as string[];
    const files = readdirSync(out);
    return {
      coordinator: files.filter((f) => f.startsWith('coordinator-')).flatMap(read),
      workers: files.filter((f) => f.startsWith('worker-')).map(read),
    };
  }

  it(
    'as tsc builds it: one worker, neither process loads the SDK, Azurite or the HTML report, and ' +
      'winston only the coordinator, which logs',
    async () => {
      const { coordinator, workers } = await download(join(DIST, 'cli.js'), 'tsc');
      expect(workers.length).toBe(1);
      expect(workers[0]!.some((u) => u.endsWith('/kinds/get.js'))).toBe(true);
      expect(workers[0]!.filter((u) => NOT_FOR_A_URL.test(u) || WINSTON.test(u))).toEqual([]);
      expect(coordinator.filter((u) => NOT_FOR_A_URL.test(u))).toEqual([]);
      // Its `target:` and `results:` lines at the default level.
      expect(coordinator.some((u) => WINSTON.test(u))).toBe(true);
    },
  );

  /** A copy of dist/ beside a package.json and node_modules, as in the project, bundled there (once). */
  let bundled: Promise<string> | undefined;
  const bundledRoot = () =>
    (bundled ??= (async () => {
      const root = join(work, 'bundled');
      cpSync(DIST, join(root, 'dist'), { recursive: true });
      cpSync(join(ROOT, 'package.json'), join(root, 'package.json'));
      symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'));
      await bundle(join(root, 'dist'));
      return root;
    })());

  it(
    'as `npm run build` bundles it: each process reads one file of ours past the ' +
      'entry, and the same holds',
    async () => {
      const root = await bundledRoot();
      const { coordinator, workers } = await download(join(root, 'dist', 'cli.js'), 'bundled');
      const ours = (urls: string[]) =>
        urls
          .filter((u) => u.startsWith(pathToFileURL(join(root, 'dist')).href))
          .map((u) => u.slice(pathToFileURL(join(root, 'dist')).href.length + 1));
      // The histogram code is one packed file (metrics/hdr-parts.cjs), loaded where histograms are made:
      // a one-request job's worker sends its record alone, and only the coordinator makes them.
      // winston, packed into one file (log/winston-parts.cjs), loaded at the coordinator's first log line.
      expect(ours(coordinator)).toEqual([
        'cli.js',
        'startup/start.js',
        'cli/node-check.js',
        'workers/first-worker.js',
        'workers/entry.js',
        'cli/commands.js',
        'log/winston-parts.cjs',
        'metrics/hdr-parts.cjs',
      ]);
      expect(coordinator.filter((u) => u.includes('node_modules/'))).toEqual([]);
      expect(workers.length).toBe(1);
      expect(ours(workers[0]!)).toEqual(['workers/worker.js']);
      // Nor node:fs/promises: the memory sink needs no file, and no scratch directory is made.
      expect(workers[0]!.filter((u) => u === 'node:zlib' || u === 'node:fs/promises')).toEqual([]);
      expect(workers[0]!.filter((u) => u.includes('node_modules/'))).toEqual([]);
      // The raw client in both (the coordinator's preflight too): no node:http (nor its server half), no TLS
      // for an http:// URL.
      expect(workers[0]!.filter((u) => /^node:(https?|tls)$/.test(u))).toEqual([]);
      expect(coordinator.filter((u) => /^node:(https?|tls)$/.test(u))).toEqual([]);
      expect(workers[0]!.filter((u) => NOT_FOR_A_URL.test(u) || WINSTON.test(u))).toEqual([]);
      expect(coordinator.filter((u) => NOT_FOR_A_URL.test(u))).toEqual([]);
      // Nor node:crypto (4-7 ms a process): the worker's check hashes its 1 byte itself (payload/md5.ts),
      // the results file's temporary name is from /dev/urandom.
      expect([...workers[0]!, ...coordinator].filter((u) => u === 'node:crypto')).toEqual([]);
    },
  );

  it(
    '`node dist/download.js`, as the card types it, starts as `blob-cacher download` does: the early ' +
      'worker, then the one bundled file',
    async () => {
      const root = await bundledRoot();
      const dist = pathToFileURL(join(root, 'dist')).href;
      const { coordinator, workers } = await download(join(root, 'dist', 'download.js'), 'download-js', []);
      const ours = coordinator.filter((u) => u.startsWith(dist)).map((u) => u.slice(dist.length + 1));
      expect(ours).toEqual([
        'download.js',
        'startup/start.js',
        'cli/node-check.js',
        'workers/first-worker.js',
        'workers/entry.js',
        'cli/commands.js',
        'log/winston-parts.cjs',
        'metrics/hdr-parts.cjs',
      ]);
      expect(workers.length).toBe(1);
      expect(workers[0]!.filter((u) => u.startsWith(dist)).map((u) => u.slice(dist.length + 1))).toEqual([
        'workers/worker.js',
      ]);
    },
  );
});
