// The one runner for bad-input cases: the built CLI in a directory of its own, with only PATH, HOME
// and the case's environment, and the check every such case makes (exit 2, nothing on stdout, one
// line on stderr naming the problem, no stack trace).
import { spawnSync } from 'node:child_process';
import { expect } from 'vitest';
import { ONE_RUN } from './cli-env.js';

export interface CliResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `node ...nodeArgs` in `cwd`. The timeout turns a bad input that is wrongly accepted (and
 * starts a benchmark) into a failure.
 */
export function runCliIn(
  cwd: string,
  nodeArgs: readonly string[],
  env: Record<string, string> = {},
  timeoutMs = 20_000,
): CliResult {
  const r = spawnSync(process.execPath, nodeArgs, {
    cwd,
    env: { ...ONE_RUN, PATH: process.env.PATH ?? '', HOME: cwd, ...env },
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  return { status: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr };
}

/**
 * Exit 2, nothing on stdout, one line on stderr that starts with the program's name and holds no stack: the
 * line.
 */
export function expectOneLine(r: CliResult): string {
  const shown = `stderr was ${JSON.stringify(r.stderr)}`;
  expect({ status: r.status, signal: r.signal, stdout: r.stdout }, shown).toEqual({
    status: 2,
    signal: null,
    stdout: '',
  });
  expect(r.stderr.endsWith('\n'), shown).toBe(true);
  const lines = r.stderr.slice(0, -1).split('\n');
  expect(lines, shown).toHaveLength(1);
  const line = lines[0]!;
  expect(line.startsWith('blob-cacher: ')).toBe(true);
  expect(line).not.toContain('    at ');
  return line;
}
