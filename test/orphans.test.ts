// No orphans (issue 14.6): when the coordinator is killed, even with SIGKILL, its workers notice the
// closed IPC channel and exit quietly, also while they are generating upload payloads.
import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { close } from './helpers/http-servers.js';
import { alive, childPids } from './helpers/processes.js';
import { startPutServer, type PutServer } from './helpers/put-server.js';
import { ONE_RUN } from './helpers/cli-env.js';

const root = resolve(import.meta.dirname, '..');
let server: PutServer;
beforeAll(async () => {
  server = await startPutServer();
});
afterAll(() => close(server.server));

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a coordinator killed with SIGKILL', () => {
  it('leaves no worker behind and no stack trace, even mid payload generation', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'bc-orphan-'));
    // 600 MiB of payload over two workers: a few seconds of generation before the barrier.
    const child = spawn(process.execPath, [
      join(root, 'dist/cli.js'), 'upload', '--url', `${server.url}/dav/`, '--file-count', '600', '--file-size', '1MiB',
      '--processes', '2', '--results', 'r.json', '--log-level', 'info',
    ], { cwd, env: { ...ONE_RUN, PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    for (let i = 0; i < 200 && !/small-files: 600 request\(s\)/.test(stderr); i++) await sleep(25);
    let workers: number[] = [];
    for (let i = 0; i < 100 && workers.length < 2; i++, await sleep(20)) workers = childPids(child.pid!);
    expect(workers).toHaveLength(2);
    // The upload probe (one PUT) went before; no file PUT yet: the workers are still generating.
    const probes = server.log.puts;
    await sleep(200);
    expect(server.log.puts, 'still generating: nothing sent yet').toBe(probes);
    child.kill('SIGKILL');
    const gone = performance.now();
    while (workers.some(alive) && performance.now() - gone < 5_000) await sleep(25);
    expect(workers.filter(alive)).toEqual([]);
    await sleep(100);
    expect(stderr).not.toMatch(/EPIPE|ERR_IPC|\n\s+at /);
    expect(server.log.puts).toBe(probes);
  });
});
