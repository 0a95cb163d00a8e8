// No orphans: when the coordinator is killed, even with SIGKILL, its workers and the
// embedded Azurite's process notice the closed IPC channel and exit quietly, also while the workers
// are generating upload payloads.
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { alive, childPids, isAzuriteProcess } from './helpers/processes.js';
import { ONE_RUN } from './helpers/cli-env.js';
import { freshDirsSync } from './helpers/temp-dirs.js';

// Scratch directories, removed after the file so none is left in /tmp.
const scratchDir = freshDirsSync('bc-orphan-');

const root = resolve(import.meta.dirname, '..');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a coordinator killed with SIGKILL', () => {
  it('leaves no worker behind and no stack trace, even mid payload generation', async () => {
    const cwd = scratchDir();
    // A 1 GiB blob in 8 MiB blocks over two workers: each generates 512 MiB of distinct payload
    // (about 1.5 s here) before the barrier. (Small files cycle through a 64 MiB pool: too quick.)
    const child = spawn(
      process.execPath,
      [
        join(root, 'dist/cli.js'),
        'upload',
        '--upload-method',
        'blocks',
        '--blob-size',
        '1GiB',
        '--block-size',
        '8MiB',
        '--processes',
        '2',
        '--results',
        'r.json',
        '--log-level',
        'verbose',
      ],
      { cwd, env: { ...ONE_RUN, PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' } },
    );
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    for (let i = 0; i < 400 && !/blocks: 128 request\(s\)/.test(stderr); i++) await sleep(25);
    // Its children: two workers and the embedded Azurite's own process.
    let children: number[] = [];
    let workers: number[] = [];
    for (let i = 0; i < 100 && workers.length < 2; i++, await sleep(20)) {
      children = childPids(child.pid!);
      workers = children.filter((pid) => !isAzuriteProcess(pid));
    }
    expect(workers, stderr).toHaveLength(2);
    expect(children.filter(isAzuriteProcess), stderr).toHaveLength(1);
    await sleep(200);
    child.kill('SIGKILL');
    const gone = performance.now();
    while (children.some(alive) && performance.now() - gone < 5_000) await sleep(25);
    expect(children.filter(alive)).toEqual([]);
    await sleep(100);
    expect(stderr).not.toMatch(/EPIPE|ERR_IPC|\n\s+at /);
  });
});
