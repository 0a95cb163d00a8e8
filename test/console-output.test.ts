// The default console output, answer first: the built CLI with no options but a small object and
// few runs on the embedded Azurite prints at most 30 lines to stdout and stderr together, ending
// with the recommendation and its reason; one warning per kind; per-run lines only at verbose.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const DOWNLOAD_JS = resolve('dist/download.js');
const UPLOAD_JS = resolve('dist/upload.js');
/** Where the time went, in the seed's shape: each phase's share of request time, then the sockets opened. */
const PHASE_LINE = new RegExp(
  '^(\\S+): (retry \\d+%, )?wait \\d+%, (dns \\d+%, )?tcp \\d+%, send \\d+%, firstByte \\d+%, ' +
    'download \\d+% of request time; \\d+ new sockets? for \\d+ requests? a run$',
);
const cwd = mkdtempSync(join(tmpdir(), 'bc-console-'));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

function start(env: Record<string, string> = {}, args: string[] = [], entry = DOWNLOAD_JS) {
  // What `npm start` runs, in an empty directory (no .env), made quick: 1 MiB and 4 runs each.
  return spawnSync(process.execPath, [entry, ...args], {
    cwd,
    encoding: 'utf8',
    timeout: 120_000,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: cwd,
      FILE_SIZE: '1MiB',
      BLOB_CACHER_RUNS: '4',
      BLOB_CACHER_WARMUP: '1',
      ...env,
    },
  });
}

describe('npm start, answer first', () => {
  const run = start();
  const out = run.stdout.trimEnd().split('\n');
  const err = run.stderr
    .trimEnd()
    .split('\n')
    .filter((l) => l !== '');

  it('prints at most 30 lines in all, ending with the recommendation and its reason', () => {
    expect(run.status, run.stderr).toBe(0);
    expect(out.length + err.length, `${run.stderr}\n${run.stdout}`).toBeLessThanOrEqual(30);
    expect(out.at(-1)).toMatch(/^Recommended: \S+ — .+; \d+ requests? per object and .+\./);
    // Plain text off a terminal: no colour codes.
    expect(run.stdout).not.toMatch(/\x1b\[/);
  });

  it("says where each contender's time went, one line each (the SDK's calls have no phases)", () => {
    const phased = out.filter((l) => PHASE_LINE.test(l)).map((l) => PHASE_LINE.exec(l)![1]);
    expect(phased.sort()).toEqual(['assemble', 'chunked', 'round-robin', 'single']);
  });

  it('the header says the runs each contender has, as measured; per-run lines are verbose only', () => {
    expect(out[1]).toMatch(/; 4 measured runs each$/);
    expect(run.stderr).not.toMatch(/request\(s\) over/);
  });

  it('one warning line per kind, each naming its contenders once', () => {
    const kinds = out.filter((l) => l.startsWith('warning: ')).map((l) => l.split(':')[1]);
    expect(new Set(kinds).size).toBe(kinds.length);
    expect(out.filter((l) => /server's span/.test(l)).length).toBeLessThanOrEqual(1);
  });

  it('--log-level verbose shows the per-run lines; --color always colours the answer', () => {
    const loud = start({ LOG_LEVEL: 'verbose', BLOB_CACHER_RUNS: '1', BLOB_CACHER_WARMUP: '0' }, [
      '--source-method',
      'single',
      '--color',
      'always',
    ]);
    expect(loud.status, loud.stderr).toBe(0);
    expect(loud.stderr).toMatch(/verbose: single: 1 request\(s\) over 1 process\(es\)/);
    expect(loud.stdout).toMatch(/\x1b\[1mRecommended: single/);
  });
});

describe("the seed's upload, made small", () => {
  // The seed's variables (FILE_SIZE in KB, FILE_COUNT, MAX_SOCKETS, PROCESSES), fewer files and processes.
  const run = start({ FILE_SIZE: '102', FILE_COUNT: '240', MAX_SOCKETS: '8', PROCESSES: '2' }, [], UPLOAD_JS);
  const out = run.stdout.trimEnd().split('\n');
  const err = run.stderr
    .trimEnd()
    .split('\n')
    .filter((l) => l !== '');

  it('shows where the time went and stays within 30 lines', () => {
    expect(run.status, run.stderr).toBe(0);
    expect(out.length + err.length, `${run.stderr}\n${run.stdout}`).toBeLessThanOrEqual(30);
    expect(out.filter((l) => PHASE_LINE.test(l)).map((l) => PHASE_LINE.exec(l)![1])).toEqual(['small-files']);
    expect(out.find((l) => PHASE_LINE.test(l))).toMatch(/ for 240 requests a run$/);
  });
});

describe('--version', () => {
  it('prints the package version and exits 0', async () => {
    const { version } = JSON.parse(
      await import('node:fs').then((fs) => fs.readFileSync(resolve('package.json'), 'utf8')),
    ) as { version: string };
    const r = spawnSync(process.execPath, [resolve('dist/cli.js'), '--version'], {
      encoding: 'utf8',
      timeout: 20_000,
      env: { PATH: process.env.PATH ?? '' },
    });
    expect([r.status, r.stdout, r.stderr]).toEqual([0, `blob-cacher ${version}\n`, '']);
  });
});
