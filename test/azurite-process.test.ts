// The embedded target runs Azurite in a process of its own, so that its garbage collections do not
// run in the coordinator. Its server clock answers through IPC; the child is gone after a session, after
// stop(), and after its coordinator is killed with SIGKILL.
import { spawnSync } from 'node:child_process';
import { cpSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runDownload } from '../src/engine/download.js';
import { exitCause, startAzuriteProcess, withoutInlineScript } from '../src/storage/azurite-child.js';
import { readResults } from '../src/results/file.js';
import { containerClient } from '../src/storage/target.js';
import { setLogLevel } from '../src/log/logger.js';
import { alive, childPids, isAzuriteProcess } from './helpers/processes.js';
import { CLI_JS, startCli } from './helpers/cli.js';
import { ONE_RUN } from './helpers/cli-env.js';
import { testConfig } from './helpers/config.js';
import { freshDirsSync } from './helpers/temp-dirs.js';

const scratchDir = freshDirsSync('bc-azurite-process-');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(() => setLogLevel('warn'));

/** The children of `parent` that run the embedded Azurite's process. */
const azuriteChildren = (parent: number) => childPids(parent).filter(isAzuriteProcess);

async function goneWithin(pids: readonly number[], ms: number): Promise<number[]> {
  const since = performance.now();
  while (pids.some(alive) && performance.now() - since < ms) await sleep(25);
  return pids.filter(alive);
}

describe('the embedded Azurite in its own process', () => {
  it(
    'serves, keeps the server clock (reset, span of data requests only) and is ' + 'gone after stop()',
    async () => {
      const azurite = await startAzuriteProcess();
      try {
        expect(azuriteChildren(process.pid)).toEqual([azurite.pid]);
        const container = await containerClient({
          kind: 'blob',
          embedded: true,
          endpoint: azurite.endpoint,
          container: 'clock',
          account: azurite.account,
          key: azurite.key,
        });
        await container.create();
        // Creating the container is a control request: no span.
        await azurite.clock.reset();
        expect(await azurite.clock.span()).toBeUndefined();
        const blob = container.getBlockBlobClient('b');
        await blob.upload(Buffer.alloc(1024, 7), 1024);
        expect((await blob.downloadToBuffer()).length).toBe(1024);
        // Put Blob and a GET: data requests, timed by the child's clock.
        const spanMs = await azurite.clock.span();
        expect(spanMs).toBeGreaterThan(0);
        await azurite.clock.reset();
        expect(await azurite.clock.span()).toBeUndefined();
      } finally {
        await azurite.stop();
      }
      expect(alive(azurite.pid)).toBe(false);
      // Asked after its end: a clear error, not a hang.
      await expect(azurite.clock.span()).rejects.toThrow(/the embedded Azurite exited with code 0/);
    },
  );

  it(
    'over HTTPS: its throwaway certificate comes back with the endpoint and is ' + 'trusted by our clients',
    async () => {
      const azurite = await startAzuriteProcess({ tls: true });
      try {
        expect(azurite.endpoint).toMatch(/^https:\/\/localhost:\d+\/devstoreaccount1$/);
        expect(azurite.ca).toContain('-----BEGIN CERTIFICATE-----');
        const container = await containerClient({
          kind: 'blob',
          embedded: true,
          endpoint: azurite.endpoint,
          container: 'tls',
          account: azurite.account,
          key: azurite.key,
          ca: azurite.ca!,
        });
        expect((await container.createIfNotExists()).succeeded).toBe(true);
      } finally {
        await azurite.stop();
      }
      expect(alive(azurite.pid)).toBe(false);
    },
  );

  it(
    'a session on the embedded target reports the server span of every run, and leaves no Azurite ' +
      'process behind',
    async () => {
      const seen = new Set<number>();
      const config = testConfig('download', {
        sourceMethod: 'single,chunked',
        fileSizeBytes: 1024 * 1024,
        concurrency: 2,
        processes: 1,
        sink: 'memory',
        container: 'own-process',
        runs: 2,
        credentials: { kind: 'embedded' },
      });
      const run = await runDownload(config, {
        onEvent: (e) => {
          if (e.type === 'run-start') for (const pid of azuriteChildren(process.pid)) seen.add(pid);
        },
      });
      expect(run.results).toHaveLength(4);
      for (const r of run.results) {
        expect(r.verified, r.verification).toBe(true);
        expect(r.serverSpanMs, r.strategy).toBeGreaterThan(0);
      }
      // One child for the session, ended by the session's close (stop() waits for its exit).
      expect(seen.size).toBe(1);
      expect([...seen].filter(alive)).toEqual([]);
      expect(azuriteChildren(process.pid)).toEqual([]);
    },
  );

  it('a coordinator killed with SIGKILL takes its Azurite process with it, quietly', async () => {
    const cli = startCli(
      ['download', '--runs', '50', '--file-size', '8MiB', '--results', 'r.json', '--log-level', 'verbose'],
      { cwd: scratchDir(), limitMs: 60_000 },
    );
    expect(await cli.waitFor(/request\(s\) over/, 50_000), cli.stderr()).toBe(true);
    const azurite = azuriteChildren(cli.child.pid!);
    expect(azurite, cli.stderr()).toHaveLength(1);
    cli.child.kill('SIGKILL');
    await cli.exited;
    expect(await goneWithin(azurite, 10_000)).toEqual([]);
    expect(cli.stderr()).not.toMatch(/EPIPE|ERR_IPC|\n\s+at /);
  });

  it(
    'an Azurite killed mid-session (as by the OOM killer) is said in one line at once; the session ' +
      'ends in under 2 s with its finished runs',
    async () => {
      const cwd = scratchDir();
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
          '--runs',
          '20',
          '--results',
          'r.json',
          '--log-level',
          'verbose',
        ],
        { cwd, limitMs: 90_000 },
      );
      // Run 2 is going: run 1 is measured, verified and reported.
      expect(
        await cli.waitFor(/small-files: 300 request\(s\)[\s\S]*small-files: 300 request\(s\)/, 60_000),
        cli.stderr(),
      ).toBe(true);
      const [azurite] = azuriteChildren(cli.child.pid!);
      expect(azurite, cli.stderr()).toBeDefined();
      const killed = performance.now();
      process.kill(azurite!, 'SIGKILL');
      const run = await cli.exited;
      // Workers that did not notice the target die would retry the dead port for tens of seconds, then
      // end the run with `connect ECONNREFUSED`.
      expect(performance.now() - killed).toBeLessThan(2_000);
      expect(run.code, run.stderr).toBe(1);
      const said =
        run.stderr.match(/the embedded Azurite exited \(killed by the kernel: out of memory\?\)/g) ?? [];
      expect(said, run.stderr).toHaveLength(1);
      expect(run.stderr).not.toMatch(/^blob-cacher: /m);
      expect(run.stderr).toMatch(/partial results \(\d+ run\(s\)\) written to r\.json/);
      const doc = await readResults(join(cwd, 'r.json'));
      expect(doc.complete).toBe(false);
      expect(doc.runs.length).toBeGreaterThanOrEqual(1);
      // The runs in it finished: the one the death cut is left out, not recorded as failed.
      for (const r of doc.runs) expect(r.verified, r.verification).toBe(true);
    },
  );

  it(
    'an Azurite killed while the session sets up (its fixture uploading) ends the command at once, ' +
      'said in one line',
    async () => {
      const cli = startCli(
        ['download', '--file-size', '100MiB', '--source-method', 'single', '--results', 'r.json'],
        { cwd: scratchDir(), limitMs: 90_000 },
      );
      expect(await cli.waitFor(/target: embedded Azurite/, 60_000), cli.stderr()).toBe(true);
      const [azurite] = azuriteChildren(cli.child.pid!);
      expect(azurite, cli.stderr()).toBeDefined();
      const killed = performance.now();
      process.kill(azurite!, 'SIGKILL');
      const run = await cli.exited;
      // A fixture upload that did not notice the target die would retry the dead port, then end the
      // command with `connect ECONNREFUSED`.
      expect(performance.now() - killed).toBeLessThan(3_000);
      expect(run.code, run.stderr).toBe(1);
      expect(
        run.stderr.match(/the embedded Azurite exited \(killed by the kernel: out of memory\?\)/g) ?? [],
        run.stderr,
      ).toHaveLength(1);
      expect(run.stderr).not.toMatch(/^blob-cacher: /m);
    },
  );

  it(
    "how a process ended, in words: SIGKILL as the OOM killer's, another signal by name, an exit by " +
      'its code',
    () => {
      expect(exitCause(null, 'SIGKILL')).toBe('killed by the kernel: out of memory?');
      expect(exitCause(null, 'SIGTERM')).toBe('killed by SIGTERM');
      expect(exitCause(3, null)).toBe('exit code 3');
    },
  );

  it(
    'a child that cannot start is named in one line with its own error, and the ' + 'command exits 1',
    async () => {
      // A copy of the build whose Azurite process fails as it loads (as a missing or broken install would).
      const root = scratchDir();
      const dist = resolve(CLI_JS, '..');
      cpSync(dist, join(root, 'dist'), { recursive: true });
      cpSync(join(dist, '..', 'package.json'), join(root, 'package.json'));
      symlinkSync(join(dist, '..', 'node_modules'), join(root, 'node_modules'));
      writeFileSync(
        join(root, 'dist', 'storage', 'azurite-process.js'),
        "throw new Error('no Azurite here');\n",
      );
      const run = spawnSync(
        process.execPath,
        [join(root, 'dist', 'cli.js'), 'download', '--results', 'r.json'],
        {
          cwd: scratchDir(),
          env: { ...ONE_RUN, PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
          encoding: 'utf8',
          timeout: 30_000,
        },
      );
      expect(run.status, run.stderr).toBe(1);
      expect(run.stderr).toBe(
        'blob-cacher: the embedded Azurite exited with code 1 before it was ready: Error: no Azurite here\n',
      );
    },
  );

  it(
    'a child started early that no target takes (the command failed first) neither holds the command ' +
      'open nor outlives it',
    async () => {
      const module = join(resolve(CLI_JS, '..'), 'storage', 'azurite-child.js');
      // The script names its children (the early Azurite) and ends without taking it.
      const script = join(scratchDir(), 'early.mjs');
      writeFileSync(
        script,
        `import { startAzuriteEarly } from ${JSON.stringify(module)};
import { readdirSync, readFileSync } from 'node:fs';
startAzuriteEarly();
const ppid = (p) => { try { ` +
          `return readFileSync('/proc/' + p + '/stat', 'utf8').replace(/^.*\\) /s, '').split(' ')[1]; ` +
          `} catch { return ''; } };
process.stdout.write(readdirSync('/proc')` +
          `.filter((p) => /^\\d+$/.test(p) && ppid(p) === String(process.pid)).join(','));
`,
      );
      // Its stdout is the child's too: the pipe closes once both have exited.
      const run = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 20_000 });
      expect(run.error, run.stderr).toBeUndefined();
      expect(run.status, run.stderr).toBe(0);
      const children = run.stdout.split(',').map(Number);
      expect(children).toHaveLength(1);
      expect(await goneWithin(children, 10_000)).toEqual([]);
    },
  );

  it('an inline script (node -e) is not passed on to the child: it would run again there', () => {
    expect(
      withoutInlineScript(['--max-semi-space-size=4', '-e', 'fork()', '--eval=x', '-p', '1', '--inspect']),
    ).toEqual(['--max-semi-space-size=4', '--inspect']);
  });
});
