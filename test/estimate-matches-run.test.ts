// The cost estimate printed before a run against an account counts, per contender, the requests its
// plan makes. Checked against what runs on the embedded Azurite recorded, for the contenders whose
// count depends on more than one option: assemble (its parts follow --concurrency, never
// --range-size), chunked (--range-size ranges) and blocks (one Put Blob at or below
// --single-shot-size, else its blocks and their commit).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDownloadConfig, loadUploadConfig } from '../src/config/load.js';
import { sessionEstimate } from '../src/cli/output.js';
import { startCli } from './helpers/cli.js';
import { freshDirsSync } from './helpers/temp-dirs.js';

const scratch = freshDirsSync('bc-estimate-');

/** Reads (or writes) the estimate line counts for a session of this environment. */
async function estimated(command: 'download' | 'upload', env: Record<string, string>): Promise<number> {
  const config = command === 'download' ? loadDownloadConfig({}, { env }) : loadUploadConfig({}, { env });
  const line = await sessionEstimate(command, config, 1);
  const m = /(\d+) reads, (\d+) writes/.exec(line);
  expect(m, line).not.toBeNull();
  return Number(m![command === 'download' ? 1 : 2]);
}

/** The requests the session's runs recorded, per contender, warm-ups included. */
async function recorded(command: 'download' | 'upload', env: Record<string, string>) {
  const cwd = scratch();
  const run = startCli([command, '--results', 'r.json', '--log-level', 'warn'], {
    cwd,
    env,
    limitMs: 90_000,
  });
  const done = await run.exited;
  expect(done.code, done.stderr).toBe(0);
  const doc = JSON.parse(readFileSync(join(cwd, 'r.json'), 'utf8')) as {
    runs: { strategy: string; requests: number }[];
  };
  const per = new Map<string, number>();
  for (const r of doc.runs) per.set(r.strategy, (per.get(r.strategy) ?? 0) + r.requests);
  return per;
}

describe('the estimate counts the requests the runs make', () => {
  it('assemble reads --concurrency parts whatever --range-size says; chunked reads the ranges', async () => {
    const base = {
      FILE_SIZE: '1MiB',
      CONCURRENCY: '2',
      BLOB_CACHER_RANGE_SIZE: '256KiB',
      BLOB_CACHER_RUNS: '2',
      BLOB_CACHER_WARMUP: '0',
    };
    for (const [method, perRun] of [
      ['assemble', 2],
      ['chunked', 4],
    ] as const) {
      const env = { ...base, SOURCE_METHOD: method };
      const runs = await recorded('download', env);
      expect(runs.get(method)).toBe(2 * perRun);
      expect(await estimated('download', env)).toBe(runs.get(method));
    }
  }, 120_000);

  it('blocks under --single-shot-size is one Put Blob a run; over it, its blocks and the commit', async () => {
    for (const [single, perRun] of [
      ['2MiB', 1],
      ['0', 4 + 1],
    ] as const) {
      const env = {
        BLOB_CACHER_UPLOAD_METHOD: 'blocks',
        BLOB_CACHER_BLOB_SIZE: '1MiB',
        BLOB_CACHER_BLOCK_SIZE: '256KiB',
        BLOB_CACHER_SINGLE_SHOT_SIZE: single,
        BLOB_CACHER_RUNS: '2',
        BLOB_CACHER_WARMUP: '0',
      };
      const runs = await recorded('upload', env);
      expect(runs.get('blocks')).toBe(2 * perRun);
      expect(await estimated('upload', env)).toBe(runs.get('blocks'));
    }
  }, 120_000);
});
