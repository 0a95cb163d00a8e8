// The many-blob download workloads (small-files, list, head and their SDK baselines) end to end:
// on the embedded Azurite, on a separately started Azurite addressed as an account would be (key
// and endpoint, and a connection string through the CLI), on a plain URL server, and through a
// proxy that fails and resets GETs and List Blobs pages. The engine and its workers run from src/;
// the CLI cases use the build.
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDownloadConfig, type DownloadConfig } from '../src/config/load.js';
import { ConfigError } from '../src/vocabulary/errors.js';
import { runDownload, type DownloadRunResult } from '../src/engine/download.js';
import { setLogLevel } from '../src/log/logger.js';
import { contentBuffer, FIXTURE_SEED } from '../src/payload/content.js';
import type { MeasuredRun } from '../src/results/record.js';
import { parseListPage } from '../src/storage/list-blobs.js';
import { selectStrategies } from '../src/strategies/index.js';
import { MARKED_SAMPLE, SET_MARKER } from '../src/fixture-setup/url-fixtures.js';
import { fixtureSetPrefix, listGroups, setFileName } from '../src/strategies/many-blobs.js';
import { smallFileOffset } from '../src/plan/names.js';
import { blobNames, containerOf, startEmbeddedAzurite, type EmbeddedAzurite } from './helpers/azurite.js';
import { ONE_RUN } from './helpers/cli-env.js';
import { startFaultProxy, type PutFault } from './helpers/fault-servers.js';
import { close } from './helpers/http-servers.js';
import { pathsUnder, startPutServer } from './helpers/put-server.js';
import { testConfig, type TestSettings } from './helpers/config.js';

const run = promisify(execFile);
const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const DOWNLOAD_JS = join(ROOT, 'dist', 'download.js');
const FILE_COUNT = 50;
const FILE_SIZE = 4096;
const SET = fixtureSetPrefix(FILE_COUNT, FILE_SIZE);

beforeAll(() => setLogLevel('error'));

function config(
  credentials: DownloadConfig['credentials'],
  overrides: TestSettings<DownloadConfig> = {},
): DownloadConfig {
  return testConfig('download', {
    logLevel: 'error',
    sourceMethod: 'small-files,sdk-small-files',
    concurrency: 4,
    fileSizeBytes: FILE_SIZE,
    fileCount: FILE_COUNT,
    pageSize: 5000,
    processes: 2,
    maxSockets: 4,
    sink: 'memory',
    bufferSizeBytes: 65536,
    container: 'many-test',
    cleanup: false,
    credentials,
    httpClient: 'raw',
    runs: 1,
    warmup: 0,
    format: 'console',
    maxRetries: 3,
    timeoutMs: 10_000,
    trace: true,
    ...overrides,
  });
}

const byName = (run: DownloadRunResult, name: string): MeasuredRun => {
  const found = run.results.find((r) => r.strategy === name);
  if (!found) throw new Error(`no run of ${name} among ${run.results.map((r) => r.strategy).join(', ')}`);
  return found;
};

function expectVerified(run: DownloadRunResult, names: readonly string[]): void {
  expect(run.results.map((r) => r.strategy)).toEqual(names);
  for (const r of run.results) {
    expect(r.error, r.strategy).toBeUndefined();
    expect(r.verified, `${r.strategy}: ${r.verification}`).toBe(true);
    expect(r.failedRequests, r.strategy).toBe(0);
    expect(r.params?.fileCount, r.strategy).toBe(FILE_COUNT);
  }
}

describe('names and pages', () => {
  it(
    'listGroups: one stream for one lane; for more lanes disjoint prefixes that ' + 'hold every file once',
    () => {
      expect(listGroups(2400, SET, 1)).toEqual([{ prefix: `${SET}/file-`, first: 0, count: 2400 }]);
      for (const [count, lanes] of [
        [50, 4],
        [2400, 16],
        [2400, 24],
        [12_345, 3],
        [7, 100],
      ] as const) {
        const groups = listGroups(count, SET, lanes);
        expect(groups.length, `${count} files, ${lanes} lanes`).toBeGreaterThanOrEqual(
          Math.min(lanes, count),
        );
        expect(groups.reduce((s, g) => s + g.count, 0)).toBe(count);
        // Every file name starts with exactly one group's prefix, the group that counts it.
        for (let i = 0; i < count; i++) {
          const owners = groups.filter((g) => setFileName(SET, i).startsWith(g.prefix));
          expect(owners, `file ${i}`).toHaveLength(1);
          expect(i >= owners[0]!.first && i < owners[0]!.first + owners[0]!.count).toBe(true);
        }
      }
    },
  );

  it('parseListPage reads names, folder prefixes, entities, encoded names and NextMarker', () => {
    const xml =
      '<?xml version="1.0" encoding="utf-8"?><EnumerationResults ServiceEndpoint="x" ' +
      'ContainerName="c"><Prefix>a/</Prefix>' +
      '<Blobs><Blob><Name>a/x&amp;y.txt</Name><Properties><Content-Length>3</Content-Length></' +
      'Properties></Blob>' +
      `<Blob><Name Encoded="true">${Buffer.from('a/ünï').toString('base64')}</Name><Properties /></Blob>` +
      '<BlobPrefix><Name>a/sub/</Name></BlobPrefix></Blobs><NextMarker>2!8!abc&lt;</NextMarker></' +
      'EnumerationResults>';
    expect(parseListPage(xml)).toEqual({
      names: ['a/x&y.txt', 'a/ünï'],
      prefixes: ['a/sub/'],
      nextMarker: '2!8!abc<',
    });
    const last = parseListPage('<EnumerationResults><Blobs /><NextMarker /></EnumerationResults>');
    expect(last).toEqual({ names: [], prefixes: [] });
    expect(() => parseListPage('<html>proxy error</html>')).toThrow(/not a List Blobs answer/);
  });
});

describe('configuration', () => {
  const load = (argv: string[], env: Record<string, string> = {}) => {
    const flags: Record<string, unknown> = {};
    for (let i = 0; i < argv.length; i += 2)
      flags[argv[i]!.replace(/^--/, '').replace(/-([a-z])/g, (_, c: string) => c.toUpperCase())] =
        argv[i + 1];
    return loadDownloadConfig(flags, { env });
  };

  it(
    'all is the one-blob strategies; the many-blob workloads are chosen by name, ' + 'several with commas',
    () => {
      expect(selectStrategies('all', false).map((s) => s.name)).toEqual([
        'single',
        'chunked',
        'round-robin',
        'assemble',
        'sdk',
      ]);
      expect(selectStrategies('list,sdk-list', false).map((s) => s.name)).toEqual(['list', 'sdk-list']);
      expect(selectStrategies('small-files,sdk-small-files,head', true).map((s) => s.name)).toEqual([
        'small-files',
        'head',
      ]);
      expect(load(['--source-method', 'small-files, sdk-small-files']).sourceMethod).toBe(
        'small-files,sdk-small-files',
      );
    },
  );

  it(
    'FILE_SIZE defaults to 100KiB for the many-blob workloads and stays 80MiB for one blob; ' +
      'FILE_COUNT and --page-size are read',
    () => {
      expect(load(['--source-method', 'head']).fileSizeBytes).toBe(100 * 1024);
      expect(load([]).fileSizeBytes).toBe(80 * 1024 * 1024);
      const c = load(['--source-method', 'list', '--page-size', '250'], {
        FILE_COUNT: '777',
        FILE_SIZE: '1KiB',
      });
      expect({ fileCount: c.fileCount, pageSize: c.pageSize, fileSizeBytes: c.fileSizeBytes }).toEqual({
        fileCount: 777,
        pageSize: 250,
        fileSizeBytes: 1024,
      });
    },
  );

  it.each([
    { argv: ['--source-method', 'small-files,chunked'], why: /mixes workloads/ },
    { argv: ['--source-method', 'list,head'], why: /mixes workloads/ },
    { argv: ['--source-method', 'all,list'], why: /all alone/ },
    {
      argv: ['--source-method', 'small-files', '--sink', 'sparse-file'],
      why: /many blobs.*--sink memory or discard/,
    },
    { argv: ['--source-method', 'list', '--url', 'http://127.0.0.1:9/d/'], why: /list needs a blob target/ },
    { argv: ['--source-method', 'list', '--page-size', '5001'], why: /--page-size.*1 to 5000/ },
  ])('refused: $argv', ({ argv, why }) => {
    expect(() => load(argv)).toThrow(ConfigError);
    expect(() => load(argv)).toThrow(why);
  });
});

describe('embedded Azurite', () => {
  const embedded = { kind: 'embedded' } as const;

  it('small-files and sdk-small-files: every file GET once and its bytes verified', async () => {
    const run = await runDownload(config(embedded));
    expectVerified(run, ['small-files', 'sdk-small-files']);
    expect(run.fixtures.created).toHaveLength(FILE_COUNT);
    for (const r of run.results) {
      expect(r.requests, r.strategy).toBe(FILE_COUNT);
      expect(r.bytes, r.strategy).toBe(FILE_COUNT * FILE_SIZE);
      expect(new Set(r.records.map((rec) => rec.item)).size).toBe(FILE_COUNT);
      expect(r.workers, r.strategy).toHaveLength(2);
    }
    expect(byName(run, 'small-files').verification).toMatch(/50 file\(s\): every byte matches its MD5/);
  });

  it('small-files with --sink discard: hashed as the bytes arrive, still every file checked', async () => {
    const run = await runDownload(
      config(embedded, { sourceMethod: 'small-files', sink: 'discard', processes: 1 }),
    );
    expectVerified(run, ['small-files']);
    expect(run.results[0]!.bytes).toBe(FILE_COUNT * FILE_SIZE);
    expect(run.results[0]!.records.every((rec) => rec.md5 !== undefined)).toBe(true);
  });

  it(
    'list, list-hierarchy and sdk-list, one lane: pages of 7 one after another, ' + 'every name checked',
    async () => {
      const run = await runDownload(
        config(embedded, {
          sourceMethod: 'list,list-hierarchy,sdk-list',
          pageSize: 7,
          processes: 1,
          maxSockets: 1,
        }),
      );
      expectVerified(run, ['list', 'list-hierarchy', 'sdk-list']);
      for (const r of run.results) {
        expect(r.requests, r.strategy).toBe(Math.ceil(FILE_COUNT / 7));
        expect(
          r.records.reduce((s, rec) => s + (rec.objects ?? 0), 0),
          r.strategy,
        ).toBe(FILE_COUNT);
        expect(r.params?.pageSize).toBe(7);
        // Pages follow one another: each starts after the last one ended.
        const pages = r.records.toArray();
        pages
          .slice(1)
          .forEach((rec, k) =>
            expect(rec.startEpochMs).toBeGreaterThanOrEqual(pages[k]!.startEpochMs + pages[k]!.totalMs - 1),
          );
      }
      expect(byName(run, 'list').bytes).toBeGreaterThan(0);
      expect(byName(run, 'list').records.every((rec) => rec.phases.firstByte !== undefined)).toBe(true);
    },
  );

  it(
    'list over 2 processes x 2 sockets: disjoint prefixes listed in parallel, ' + 'still every name once',
    async () => {
      const run = await runDownload(config(embedded, { sourceMethod: 'list,sdk-list', pageSize: 7 }));
      expectVerified(run, ['list', 'sdk-list']);
      const groups = listGroups(FILE_COUNT, SET, 2 * 4);
      for (const r of run.results) {
        expect(r.workers, r.strategy).toHaveLength(2);
        expect(r.requests, r.strategy).toBe(groups.reduce((s, g) => s + Math.ceil(g.count / 7), 0));
        expect(r.verification).toMatch(
          new RegExp(`${FILE_COUNT} name\\(s\\) in ${r.requests} page\\(s\\) over ${groups.length} prefix`),
        );
      }
    },
  );

  it(
    'head and sdk-head: one HEAD per blob, its length and Content-MD5 checked, no ' + 'content moved',
    async () => {
      const run = await runDownload(config(embedded, { sourceMethod: 'head,sdk-head' }));
      expectVerified(run, ['head', 'sdk-head']);
      for (const r of run.results) {
        expect(r.requests, r.strategy).toBe(FILE_COUNT);
        expect(r.bytes, r.strategy).toBe(0);
      }
      expect(byName(run, 'head').verification).toMatch(/Content-Length and Content-MD5 match/);
    },
  );
});

describe('an Azurite of its own, addressed as an account (key and endpoint)', () => {
  let azurite: EmbeddedAzurite;
  let cwd: string;
  beforeAll(async () => {
    azurite = await startEmbeddedAzurite();
    cwd = mkdtempSync(join(tmpdir(), 'blob-cacher-many-'));
  });
  afterAll(async () => {
    await azurite?.stop();
    rmSync(cwd, { recursive: true, force: true });
  });
  const account = () =>
    ({ kind: 'key', account: azurite.account, key: azurite.key, endpoint: azurite.endpoint }) as const;

  it(
    'the set is made once under many/<count>x<bytes>/ and reused by the next session and by the ' +
      'listings',
    async () => {
      const first = await runDownload(config(account()));
      expectVerified(first, ['small-files', 'sdk-small-files']);
      expect(first.fixtures).toEqual({ created: expect.arrayContaining([setFileName(SET, 0)]), reused: 0 });
      const names = await blobNames(containerOf(azurite, 'many-test'));
      expect(names).toEqual(Array.from({ length: FILE_COUNT }, (_, i) => setFileName(SET, i)));
      // The content is the seed's stream at each file's own offset.
      const stored = await containerOf(azurite, 'many-test')
        .getBlobClient(setFileName(SET, 3))
        .downloadToBuffer();
      expect(stored.equals(contentBuffer(FIXTURE_SEED, smallFileOffset(3, FILE_SIZE), FILE_SIZE))).toBe(true);

      const again = await runDownload(config(account(), { sourceMethod: 'list,sdk-list', pageSize: 20 }));
      expectVerified(again, ['list', 'sdk-list']);
      expect(again.fixtures.created).toEqual([]);
      expect(again.fixtures.reused).toBe(FILE_COUNT);
    },
  );

  it('a stored file whose content is wrong is put right before the run, and the run verifies', async () => {
    const container = containerOf(azurite, 'many-test');
    await runDownload(config(account(), { sourceMethod: 'head' }));
    await container.getBlockBlobClient(setFileName(SET, 7)).upload(Buffer.alloc(FILE_SIZE, 1), FILE_SIZE);
    const run = await runDownload(config(account(), { sourceMethod: 'small-files' }));
    expectVerified(run, ['small-files']);
    expect(run.fixtures.created).toEqual([setFileName(SET, 7)]);
  });

  it(
    'a file deleted from the set is written again (the listing found it missing), ' + 'and only that one',
    async () => {
      const container = containerOf(azurite, 'many-test');
      await runDownload(config(account(), { sourceMethod: 'head' }));
      await container.getBlockBlobClient(setFileName(SET, 11)).delete();
      const run = await runDownload(config(account(), { sourceMethod: 'small-files' }));
      expectVerified(run, ['small-files']);
      expect(run.fixtures).toEqual({ created: [setFileName(SET, 11)], reused: FILE_COUNT - 1 });
    },
  );

  // Asynchronous: the Azurite answering the child runs in this process.
  it(
    'the CLI with STORAGE_CONNECTION_STRING: the results file and the report show the workload in ' +
      'ops/s and blobs/s',
    async () => {
      expect(existsSync(DOWNLOAD_JS), `${DOWNLOAD_JS} is missing: build first`).toBe(true);
      const cs =
        `DefaultEndpointsProtocol=http;AccountName=${azurite.account};AccountKey=${azurite.key};` +
        `BlobEndpoint=${azurite.endpoint};`;
      const results = join(cwd, 'list.json');
      // One lane: the set listed as one stream of 5 pages.
      const r = await run(
        process.execPath,
        [
          DOWNLOAD_JS,
          '--source-method',
          'list,sdk-list',
          '--page-size',
          '10',
          '--max-sockets',
          '1',
          '--format',
          'md',
          '--results',
          results,
        ],
        {
          cwd,
          encoding: 'utf8',
          timeout: 60_000,
          env: {
            ...ONE_RUN,
            PATH: process.env.PATH ?? '',
            HOME: cwd,
            STORAGE_CONNECTION_STRING: cs,
            STORAGE_CONTAINER: 'many-test',
            FILE_COUNT: String(FILE_COUNT),
            FILE_SIZE: `${FILE_SIZE}B`,
            LOG_LEVEL: 'warn',
          },
        },
      );
      expect(r.stderr).toBe('');
      const file = JSON.parse(readFileSync(results, 'utf8')) as {
        runs: {
          strategy: string;
          verified: boolean;
          requests: number;
          params: { fileCount: number; pageSize: number };
        }[];
      };
      expect(
        file.runs.map((x) => [x.strategy, x.verified, x.requests, x.params.fileCount, x.params.pageSize]),
      ).toEqual([
        ['list', true, 5, FILE_COUNT, 10],
        ['sdk-list', true, 5, FILE_COUNT, 10],
      ]);
      expect(r.stdout).toMatch(/\| ops\/s \|/);
      expect(r.stdout).toMatch(
        new RegExp(
          String.raw`- list: 50 blobs, 5 page\(s\) per run: \d+ pages\/s, \d+ ` +
            String.raw`blobs\/s, .* per-page latency p50 [\d.]+ \/ p99 [\d.]+ ms`,
        ),
      );

      const report = spawnSync(
        process.execPath,
        [join(ROOT, 'dist', 'cli.js'), 'report', results, '--details'],
        { cwd, encoding: 'utf8', timeout: 20_000, env: { PATH: process.env.PATH ?? '', HOME: cwd } },
      );
      expect(report.status, report.stderr).toBe(0);
      expect(report.stdout).toMatch(/ops\/s/);
      expect(report.stdout).toMatch(/list: 50 blobs, 5 page\(s\) per run/);
      const csv = spawnSync(
        process.execPath,
        [join(ROOT, 'dist', 'cli.js'), 'report', '--format', 'csv', results],
        { cwd, encoding: 'utf8', timeout: 20_000, env: { PATH: process.env.PATH ?? '', HOME: cwd } },
      );
      const [header, ...rows] = csv.stdout
        .trim()
        .split('\n')
        .map((l) => l.split(','));
      const at = (name: string) => header!.indexOf(name);
      for (const row of rows) {
        // 50 names in 5 pages: blobs/s is ten times pages/s.
        expect(Number(row[at('blobs_per_s_median')])).toBeCloseTo(
          10 * Number(row[at('ops_per_s_median')]),
          0,
        );
      }
      const html = spawnSync(
        process.execPath,
        [join(ROOT, 'dist', 'cli.js'), 'report', '--format', 'html', results],
        { cwd, encoding: 'utf8', timeout: 20_000, env: { PATH: process.env.PATH ?? '', HOME: cwd } },
      );
      expect(html.stdout).toMatch(/<li>sdk-list: 50 blobs, 5 page\(s\) per run: \d+ pages\/s, \d+ blobs\/s/);
    },
  );

  it('--help names the many-blob workloads and their options', () => {
    const r = spawnSync(process.execPath, [DOWNLOAD_JS, '--help'], {
      encoding: 'utf8',
      timeout: 20_000,
      env: { PATH: process.env.PATH ?? '' },
    });
    expect(r.status).toBe(0);
    for (const word of [
      'small-files',
      'sdk-small-files',
      'list-hierarchy',
      'sdk-list',
      'head',
      'sdk-head',
      '--file-count',
      'FILE_COUNT',
      '--page-size',
    ]) {
      expect(r.stdout, word).toContain(word);
    }
  });
});

describe('faults between the client and an Azurite (a proxy)', () => {
  let azurite: EmbeddedAzurite;
  beforeAll(async () => {
    azurite = await startEmbeddedAzurite();
  });
  afterAll(() => azurite?.stop());

  async function through(reads: Parameters<typeof startFaultProxy>[2], overrides: Partial<DownloadConfig>) {
    const proxy = await startFaultProxy(azurite.endpoint, () => undefined, reads);
    try {
      const run = await runDownload(
        config(
          { kind: 'key', account: azurite.account, key: azurite.key, endpoint: proxy.endpoint },
          { container: 'faults', ...overrides },
        ),
      );
      return { run, log: proxy.log };
    } finally {
      await proxy.stop();
    }
  }

  it('small-files: a 503 and a dropped connection are retried, and every file still verifies', async () => {
    const faults: PutFault[] = [
      { kind: 'status', status: 503, code: 'ServerBusy', retryAfter: '0' },
      { kind: 'drop' },
    ];
    const { run, log } = await through({ get: (n) => faults[n] }, { sourceMethod: 'small-files' });
    expectVerified(run, ['small-files']);
    const r = run.results[0]!;
    expect(r.requests).toBe(FILE_COUNT);
    expect(r.retries).toBe(2);
    expect(r.throttled).toBe(1);
    expect(r.bytes).toBe(FILE_COUNT * FILE_SIZE);
    // The faulted GETs were sent again, for the same files, and answered.
    const gets = log.filter((e) => e.getIndex !== undefined);
    expect(gets).toHaveLength(FILE_COUNT + 2);
    for (const g of gets.filter((e) => e.injected !== 'none'))
      expect(gets.some((later) => later.path === g.path && later.status === 200)).toBe(true);
  });

  it('small-files: one file that answers 500 every time fails the run, named, after maxRetries', async () => {
    const { run } = await through(
      {
        get: (_, path) =>
          path.endsWith(setFileName(SET, 11))
            ? { kind: 'status', status: 500, code: 'InternalError' }
            : undefined,
      },
      { sourceMethod: 'small-files', maxRetries: 1 },
    );
    const r = run.results[0]!;
    expect(r.verified).toBe(false);
    expect(r.failedRequests).toBe(1);
    expect(r.verification).toMatch(/1 request\(s\) failed: .*HTTP 500/);
    const failed = r.records.filter((rec) => rec.error);
    expect(failed.map((rec) => [rec.item, rec.retries])).toEqual([[11, 1]]);
  });

  it(
    'list: a throttled page is asked for again with the same marker, and the names ' + 'still all check',
    async () => {
      // List page 0 is the fixture check's (the SDK's listing of the set); 1 to 3 are the run's.
      const { run, log } = await through(
        {
          list: (n) =>
            n === 2 ? { kind: 'status', status: 503, code: 'ServerBusy', retryAfter: '0' } : undefined,
        },
        { sourceMethod: 'list', pageSize: 20, processes: 1, maxSockets: 1 },
      );
      expectVerified(run, ['list']);
      const r = run.results[0]!;
      expect(r.requests).toBe(3);
      expect(r.retries).toBe(1);
      const pages = log.filter((e) => e.listIndex !== undefined);
      // The run's second page was asked for twice with the same marker: the fault, then the retry.
      const markers = pages.map((p) => new URL(p.path, 'http://x').searchParams.get('marker'));
      expect(pages.map((p) => p.injected)).toEqual(['none', 'none', 'status', 'none', 'none']);
      expect(markers[1]).toBeNull();
      expect(markers[2]).not.toBeNull();
      expect(markers[3]).toBe(markers[2]);
    },
  );
});

/** A put-server for one test, closed after it whatever happens. */
async function withPutServer(
  test: (server: Awaited<ReturnType<typeof startPutServer>>) => Promise<void>,
  options?: Parameters<typeof startPutServer>[0],
): Promise<void> {
  const server = await startPutServer(options);
  try {
    await test(server);
  } finally {
    await close(server.server);
  }
}

describe('a plain URL server: the set as paths below the URL', () => {
  it('small-files, then head: the files are PUT once, then reused; every file verified', () =>
    withPutServer(async (server) => {
      const url = `${server.url}/dav/`;
      const first = await runDownload(config({ kind: 'url', url }, { sourceMethod: 'small-files' }));
      expectVerified(first, ['small-files']);
      // Every file, then the marker that says the set is complete.
      expect(first.fixtures.created).toHaveLength(FILE_COUNT + 1);
      expect(first.fixtures.created.at(-1)).toBe(`${SET}/${SET_MARKER}`);
      expect(pathsUnder(server.files, `/dav/${SET}/`)).toEqual(
        [
          ...Array.from({ length: FILE_COUNT }, (_, i) => `/dav/${setFileName(SET, i)}`),
          `/dav/${SET}/${SET_MARKER}`,
        ].sort(),
      );
      expect(server.files.get(`/dav/${SET}/${SET_MARKER}`)?.toString()).toBe(
        `{"seed":"${FIXTURE_SEED}","count":${FILE_COUNT},"sizeBytes":${FILE_SIZE}}\n`,
      );
      const puts = server.log.puts;
      const gets = server.log.gets;

      const again = await runDownload(config({ kind: 'url', url }, { sourceMethod: 'small-files' }));
      expectVerified(again, ['small-files']);
      expect(again.fixtures).toEqual({ created: [], reused: FILE_COUNT });
      expect(server.log.puts).toBe(puts);
      // The marker, then every file once, measured.
      expect(server.log.gets - gets).toBe(1 + FILE_COUNT);

      const heads = server.log.heads;
      const head = await runDownload(config({ kind: 'url', url }, { sourceMethod: 'head' }));
      expectVerified(head, ['head']);
      // The marked set: a sample of HEADs to find it there, then one per file measured.
      expect(server.log.heads - heads).toBe(MARKED_SAMPLE + FILE_COUNT);
      expect(byName(head, 'head').verification).toMatch(/50 HEAD\(s\): Content-Length match/);
    }));

  it(
    'a marked set with a sampled file gone is asked for file by file again: the missing one is PUT, ' +
      'the marker kept',
    () =>
      withPutServer(async (server) => {
        const url = `${server.url}/dav/`;
        await runDownload(config({ kind: 'url', url }, { sourceMethod: 'head' }));
        // The last file is always in the sample.
        server.files.delete(`/dav/${setFileName(SET, FILE_COUNT - 1)}`);
        const heads = server.log.heads;
        const run = await runDownload(config({ kind: 'url', url }, { sourceMethod: 'small-files' }));
        expectVerified(run, ['small-files']);
        expect(run.fixtures.created).toEqual([setFileName(SET, FILE_COUNT - 1), `${SET}/${SET_MARKER}`]);
        expect(run.fixtures.reused).toBe(FILE_COUNT - 1);
        expect(server.log.heads - heads).toBe(MARKED_SAMPLE + FILE_COUNT);
      }),
  );

  it('a marker for another set (another content) is not trusted: every file is asked for', () =>
    withPutServer(async (server) => {
      const url = `${server.url}/dav/`;
      server.files.set(
        `/dav/${SET}/${SET_MARKER}`,
        Buffer.from('{"seed":"other","count":50,"sizeBytes":1}\n'),
      );
      const run = await runDownload(config({ kind: 'url', url }, { sourceMethod: 'small-files' }));
      expectVerified(run, ['small-files']);
      expect(run.fixtures.created).toHaveLength(FILE_COUNT + 1);
      expect(server.files.get(`/dav/${SET}/${SET_MARKER}`)?.toString()).toContain(FIXTURE_SEED);
    }));

  it('a file changed on the server fails the run with an MD5 mismatch naming it', () =>
    withPutServer(async (server) => {
      const url = `${server.url}/dav/`;
      await runDownload(config({ kind: 'url', url }, { sourceMethod: 'head' }));
      server.files.set(`/dav/${setFileName(SET, 5)}`, Buffer.alloc(FILE_SIZE, 7));
      const run = await runDownload(config({ kind: 'url', url }, { sourceMethod: 'small-files' }));
      expect(run.results[0]!.verified).toBe(false);
      expect(run.results[0]!.verification).toMatch(new RegExp(`MD5 MISMATCH in ${setFileName(SET, 5)}`));
      // The discard sink hashes as the bytes come: the same file, named the same way.
      const discarded = await runDownload(
        config({ kind: 'url', url }, { sourceMethod: 'small-files', sink: 'discard' }),
      );
      expect(discarded.results[0]!.verified).toBe(false);
      expect(discarded.results[0]!.verification).toMatch(
        new RegExp(`^MD5 MISMATCH in ${setFileName(SET, 5)}: got `),
      );
    }));

  it('a server that refuses PUT and lacks the files: one clear error naming what to do', () =>
    withPutServer(
      async (server) => {
        await expect(
          runDownload(config({ kind: 'url', url: `${server.url}/ro/` }, { sourceMethod: 'small-files' })),
        ).rejects.toThrow(/missing and the server refused to take it.*put the files there first/);
      },
      { refusePut: 405 },
    ));
});
