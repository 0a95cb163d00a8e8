// The embedded Azurite slows superlinearly with many blobs: an upload past the limit
// warns before it starts, naming what to use instead; below it, no warning.
import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ONE_RUN } from './helpers/cli-env.js';
import { freshDirsSync } from './helpers/temp-dirs.js';

// Scratch directories, removed after the file so none is left in /tmp.
const scratchDir = freshDirsSync('bc-scale-');

const root = resolve(import.meta.dirname, '..');

/** Starts an upload on the embedded target and stops it (SIGINT) once `until` shows in stderr. */
async function startThenStop(fileCount: number, until: RegExp): Promise<string> {
  const cwd = scratchDir();
  const child = spawn(
    process.execPath,
    [
      join(root, 'dist/cli.js'),
      'upload',
      '--file-count',
      String(fileCount),
      '--file-size',
      '1B',
      '--results',
      'r.json',
      '--log-level',
      'verbose',
    ],
    {
      cwd,
      env: { ...ONE_RUN, PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
    },
  );
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((r) => child.on('exit', r));
  for (let i = 0; i < 400 && !until.test(stderr); i++) await new Promise((r) => setTimeout(r, 25));
  child.kill('SIGINT');
  await exited;
  return stderr;
}

describe('embedded Azurite and many blobs', () => {
  it('past 2,500 files per run it warns before the run, suggesting nginx or a real account', async () => {
    const stderr = await startThenStop(2_501, /small-files: \d+ request/);
    const warn = stderr.split('\n').filter((l) => / warn: 2501 files per run/.test(l));
    expect(warn, stderr).toHaveLength(1);
    expect(warn[0]).toMatch(/--url http:\/\/127\.0\.0\.1:PORT\/dav\/.*real account/);
    // Before the first request is planned, not after.
    expect(stderr.indexOf(warn[0]!)).toBeLessThan(stderr.search(/small-files: \d+ request/));
  });

  it('at 2,500 it does not', async () => {
    const stderr = await startThenStop(2_500, /small-files: \d+ request/);
    expect(stderr).not.toMatch(/files per run is more than/);
  });
});
