// The re-run of a command under the pinned Node when the `node` on PATH is too old (cli/node-check.ts):
// the re-run is tied to the process that started it. Every signal that process can catch reaches the
// run, and a wrapper killed outright (SIGKILL: nothing to pass on) leaves no orphan: the run stops as on
// SIGTERM, its partial results written. Skipped where no Node older than 22 is installed.
import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import type http from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { forwardedSignals } from '../src/cli/node-check.js';
import { startCli, type CliRun } from './helpers/cli.js';
import { close, deterministicBuffer, listen, slowObjectServer } from './helpers/http-servers.js';
import { alive, childPids } from './helpers/processes.js';
import { freshDirs } from './helpers/temp-dirs.js';

/**
 * A Node the CLI re-runs itself from (major below 22), as Debian's /usr/bin/node is; undefined where none is.
 */
const OLD_NODE = ['/usr/bin/node', '/usr/local/bin/node'].find((p) => {
  const r = spawnSync(p, ['-p', 'process.versions.node'], { encoding: 'utf8', timeout: 10_000 });
  return r.status === 0 && Number(r.stdout.split('.')[0]) < 22;
});

/** Bounded wait for a condition, polled every 20 ms. */
async function until(test: () => boolean, withinMs: number): Promise<boolean> {
  for (let waited = 0; waited < withinMs && !test(); waited += 20)
    await new Promise((r) => setTimeout(r, 20));
  return test();
}

describe('the signals the wrapper passes on', () => {
  it(
    'are every catchable signal but job control, SIGCHLD, SIGPIPE and the faults, ' + 'one name per number',
    () => {
      const signals = forwardedSignals();
      expect(signals).toEqual(
        expect.arrayContaining(['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR2', 'SIGALRM']),
      );
      for (const never of ['SIGKILL', 'SIGSTOP', 'SIGTSTP', 'SIGCHLD', 'SIGPIPE', 'SIGSEGV'])
        expect(signals).not.toContain(never);
      expect(forwardedSignals({ SIGIO: 29, SIGPOLL: 29, SIGQUIT: 3 })).toEqual(['SIGIO', 'SIGQUIT']);
    },
  );
});

describe.skipIf(!OLD_NODE)('a command run by an old node, through the re-run wrapper', () => {
  const body = deterministicBuffer(2 * 1024 * 1024);
  let server: http.Server;
  let url: string;
  // Serves ranges slowly (64 KiB every 40 ms): a run is still in flight when the test acts.
  beforeAll(async () => {
    server = slowObjectServer(body);
    url = `${await listen(server)}/blob.bin`;
  });
  afterAll(() => close(server));
  const fresh = freshDirs('node-wrapper-');

  /**
   * A chunked download through the wrapper, in a group of its own, once its workers are released; and
   * the re-run's pid. Its 100 runs take minutes: a run that ends within the bounds below was ended.
   */
  async function running(cwd: string): Promise<{ cli: CliRun; rerun: number }> {
    const cli = startCli(
      [
        'download',
        '--url',
        url,
        '--source-method',
        'chunked',
        '--processes',
        '2',
        '--runs',
        '100',
        '--progress-interval',
        '100ms',
        '--results',
        'r.json',
        '--log-level',
        'info',
      ],
      {
        cwd,
        node: OLD_NODE,
        detached: true,
        limitMs: 40_000,
      },
    );
    expect(await cli.waitFor(/progress: chunked/), cli.stderr()).toBe(true);
    const children = childPids(cli.child.pid!);
    expect(children, 'the wrapper has one child: the re-run').toHaveLength(1);
    return { cli, rerun: children[0]! };
  }

  /** Kills what is left of the group (nothing, when the test passed). */
  function reap(cli: CliRun): void {
    try {
      process.kill(-cli.child.pid!, 'SIGKILL');
    } catch {
      // the group is gone
    }
  }

  it.each(['SIGQUIT', 'SIGUSR2', 'SIGALRM'] as const)(
    '%s to the wrapper reaches the re-run: the run and its workers end, and the wrapper ends by ' +
      'the same signal',
    async (signal) => {
      const { cli, rerun } = await running(await fresh());
      try {
        const workers = childPids(rerun);
        expect(workers.length).toBeGreaterThan(0);
        cli.child.kill(signal);
        expect(
          await until(() => !alive(rerun) && !workers.some(alive), 10_000),
          'the re-run and its workers end',
        ).toBe(true);
        const run = await cli.exited;
        expect(run.signal, run.stderr).toBe(signal);
      } finally {
        reap(cli);
      }
    },
  );

  it('SIGTERM to the wrapper stops the run as SIGTERM does: exit 143, partial results', async () => {
    const cwd = await fresh();
    const { cli } = await running(cwd);
    try {
      cli.child.kill('SIGTERM');
      const run = await cli.exited;
      expect(run.code, run.stderr).toBe(143);
      expect(JSON.parse(await readFile(join(cwd, 'r.json'), 'utf8'))).toMatchObject({
        interrupted: 'SIGTERM',
        complete: false,
      });
    } finally {
      reap(cli);
    }
  });

  it(
    'SIGKILL of the wrapper: the re-run notices within 10 s and stops as on SIGTERM, writing its ' +
      'partial results',
    async () => {
      const cwd = await fresh();
      const { cli, rerun } = await running(cwd);
      try {
        const workers = childPids(rerun);
        cli.child.kill('SIGKILL');
        expect(
          await until(() => !alive(rerun) && !workers.some(alive), 10_000),
          'the re-run and its workers end',
        ).toBe(true);
        await cli.exited;
        expect(cli.stderr()).toContain('SIGTERM: no new requests');
        expect(JSON.parse(await readFile(join(cwd, 'r.json'), 'utf8'))).toMatchObject({
          interrupted: 'SIGTERM',
          complete: false,
        });
      } finally {
        reap(cli);
      }
    },
  );
});
