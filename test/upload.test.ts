// Every upload strategy against a real Azurite, checked from the outside with the SDK: names,
// lengths and Content-MD5 of what was stored, the committed block list, and cleanup. Bad upload
// input goes through the real CLI (the build). The engine and its workers run from src/.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ContainerClient } from '@azure/storage-blob';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contentBuffer, contentMd5, FIXTURE_SEED } from '../src/payload/content.js';
import { setLogLevel } from '../src/log/logger.js';
import { runUpload, type UploadRunResult } from '../src/engine/upload.js';
import { verifyFromRecords } from '../src/verify/upload.js';
import type { OpRecord } from '../src/metrics/records.js';
import { RecordTable } from '../src/metrics/record-table.js';
import { buildProgram, loadUploadConfig, parseFlags, type UploadConfig } from '../src/config/load.js';
import { UPLOAD_OPTIONS } from '../src/config/options.js';
import { containerOf, startEmbeddedAzurite, type EmbeddedAzurite } from './helpers/azurite.js';
import { ONE_RUN } from './helpers/cli-env.js';
import { testConfig, type TestSettings } from './helpers/config.js';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const UPLOAD_JS = join(ROOT, 'dist', 'upload.js');
const CONTAINER = 'upload-test';

let azurite: EmbeddedAzurite;
let container: ContainerClient;
let tmp: string;
let dirCount = 0;

function freshDir(): string {
  const dir = join(tmp, `d${dirCount++}`);
  mkdirSync(dir);
  return dir;
}

function config(overrides: TestSettings<UploadConfig> = {}): UploadConfig {
  return testConfig('upload', {
    logLevel: 'warn',
    uploadMethod: 'small-files',
    fileCount: 4,
    fileSizeBytes: 1000,
    blobSizeBytes: 100_000,
    blockSizeBytes: 40_000,
    concurrency: 4,
    thresholdBytes: 0,
    processes: 1,
    maxSockets: 4,
    container: CONTAINER,
    keep: false,
    httpClient: 'raw',
    trace: true,
    maxRetries: 3,
    timeoutMs: 30_000,
    runs: 1,
    warmup: 0,
    format: 'console',
    credentials: { kind: 'key', account: azurite.account, key: azurite.key, endpoint: azurite.endpoint },
    ...overrides,
  });
}

/** The one result of a single-strategy run, which must have uploaded and verified without errors. */
function verifiedResult(run: UploadRunResult, strategy: string) {
  expect(run.results.map((r) => r.strategy)).toEqual([strategy]);
  const r = run.results[0]!;
  expect(r.error, strategy).toBeUndefined();
  expect(r.verified, `${strategy}: ${r.verification}`).toBe(true);
  expect(r.failedRequests, strategy).toBe(0);
  return r;
}

async function namesUnder(prefix: string): Promise<string[]> {
  const names: string[] = [];
  for await (const b of container.listBlobsFlat({ prefix })) names.push(b.name);
  return names.sort();
}

async function downloadedMd5(blob: string): Promise<{ lengthBytes: number; md5: string }> {
  const body = await container.getBlobClient(blob).downloadToBuffer();
  return { lengthBytes: body.length, md5: createHash('md5').update(body).digest('base64') };
}

const countBy = <T>(xs: readonly T[]) =>
  xs.reduce((m, x) => m.set(x, (m.get(x) ?? 0) + 1), new Map<T, number>());

beforeAll(async () => {
  setLogLevel('warn');
  azurite = await startEmbeddedAzurite();
  container = containerOf(azurite, CONTAINER);
  tmp = mkdtempSync(join(tmpdir(), 'blob-cacher-upload-'));
});

afterAll(async () => {
  await azurite?.stop();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

describe('verification from what the workers recorded', () => {
  const items = [0, 1, 2].map((i) => ({
    index: i,
    blob: `f${i}`,
    destOffsetBytes: i * 100,
    lengthBytes: 100,
  }));
  const record = (i: number, extra: Partial<OpRecord>): OpRecord => ({
    worker: 0,
    item: i,
    offsetBytes: i * 100,
    bytes: 100,
    status: 201,
    startEpochMs: 0,
    totalMs: 1,
    phases: {},
    reused: false,
    retries: 0,
    throttled: 0,
    backoffMs: 0,
    ...extra,
  });
  const right = (i: number) => record(i, { md5: contentMd5(FIXTURE_SEED, i * 100, 100) });

  it(
    "the service's MD5 for every blob: verified without asking the store; one " + 'wrong MD5 names its blob',
    () => {
      expect(
        verifyFromRecords(items, RecordTable.from(items.map((i) => right(i.index))), false)?.verified,
      ).toBe(true);
      const bad = verifyFromRecords(
        items,
        RecordTable.from([right(0), record(1, { md5: 'AAAAAAAAAAAAAAAAAAAAAA==' }), right(2)]),
        false,
      );
      expect(bad).toEqual({
        verified: false,
        verification: expect.stringMatching(
          new RegExp(
            String.raw`^1 of 3 blob\(s\) stored wrong, by the MD5 the service ` +
              'answered; first: MD5 MISMATCH for f1: got AAAA',
          ),
        ),
      });
    },
  );

  it(
    'an item without an MD5 (a staged block) leaves it to the store; a failed ' + 'read-back fails the run',
    () => {
      expect(
        verifyFromRecords(items, RecordTable.from([right(0), record(1, {}), right(2)]), false),
      ).toBeUndefined();
      expect(
        verifyFromRecords(
          items,
          RecordTable.from([right(0), record(1, { readBackError: 'GET f1: HTTP 404' }), right(2)]),
          true,
        ),
      ).toEqual({
        verified: false,
        verification: '1 of 3 file(s) could not be read back; first: GET f1: HTTP 404',
      });
    },
  );
});

describe('small-files', () => {
  const base = {
    uploadMethod: 'small-files',
    processes: 2,
    maxSockets: 4,
    fileCount: 50,
    fileSizeBytes: 10_000,
  } as const;

  it(
    '50 x 10000 bytes over 2 processes: both workers put 25, and the service holds each file with ' +
      'the seed stream at i*10000',
    async () => {
      const run = await runUpload(config({ ...base, keep: true }));
      const r = verifiedResult(run, 'small-files');
      expect(r.requests).toBe(50);
      expect(r.bytes).toBe(500_000);
      expect(r.records.every((rec) => rec.status === 201 && rec.bytes === 10_000)).toBe(true);
      expect(Object.fromEntries(countBy(r.records.map((rec) => rec.worker)))).toEqual({ 0: 25, 1: 25 });
      expect(r.records.map((rec) => rec.item).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 50 }, (_, i) => i),
      );
      // Verified from the MD5 the service answered each Put Blob with: no listing, no read-back.
      expect(r.verification).toBe(
        '50 blob(s): the MD5 the service answered each Put Blob with matches what was sent',
      );
      expect(r.records.every((rec) => rec.md5 === contentMd5(FIXTURE_SEED, rec.offsetBytes, 10_000))).toBe(
        true,
      );

      const dir = `${run.prefix}/small-files/0/`;
      const stored = new Map<string, { lengthBytes?: number; md5?: string }>();
      for await (const b of container.listBlobsFlat({ prefix: `${run.prefix}/` })) {
        const md5 = b.properties.contentMD5;
        stored.set(b.name, {
          lengthBytes: b.properties.contentLength,
          md5: md5 ? Buffer.from(md5).toString('base64') : undefined,
        });
      }
      const expected = Array.from({ length: 50 }, (_, i) => `${dir}file-${String(i).padStart(7, '0')}`);
      expect([...stored.keys()].sort()).toEqual(expected);
      for (const [i, name] of expected.entries()) {
        expect(stored.get(name), name).toEqual({
          lengthBytes: 10_000,
          md5: contentMd5(FIXTURE_SEED, i * 10_000, 10_000),
        });
      }
      // The service's MD5 is of what it stored: one file read back byte for byte ties the two together.
      const body = await container.getBlobClient(expected[37]!).downloadToBuffer();
      expect(body.equals(contentBuffer(FIXTURE_SEED, 37 * 10_000, 10_000))).toBe(true);
    },
  );

  it.each(['raw', 'node'] as const)(
    'through the %s client: every file stored whole, sockets reused, phases traced',
    async (httpClient) => {
      const run = await runUpload(config({ ...base, processes: 1, maxSockets: 3, httpClient, keep: true }));
      const r = verifiedResult(run, 'small-files');
      expect(r.requests).toBe(50);
      // 3 sockets for 50 PUTs: the rest reuse them and queue for them (wait).
      expect(r.records.filter((rec) => !rec.reused)).toHaveLength(3);
      expect(
        r.records.every((rec) => rec.phases.send !== undefined && rec.phases.firstByte !== undefined),
      ).toBe(true);
      expect(Math.max(...r.records.map((rec) => rec.phases.wait ?? 0))).toBeGreaterThan(0);
      const stored = (await namesUnder(`${run.prefix}/`)).length;
      expect(stored).toBe(50);
      const body = await container
        .getBlobClient(`${run.prefix}/small-files/0/file-0000049`)
        .downloadToBuffer();
      expect(body.equals(contentBuffer(FIXTURE_SEED, 49 * 10_000, 10_000))).toBe(true);
    },
  );

  it('without keep, nothing under the run prefix remains', async () => {
    const run = await runUpload(config({ ...base, keep: false }));
    verifiedResult(run, 'small-files');
    expect(await namesUnder(`${run.prefix}/`)).toEqual([]);
  });
});

describe('blocks', () => {
  it(
    '2500001 bytes in 1000000-byte blocks: 3 Put Block + a commit, and the committed blob is the ' +
      'seed stream from 0',
    async () => {
      const run = await runUpload(
        config({
          uploadMethod: 'blocks',
          blobSizeBytes: 2_500_001,
          blockSizeBytes: 1_000_000,
          thresholdBytes: 0,
          processes: 2,
          keep: true,
        }),
      );
      const r = verifiedResult(run, 'blocks');
      expect(r.records).toHaveLength(4);
      const puts = r.records.filter((rec) => rec.worker >= 0);
      const commits = r.records.filter((rec) => rec.worker === -1);
      expect(puts.map((rec) => [rec.offsetBytes, rec.bytes, rec.status])).toEqual([
        [0, 1_000_000, 201],
        [1_000_000, 1_000_000, 201],
        [2_000_000, 500_001, 201],
      ]);
      expect(commits.map((rec) => [rec.bytes, rec.status, rec.error])).toEqual([[0, 201, undefined]]);
      expect(r.bytes).toBe(2_500_001);
      // The commit goes after the last block (both workers' blocks are in), and the duration runs from
      // the first block's start to the commit's end: nothing between them is left out.
      const lastBlockEnd = Math.max(...puts.map((rec) => rec.startEpochMs + rec.totalMs));
      const commitEnd = commits[0]!.startEpochMs + commits[0]!.totalMs;
      expect(commits[0]!.startEpochMs).toBeGreaterThanOrEqual(lastBlockEnd);
      expect(r.wallMs).toBeGreaterThanOrEqual(commitEnd - Math.min(...puts.map((rec) => rec.startEpochMs)));

      const blob = `${run.prefix}/blocks/0/large.blob`;
      expect(await namesUnder(`${run.prefix}/`)).toEqual([blob]);
      expect(await downloadedMd5(blob)).toEqual({
        lengthBytes: 2_500_001,
        md5: contentMd5(FIXTURE_SEED, 0, 2_500_001),
      });

      const list = await container.getBlockBlobClient(blob).getBlockList('all');
      expect(list.uncommittedBlocks ?? []).toEqual([]);
      const committed = list.committedBlocks ?? [];
      expect(committed.map((b) => b.size)).toEqual([1_000_000, 1_000_000, 500_001]);
      // The service requires every block id of a blob to have the same length before base64.
      const decoded = committed.map((b) => Buffer.from(b.name, 'base64'));
      expect(new Set(decoded.map((d) => d.length)).size).toBe(1);
      expect(new Set(decoded.map((d) => d.toString('hex'))).size).toBe(3);
    },
  );

  it('a blob at the threshold goes as exactly one Put Blob, with no blocks', async () => {
    const run = await runUpload(
      config({
        uploadMethod: 'blocks',
        blobSizeBytes: 500_000,
        blockSizeBytes: 200_000,
        thresholdBytes: 500_000,
        keep: true,
      }),
    );
    const r = verifiedResult(run, 'blocks');
    expect(r.records.map((rec) => [rec.worker, rec.offsetBytes, rec.bytes, rec.status])).toEqual([
      [0, 0, 500_000, 201],
    ]);

    const blob = `${run.prefix}/blocks/0/large.blob`;
    expect(await downloadedMd5(blob)).toEqual({
      lengthBytes: 500_000,
      md5: contentMd5(FIXTURE_SEED, 0, 500_000),
    });
    const list = await container.getBlockBlobClient(blob).getBlockList('all');
    expect(list.uncommittedBlocks ?? []).toEqual([]);
    expect(list.committedBlocks ?? []).toEqual([]);
  });

  it('one byte over the threshold it is staged as blocks and committed, and deleted afterwards', async () => {
    const run = await runUpload(
      config({
        uploadMethod: 'blocks',
        blobSizeBytes: 500_000,
        blockSizeBytes: 200_000,
        thresholdBytes: 499_999,
      }),
    );
    const r = verifiedResult(run, 'blocks');
    expect(r.records.map((rec) => [rec.worker >= 0 ? 'put block' : 'commit', rec.bytes])).toEqual([
      ['put block', 200_000],
      ['put block', 200_000],
      ['put block', 100_000],
      ['commit', 0],
    ]);
    expect(await namesUnder(`${run.prefix}/`)).toEqual([]);
  });
});

describe('SDK baselines', () => {
  it.each([
    {
      name: 'sdk-upload in blocks',
      overrides: {
        uploadMethod: 'sdk-upload',
        blobSizeBytes: 300_001,
        blockSizeBytes: 100_000,
        concurrency: 2,
      },
      requests: 1,
      bytes: 300_001,
    },
    {
      name: 'sdk-upload single shot',
      overrides: { uploadMethod: 'sdk-upload', blobSizeBytes: 50_000, thresholdBytes: 50_000 },
      requests: 1,
      bytes: 50_000,
    },
    {
      name: 'sdk-small-files',
      overrides: {
        uploadMethod: 'sdk-small-files',
        fileCount: 6,
        fileSizeBytes: 3_000,
        processes: 2,
        maxSockets: 2,
      },
      requests: 6,
      bytes: 18_000,
    },
  ] as const)('$name: verified, and deleted afterwards', async ({ overrides, requests, bytes }) => {
    const run = await runUpload(config(overrides));
    const r = verifiedResult(run, overrides.uploadMethod);
    expect(r.requests).toBe(requests);
    expect(r.bytes).toBe(bytes);
    expect(await namesUnder(`${run.prefix}/`)).toEqual([]);
  });
});

describe('FILE_SIZE for uploads: a bare number means KB', () => {
  function load(argv: readonly string[], env: Record<string, string>): UploadConfig {
    const flags = parseFlags(buildProgram('upload', UPLOAD_OPTIONS, 'test'), argv);
    if (!flags) throw new Error('parseFlags printed help');
    return loadUploadConfig(flags, { env });
  }

  it.each([
    { raw: '102', bytes: 102_000 },
    { raw: '100KiB', bytes: 102_400 },
    { raw: '102KB', bytes: 102_000 },
    { raw: '4096B', bytes: 4096 },
  ])('FILE_SIZE=$raw is $bytes bytes, from the environment and from --file-size', ({ raw, bytes }) => {
    expect(load([], { FILE_SIZE: raw }).fileSizeBytes).toBe(bytes);
    expect(load(['--file-size', raw], {}).fileSizeBytes).toBe(bytes);
  });

  it('BLOB_CACHER_HTTP_CLIENT / --http-client choose the PUT client; ours by default', () => {
    expect(load([], {}).httpClient).toBe('raw');
    expect(load([], { BLOB_CACHER_HTTP_CLIENT: 'node' }).httpClient).toBe('node');
    expect(load(['--http-client', 'raw'], { BLOB_CACHER_HTTP_CLIENT: 'node' }).httpClient).toBe('raw');
  });
});

describe('bad upload input through the CLI: one line on stderr, exit code 2', () => {
  beforeAll(() => {
    if (!existsSync(UPLOAD_JS))
      throw new Error(`${UPLOAD_JS} is missing; build first: node_modules/.bin/tsc -p tsconfig.json`);
  });

  it.each([
    { name: 'FILE_COUNT=0', env: { FILE_COUNT: '0' }, option: /FILE_COUNT/, why: /whole number/ },
    { name: 'FILE_SIZE=abc', env: { FILE_SIZE: 'abc' }, option: /FILE_SIZE/, why: /"abc".*size/ },
    { name: 'PROCESSES=-1', env: { PROCESSES: '-1' }, option: /PROCESSES/, why: /1 to 256/ },
    { name: 'MAX_SOCKETS=0', env: { MAX_SOCKETS: '0' }, option: /MAX_SOCKETS/, why: /whole number/ },
    {
      name: 'BLOB_CACHER_UPLOAD_METHOD=nope',
      env: { BLOB_CACHER_UPLOAD_METHOD: 'nope' },
      option: /BLOB_CACHER_UPLOAD_METHOD/,
      why: /"nope".*small-files/,
    },
    {
      name: 'BLOB_CACHER_HTTP_CLIENT=curl',
      env: { BLOB_CACHER_HTTP_CLIENT: 'curl' },
      option: /BLOB_CACHER_HTTP_CLIENT/,
      why: /"curl".*raw, node/,
    },
    // The limit is checked after parsing, so the line names the option by its flag.
    {
      name: 'BLOB_CACHER_BLOCK_SIZE=5000MiB',
      env: { BLOB_CACHER_BLOCK_SIZE: '5000MiB' },
      option: /BLOB_CACHER_BLOCK_SIZE|--block-size/,
      why: /4000MiB/,
    },
  ])('$name', ({ env, option, why }) => {
    const cwd = freshDir();
    // The timeout turns bad input that is wrongly accepted (and starts an upload) into a failure.
    const r = spawnSync(process.execPath, [UPLOAD_JS], {
      cwd,
      env: { ...ONE_RUN, PATH: process.env.PATH ?? '', HOME: cwd, ...env },
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(
      { status: r.status, signal: r.signal, stdout: r.stdout },
      `stderr was ${JSON.stringify(r.stderr)}`,
    ).toEqual({ status: 2, signal: null, stdout: '' });
    const lines = r.stderr.split('\n');
    expect(lines, `stderr was ${JSON.stringify(r.stderr)}`).toHaveLength(2);
    expect(lines[1]).toBe('');
    const line = lines[0]!;
    expect(line).toMatch(/^blob-cacher: /);
    expect(line).toMatch(option);
    expect(line).toMatch(why);
    expect(line).not.toMatch(/\bat .+:\d+:\d+|Error:/);
  });
});
