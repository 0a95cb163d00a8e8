// How a run is stopped: one stop sent twice in a moment (timeout(1) signals
// the process, then its group) is one stop; SIGHUP stops as SIGTERM does, with partial results; and
// a coordinator killed with SIGKILL leaves no scratch behind in the temp directory.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import type http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCli } from './helpers/cli.js';
import { close, deterministicBuffer, listen, slowObjectServer } from './helpers/http-servers.js';
import { alive, childPids } from './helpers/processes.js';
import { freshDirs } from './helpers/temp-dirs.js';

const SIZE = 2 * 1024 * 1024;
const body = deterministicBuffer(SIZE);
let server: http.Server;
let url: string;

// Serves ranges slowly (64 KiB every 40 ms): a run is still in flight when the test acts.
beforeAll(async () => {
  server = slowObjectServer(body);
  url = `${await listen(server)}/blob.bin`;
});
afterAll(() => close(server));

const fresh = freshDirs('safety-signals-');

/**
 * A chunked download of the slow object from `cwd`, in a process group of its own, once its workers are
 * released.
 */
async function running(cwd: string): Promise<ReturnType<typeof startCli>> {
  const cli = startCli(
    [
      'download',
      '--url',
      url,
      '--source-method',
      'chunked',
      '--processes',
      '2',
      '--progress-interval',
      '100ms',
      '--results',
      'r.json',
      '--log-level',
      'info',
    ],
    { cwd, detached: true, limitMs: 30_000 },
  );
  expect(await cli.waitFor(/progress: chunked/), cli.stderr()).toBe(true);
  return cli;
}

describe('a stop by signal', () => {
  it('SIGTERM to process then group, as timeout(1) does: one stop, exit 143, partial results', async () => {
    for (let trial = 0; trial < 3; trial++) {
      const cwd = await fresh();
      // Once the workers are released: a signal that lands within the fork of a worker is another
      // matter (see the note in the report), this is the pair timeout(1) sends.
      const cli = await running(cwd);
      cli.child.kill('SIGTERM');
      process.kill(-cli.child.pid!, 'SIGTERM');
      const run = await cli.exited;
      expect(run.killedAtLimit, run.stderr).toBe(false);
      expect(run.stderr).not.toMatch(/again, exiting without waiting/);
      expect(run.code, run.stderr).toBe(143);
      const doc = JSON.parse(await readFile(join(cwd, 'r.json'), 'utf8')) as {
        interrupted?: string;
        complete: boolean;
      };
      expect(doc).toMatchObject({ interrupted: 'SIGTERM', complete: false });
    }
  });

  it('a copy of the stop arriving while the results are written is the same stop, not a kill', async () => {
    for (let trial = 0; trial < 3; trial++) {
      const cwd = await fresh();
      const cli = await running(cwd);
      cli.child.kill('SIGTERM');
      // The session's last line: the signal handlers were taken off right after it, and a copy
      // arriving then met the default action (killed before its results file was written).
      expect(await cli.waitFor(/cut short by the stop/), cli.stderr()).toBe(true);
      try {
        process.kill(-cli.child.pid!, 'SIGTERM');
      } catch (err) {
        // The whole group had exited already: the copy came after everything, which is fine too.
        if ((err as NodeJS.ErrnoException).code !== 'ESRCH') throw err;
      }
      const run = await cli.exited;
      expect(JSON.parse(await readFile(join(cwd, 'r.json'), 'utf8')), run.stderr).toMatchObject({
        interrupted: 'SIGTERM',
        complete: false,
      });
      // 143, ours; or, where the copy lands in Node's own teardown after the last line of ours has
      // run (its signal handles closed, which no listener can stay), SIGTERM's default action.
      expect(
        run.code === 143 || (run.code === null && run.signal === 'SIGTERM'),
        `${run.code} ${run.signal} ${run.stderr}`,
      ).toBe(true);
    }
  });

  it('SIGHUP (a closed terminal) stops like SIGTERM: exit 129, partial results, no temp file', async () => {
    const cwd = await fresh();
    const cli = await running(cwd);
    process.kill(-cli.child.pid!, 'SIGHUP');
    const run = await cli.exited;
    expect(run.killedAtLimit, run.stderr).toBe(false);
    expect(run.code, run.stderr).toBe(129);
    expect(run.stderr).toContain('SIGHUP: no new requests');
    expect(JSON.parse(await readFile(join(cwd, 'r.json'), 'utf8'))).toMatchObject({
      interrupted: 'SIGHUP',
      complete: false,
    });
    expect((await readdir(cwd)).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });
});

describe('scratch of a killed coordinator', () => {
  it('SIGKILL of the coordinator mid-run leaves no blob-cacher-<pid>-* sink file in TMPDIR', async () => {
    const tmp = await mkdtemp(join(tmpdir(), 'safety-signals-tmp-'));
    try {
      const cli = startCli(
        [
          'download',
          '--url',
          url,
          '--source-method',
          'chunked',
          '--processes',
          '2',
          '--sink',
          'sparse-file',
          '--progress-interval',
          '100ms',
          '--results',
          join(tmp, '..', `r-${process.pid}.json`),
          '--log-level',
          'info',
        ],
        {
          cwd: tmp,
          env: { TMPDIR: tmp },
          limitMs: 30_000,
        },
      );
      expect(await cli.waitFor(/progress: chunked/), cli.stderr()).toBe(true);
      const workers = childPids(cli.child.pid!);
      expect((await readdir(tmp)).filter((n) => n.startsWith('blob-cacher-'))).toHaveLength(1);
      cli.child.kill('SIGKILL');
      await cli.exited;
      // The workers notice their coordinator is gone and take its scratch with them (bounded wait).
      for (
        let i = 0;
        i < 250 && (workers.some(alive) || (await readdir(tmp)).some((n) => n.startsWith('blob-cacher-')));
        i++
      )
        await new Promise((r) => setTimeout(r, 20));
      expect(workers.filter(alive)).toEqual([]);
      expect((await readdir(tmp)).filter((n) => n.startsWith('blob-cacher-'))).toEqual([]);
    } finally {
      await rm(tmp, { recursive: true, force: true });
      await rm(join(tmp, '..', `r-${process.pid}.json`), { force: true });
    }
  });
});
