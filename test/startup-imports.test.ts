// What a start costs in modules, checked by what a fresh process has loaded, not by timing it:
// importing node:http as ESM evaluates its lazy exports and loads Node's bundled undici (~25 ms of
// every process's start here), so the CLI, the transport and the worker reach it through require.
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';

const DIST = join(resolve(import.meta.dirname, '..'), 'dist');

function loadedAfterImporting(modules: string[]): string[] {
  const code = `for (const m of ${JSON.stringify(modules.map((m) => pathToFileURL(join(DIST, m)).href))}) await import(m); process.stdout.write(JSON.stringify(process.moduleLoadList));`;
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], { encoding: 'utf8', timeout: 30_000 });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as string[];
}

describe('start-up imports', () => {
  it('the CLI, the transport and the worker do not load Node\'s bundled undici', () => {
    const loaded = loadedAfterImporting(['cli/run-cli.js', 'transport/request.js', 'workers/job-run.js', 'cli/environment.js']);
    expect(loaded.some((m) => m.includes('node:http') || m.includes('internal/http'))).toBe(true);
    expect(loaded.filter((m) => m.includes('undici'))).toEqual([]);
  });
});
