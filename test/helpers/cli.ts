// The built CLI (dist/cli.js) as a child process with a bounded life: its exit, its output, and a
// way to wait for a line and to signal it. Every wait ends: the child is SIGKILLed at `limitMs`.
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { ONE_RUN } from './cli-env.js';

export const CLI_JS = join(resolve(import.meta.dirname, '..', '..'), 'dist', 'cli.js');

export interface CliRun {
  child: ChildProcess;
  /** Resolves when the child has exited (killed at the limit at the latest). */
  exited: Promise<{
    code: number | null;
    signal: NodeJS.Signals | null;
    stdout: string;
    stderr: string;
    ms: number;
    killedAtLimit: boolean;
  }>;
  /** Resolves true once stderr matches, false after `withinMs` or when the child exits first. */
  waitFor(re: RegExp, withinMs?: number): Promise<boolean>;
  stderr(): string;
}

/**
 * A clean environment (PATH and HOME, one run and no warm-up) plus `env`; run by `node` (default: this Node).
 */
export function startCli(
  args: readonly string[],
  opts: { cwd: string; env?: Record<string, string>; limitMs?: number; detached?: boolean; node?: string },
): CliRun {
  const started = performance.now();
  const child = spawn(opts.node ?? process.execPath, [CLI_JS, ...args], {
    cwd: opts.cwd,
    env: { ...ONE_RUN, PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: opts.detached,
  });
  let stdout = '';
  let stderr = '';
  let killedAtLimit = false;
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const limit = setTimeout(() => {
    killedAtLimit = true;
    child.kill('SIGKILL');
  }, opts.limitMs ?? 30_000);
  const exited = new Promise<Awaited<CliRun['exited']>>((done) =>
    child.on('close', (code, signal) => {
      clearTimeout(limit);
      done({ code, signal, stdout, stderr, ms: performance.now() - started, killedAtLimit });
    }),
  );
  let over = false;
  void exited.then(() => (over = true));
  return {
    child,
    exited,
    stderr: () => stderr,
    async waitFor(re, withinMs = 20_000) {
      for (let waited = 0; waited < withinMs && !over; waited += 20) {
        if (re.test(stderr)) return true;
        await new Promise((r) => setTimeout(r, 20));
      }
      return re.test(stderr);
    },
  };
}

/** Runs the CLI to its end. */
export const runCli = (
  args: readonly string[],
  opts: { cwd: string; env?: Record<string, string>; limitMs?: number },
) => startCli(args, opts).exited;
