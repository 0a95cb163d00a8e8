// A stop keeps what was measured, whatever cleanup is left: the results file is written at the stop,
// before any cleanup; cleanup after a stop has a bounded budget (--stop-grace) and says what it left;
// the embedded Azurite, whose blobs end with its process, is not cleaned at all; and a long cleanup
// shows progress lines as a run does. Real CLI sessions against real servers.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pLimit from 'p-limit';
import { readResults } from '../src/results/file.js';
import { blobStore } from '../src/storage/blob-store.js';
import { FileSet } from '../src/plan/items.js';
import { azuriteForFile, blobNames, containerOf } from './helpers/azurite.js';
import { startCli } from './helpers/cli.js';
import { close } from './helpers/http-servers.js';
import { pathsUnder, startPutServer, type PutServer } from './helpers/put-server.js';
import { freshDirs } from './helpers/temp-dirs.js';

const fresh = freshDirs('stop-cleanup-');

/** A plain file server whose DELETEs take 100 ms each: 3,000 files take ~9 s to delete 32 at a time. */
let slowDelete: PutServer;
beforeAll(async () => {
  slowDelete = await startPutServer({ deleteDelayMs: 100 });
});
afterAll(() => close(slowDelete.server));

describe('a stop during a long cleanup', () => {
  it(
    "SIGTERM while a run's 3,000 uploads are deleted: exit 143 within the grace, its results kept, " +
      'what is left named',
    async () => {
      const cwd = await fresh();
      const cli = startCli(
        [
          'upload',
          '--url',
          `${slowDelete.url}/dav/`,
          '--file-count',
          '3000',
          '--file-size',
          '1B',
          '--processes',
          '1',
          '--max-sockets',
          '16',
          '--runs',
          '2',
          '--stop-grace',
          '2s',
          '--progress-interval',
          '200ms',
          '--results',
          'r.json',
          '--log-level',
          'info',
        ],
        { cwd, limitMs: 60_000 },
      );
      // Progress lines follow the deletion as they follow a run: how many of how many, and the time.
      expect(
        await cli.waitFor(/progress: small-files run 1\/2: cleanup \d+\/3000, \d+ s/, 40_000),
        cli.stderr(),
      ).toBe(true);
      const signalled = performance.now();
      cli.child.kill('SIGTERM');
      // The results file says SIGTERM while the process is still deleting: written before cleanup.
      let writtenBeforeExit = false;
      for (let i = 0; i < 100 && cli.child.exitCode === null && !writtenBeforeExit; i++) {
        writtenBeforeExit =
          (await readFile(join(cwd, 'r.json'), 'utf8').catch(() => '')).includes('"interrupted":"SIGTERM"') &&
          cli.child.exitCode === null;
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(writtenBeforeExit).toBe(true);
      const run = await cli.exited;
      const afterSignalMs = performance.now() - signalled;
      expect(run.code, run.stderr).toBe(143);
      // The 2 s grace, then the results and the report: well inside docker stop's 10 s.
      expect(afterSignalMs).toBeLessThan(5_000);
      // Cleanup was cut, not finished: files of the run are still on the server, and the line says how many,
      // where, and how to remove them.
      const left = pathsUnder(slowDelete.files, '/dav/run-');
      expect(left.length).toBeGreaterThan(0);
      const line = new RegExp(
        String.raw`cleanup cut at the 2 s stop grace \(--stop-grace\): (\d+) ` +
          String.raw`file\(s\) below (http:\/\/127\.0\.0\.1:\d+\/dav\/run-[^ ]+\/small-files\/0\/); ` +
          String.raw`remove them with: curl -X DELETE -H 'Depth: infinity' \2`,
      ).exec(run.stderr);
      expect(line, run.stderr).not.toBeNull();
      // Deletions in flight when the grace ran out may still have landed.
      expect(Number(line![1])).toBeGreaterThanOrEqual(left.length);
      expect(Number(line![1])).toBeLessThan(3000);
      // The run that finished is in a valid results file, marked partial.
      const doc = await readResults(join(cwd, 'r.json'));
      expect(doc.complete).toBe(false);
      expect(doc.interrupted).toBe('SIGTERM');
      expect(doc.runs).toHaveLength(1);
      expect(doc.runs[0]!.verified).toBe(true);
      expect(run.stdout).toContain('STOPPED by SIGTERM');
      for (const p of left) slowDelete.files.delete(p);
    },
  );

  it('--stop-grace 0: nothing is deleted after the stop, and the line says what stays', async () => {
    const cwd = await fresh();
    const cli = startCli(
      [
        'upload',
        '--url',
        `${slowDelete.url}/dav/`,
        '--file-count',
        '2000',
        '--file-size',
        '1B',
        '--processes',
        '1',
        '--max-sockets',
        '16',
        '--runs',
        '1',
        '--stop-grace',
        '0',
        '--progress-interval',
        '200ms',
        '--results',
        'r.json',
        '--log-level',
        'info',
      ],
      { cwd, limitMs: 60_000 },
    );
    expect(await cli.waitFor(/progress: small-files run 1\/1: cleanup/, 40_000), cli.stderr()).toBe(true);
    cli.child.kill('SIGTERM');
    const run = await cli.exited;
    expect(run.code, run.stderr).toBe(143);
    expect(run.stderr).toMatch(
      new RegExp(
        String.raw`cleanup cut at the 0 s stop grace \(--stop-grace\): \d+ ` +
          String.raw`file\(s\) below http:\/\/127\.0\.0\.1:\d+\/dav\/run-`,
      ),
    );
    const doc = await readResults(join(cwd, 'r.json'));
    expect(doc.runs).toHaveLength(1);
    for (const p of pathsUnder(slowDelete.files, '/dav/run-')) slowDelete.files.delete(p);
  });
});

describe("a blob container's removal stopped part-way", () => {
  const azurite = azuriteForFile();

  it('counts what it left and names the container and the command that removes the rest', async () => {
    const container = containerOf(azurite(), 'stopped-removal');
    await container.create();
    const prefix = 'run-x/small-files/0';
    const limit = pLimit(32);
    await Promise.all(
      Array.from({ length: 1300 }, (_, i) =>
        limit(() => container.getBlockBlobClient(`${prefix}/f${i}`).upload('x', 1)),
      ),
    );
    const stop = new AbortController();
    const seen: number[] = [];
    // Stopped once the first batch of 256 is deleted: the batches not yet sent are never sent.
    const { left } = await blobStore(container).remove(prefix, FileSet.of(prefix, 1300, 1, 'upload'), {
      signal: stop.signal,
      progress: (done) => {
        seen.push(done);
        if (done > 0) stop.abort();
      },
    });
    const remaining = (await blobNames(container)).length;
    expect(seen[0]).toBe(0);
    expect(left).toBeGreaterThan(0);
    expect(left).toBeLessThan(1300);
    // What it counts as left is at least what is there: deletions in flight may still have landed.
    expect(left).toBeGreaterThanOrEqual(remaining);
    expect(remaining).toBeGreaterThan(0);
    expect(blobStore(container).leftBehind(prefix, left)).toBe(
      `${left} blob(s) under ${prefix}/ in container stopped-removal; remove them with: az storage ` +
        `blob delete-batch ` +
        `--source ${container.url} --pattern '${prefix}/*' (and your credentials)`,
    );
  });
});

describe('the embedded Azurite after a stop', () => {
  it(
    'is not cleaned: its blobs end with its process; the stop exits 143 with the ' + 'runs that finished',
    async () => {
      const cwd = await fresh();
      const cli = startCli(
        [
          'upload',
          '--upload-method',
          'small-files',
          '--file-count',
          '300',
          '--file-size',
          '1B',
          '--processes',
          '1',
          '--max-sockets',
          '8',
          '--runs',
          '20',
          '--results',
          'r.json',
          '--log-level',
          'verbose',
        ],
        { cwd, limitMs: 90_000 },
      );
      // The second run is going: the first one's blobs were deleted after it, as every finished run's are.
      expect(
        await cli.waitFor(/small-files: 300 request\(s\)[\s\S]*small-files: 300 request\(s\)/, 60_000),
        cli.stderr(),
      ).toBe(true);
      const beforeStop = cli.stderr().length;
      cli.child.kill('SIGTERM');
      const run = await cli.exited;
      expect(run.code, run.stderr).toBe(143);
      const afterStop = run.stderr.slice(beforeStop);
      expect(afterStop).toMatch(
        new RegExp(
          String.raw`small-files run \d+: nothing deleted after the stop: the ` +
            "embedded Azurite's blobs end with its process",
        ),
      );
      expect(afterStop).not.toMatch(/deleted \d+ of \d+ blob\(s\)/);
      const doc = JSON.parse(await readFile(join(cwd, 'r.json'), 'utf8')) as {
        interrupted: string;
        runs: unknown[];
      };
      expect(doc.interrupted).toBe('SIGTERM');
      expect(doc.runs.length).toBeGreaterThanOrEqual(1);
    },
  );
});
