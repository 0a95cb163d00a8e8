// Runs one external command the way a benchmark needs: timed from spawn to exit on a monotonic
// clock, output captured, and its peak RSS sampled from /proc (VmHWM only ever grows).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';

export interface ProcResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Spawn to exit. */
  processMs: number;
  /** Highest VmHWM seen while it ran (that process only, not its children); 0 if never sampled. */
  peakRssBytes: number;
  /** Highest sum of VmRSS over the process and its descendants, sampled every 20 ms. */
  peakTreeRssBytes: number;
  /** With `cpu`: the command's own user + system CPU (its descendants' included), from the kernel. */
  cpuMs?: number;
}

export interface ProcOptions {
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  timeoutMs?: number;
  /** Keep at most this many characters of each stream (the tail). */
  keepChars?: number;
  /**
   * Measure the command's CPU (user + system): it runs under bash, whose `times` prints what its
   * finished children used (getrusage). Sampling /proc would miss the end of a short run, such as
   * curl's 64 MiB in ~50 ms.
   */
  cpu?: boolean;
}

const TIMES_LINE = /^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/;

/** Children still running, so that an interrupted suite can end them (by pid, ours only). */
const live = new Set<ChildProcess>();

export function killChildren(): void {
  for (const c of live) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
}

function statusKiB(pid: number, field: 'VmHWM' | 'VmRSS'): number {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : 0;
  } catch {
    return 0;
  }
}

function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/** VmRSS summed over a process and its descendants, now. */
function treeRssBytes(pid: number): number {
  let kib = 0;
  const todo = [pid];
  for (let p = todo.pop(); p !== undefined; p = todo.pop()) {
    kib += statusKiB(p, 'VmRSS');
    todo.push(...childrenOf(p));
  }
  return kib * 1024;
}

export function runProcess(
  command: string,
  args: readonly string[],
  opts: ProcOptions = {},
): Promise<ProcResult> {
  const keep = opts.keepChars ?? 64_000;
  return new Promise((resolve) => {
    const started = performance.now();
    const argv = opts.cpu ? ['-c', '"$@"; code=$?; times >&2; exit $code', 'bash', command, ...args] : args;
    const child = spawn(opts.cpu ? 'bash' : command, argv, {
      env: opts.env ?? process.env,
      cwd: opts.cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    live.add(child);
    let stdout = '';
    let stderr = '';
    let peak = 0;
    let treePeak = 0;
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout = (stdout + d).slice(-keep)));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr = (stderr + d).slice(-keep)));
    const sample = () => {
      if (child.pid === undefined) return;
      peak = Math.max(peak, statusKiB(child.pid, 'VmHWM') * 1024);
      treePeak = Math.max(treePeak, treeRssBytes(child.pid));
    };
    const sampler = setInterval(sample, 20);
    const timer = opts.timeoutMs ? setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs) : undefined;
    child.on('error', (err) => {
      stderr += `\n${err.message}`;
    });
    child.on('exit', sample);
    child.on('close', (code, signal) => {
      live.delete(child);
      clearInterval(sampler);
      if (timer) clearTimeout(timer);
      let cpuMs: number | undefined;
      if (opts.cpu) {
        // `times` prints the shell's own line, then its children's: the last line is the command's.
        const lines = stderr.trimEnd().split('\n');
        const m = TIMES_LINE.exec(lines.at(-1) ?? '');
        if (m && TIMES_LINE.test(lines.at(-2) ?? '')) {
          cpuMs = (Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4])) * 1000;
          stderr = lines.slice(0, -2).join('\n');
        }
      }
      resolve({
        code,
        signal,
        stdout,
        stderr,
        processMs: performance.now() - started,
        peakRssBytes: peak,
        peakTreeRssBytes: Math.max(treePeak, peak),
        ...(cpuMs !== undefined ? { cpuMs } : {}),
      });
    });
  });
}

/** True when `command` runs at all (a missing binary or library fails here, not mid-benchmark). */
export async function runs(command: string, args: readonly string[]): Promise<boolean> {
  const r = await runProcess(command, args, { timeoutMs: 20_000 });
  return r.code === 0;
}

/** The last lines of a failed command's output, for a one-line reason. */
export function tail(r: ProcResult, lines = 3): string {
  return `${r.stderr}\n${r.stdout}`.trim().split('\n').slice(-lines).join(' | ').slice(0, 400);
}
