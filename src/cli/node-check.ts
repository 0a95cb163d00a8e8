// Runs before anything else is loaded. On a Node older than 22 (Debian's is 20) the entry re-runs
// itself, quietly, under the pinned Node 24 that `npm ci` installed (the `node` package), so that
// `node dist/download.js` works as printed; only where there is none does it say what to do. The
// re-run is tied to this process both ways: every signal it may catch is passed on, and the re-run
// stops as on SIGTERM when this process dies, however it died (SIGKILL included).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { constants } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MIN_MAJOR = 22;
const majorOf = (version: string) => Number(version.replace(/^v/, '').split('.')[0]);

/**
 * Signals this process catches and does not pass on: those that cannot be caught, job control (the
 * terminal's ^Z stops the whole group itself; caught here, the re-run would stop and this process
 * would not), its own child's news (SIGCHLD), SIGPIPE (Node ignores it) and the faults after which
 * no listener may run.
 */
const NOT_FORWARDED = new Set([
  'SIGKILL',
  'SIGSTOP',
  'SIGTSTP',
  'SIGTTIN',
  'SIGTTOU',
  'SIGCHLD',
  'SIGCLD',
  'SIGPIPE',
  'SIGSEGV',
  'SIGBUS',
  'SIGFPE',
  'SIGILL',
]);

/** Every other signal this platform has, one name per number (SIGIOT is SIGABRT, SIGPOLL is SIGIO). */
export function forwardedSignals(
  signals: Readonly<Record<string, number>> = constants.signals,
): NodeJS.Signals[] {
  const seen = new Set<number>();
  const out: NodeJS.Signals[] = [];
  for (const [name, number] of Object.entries(signals)) {
    if (NOT_FORWARDED.has(name) || seen.has(number)) continue;
    seen.add(number);
    out.push(name as NodeJS.Signals);
  }
  return out;
}

/**
 * The environment variable naming the re-run's end of a pipe from this process. Nothing is ever
 * written to it: its end of file says that this process is gone.
 */
export const WRAPPER_PIPE_ENV = 'BLOB_CACHER_WRAPPER_PIPE';
/** The pipe's descriptor in the re-run: the first after stdin, stdout and stderr. */
const WRAPPER_PIPE_FD = 3;

/**
 * The `node` package's binary nearest this file (its own node_modules or a parent's, as npm hoists
 * it), when it is a supported Node; undefined otherwise.
 */
export function pinnedNode(from = dirname(fileURLToPath(import.meta.url))): string | undefined {
  for (const pkg of packageDirs('node', from)) {
    const bin = join(pkg, 'bin', 'node');
    if (!existsSync(bin)) continue;
    // an unreadable package.json is not a Node to trust: keep looking above
    const version = packageVersion(pkg);
    if (version !== undefined && majorOf(version) >= MIN_MAJOR) return bin;
  }
  return undefined;
}

/**
 * Where an npm package named `name` may be installed for a module in `from`: node_modules/<name> there and in
 * each folder above.
 */
export function* packageDirs(name: string, from: string): Generator<string> {
  for (let dir = from; ; dir = dirname(dir)) {
    yield join(dir, 'node_modules', name);
    if (dirname(dir) === dir) return;
  }
}

/** The version in `dir`/package.json; undefined where there is none or it cannot be read. */
export function packageVersion(dir: string): string | undefined {
  try {
    const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version?: unknown };
    return typeof version === 'string' ? version : undefined;
  } catch {
    return undefined;
  }
}

/**
 * True when this Node can run the command. Otherwise the command is re-run under the pinned Node
 * (its exit status and a signal that ended it become this process's) and false is returned, or,
 * with no pinned Node to be found, one line says what to do.
 */
export function nodeIsSupported(): boolean {
  if (majorOf(process.versions.node) >= MIN_MAJOR) {
    stopWithWrapper(process.env);
    return true;
  }
  const pinned = pinnedNode();
  if (pinned === undefined || pinned === process.execPath) {
    process.stderr.write(
      `blob-cacher: Node ${process.versions.node} is too old; it needs Node >= ${MIN_MAJOR}. Run ` +
        `npm ci in the project (it installs Node 24 for it) or use npm run download -- <options>\n`,
    );
    process.exitCode = 1;
    return false;
  }
  rerun(pinned);
  return false;
}

/** The coordinator's young generation, as the bin's shebang and the npm scripts give it (cli.ts says why). */
const SEMI_SPACE = '--max-semi-space-size=4';

/**
 * The young generation the bin's shebang and the npm scripts give: two semi-spaces of 4 MiB (V8's new_space
 * size).
 */
const CAPPED_NEW_SPACE_BYTES = 2 * 4 * 1024 * 1024;

/**
 * The young generation's cap for a start that had no `--max-semi-space-size` (`node dist/download.js`
 * typed as is: no shebang's flag applies), so that every way of starting a command keeps the
 * coordinator's memory alike. V8 fixes the young generation's maximum when the process starts; what
 * it still reads while running is the factor it grows by when a collection finds it too small. So
 * the factor is 1 (it never grows by itself), and it is grown here to the flag's 4 MiB semi-spaces:
 * at once, and again after any collection that finds V8 has shrunk it (as V8 does in a quiet spell;
 * with the flag it would grow back). Smaller is no answer: at 1 MiB a run's short-lived objects are
 * promoted and the old generation grows with the runs instead.
 */
export function capYoungGeneration(execArgv: readonly string[], env: NodeJS.ProcessEnv = process.env): void {
  const given = (args: readonly string[]) =>
    args.some((a) => a.replace(/_/g, '-').startsWith('--max-semi-space-size'));
  if (given(execArgv) || given((env.NODE_OPTIONS ?? '').split(/\s+/))) return;
  const v8 = process.getBuiltinModule('node:v8');
  growYoungGeneration(v8);
  const { PerformanceObserver } = process.getBuiltinModule('node:perf_hooks');
  new PerformanceObserver(() => growYoungGeneration(v8)).observe({ entryTypes: ['gc'] });
}

/**
 * Grows the young generation to the flag's size in one step of V8's own: the factor that takes a
 * semi-space there exactly (capacities are powers of two), and short-lived arrays, each small enough
 * for the young generation, kept until a collection or two have grown it; then the factor is 1
 * again. Bounded, should a V8 not grow it so.
 */
function growYoungGeneration(v8: typeof import('node:v8')): void {
  const newSpace = () => v8.getHeapSpaceStatistics().find((space) => space.space_name === 'new_space');
  // Both semi-spaces once grown (a fresh one reports one): the flag's size is reached exactly.
  const grown = () => (newSpace()?.space_size ?? Infinity) >= CAPPED_NEW_SPACE_BYTES;
  if (!grown()) {
    const space = newSpace()!;
    const semiSpaceBytes = space.space_used_size + space.space_available_size;
    const growth = 2 ** Math.max(0, Math.round(Math.log2(CAPPED_NEW_SPACE_BYTES / 2 / semiSpaceBytes)));
    v8.setFlagsFromString(`--semi-space-growth-factor=${growth}`);
    const survivors: number[][] = [];
    for (let round = 0; round < 64 && !grown(); round++) {
      for (let i = 0; i < 16; i++) survivors.push(new Array<number>(4096).fill(round));
    }
  }
  v8.setFlagsFromString('--semi-space-growth-factor=1');
}

/**
 * The re-run's arguments: this one's Node flags (and the young generation's, unless one was given), entry and
 * options.
 */
export function rerunArgs(execArgv: readonly string[], argv: readonly string[]): string[] {
  // `node dist/cli.js` on an old Node has no shebang's flag: the re-run gets it.
  const flags = execArgv.some((a) => a.startsWith('--max-semi-space-size'))
    ? execArgv
    : [...execArgv, SEMI_SPACE];
  return [...flags, argv[1]!, ...argv.slice(2)];
}

function rerun(node: string): void {
  const child = spawn(node, rerunArgs(process.execArgv, process.argv), {
    stdio: ['inherit', 'inherit', 'inherit', 'pipe'],
    env: { ...process.env, [WRAPPER_PIPE_ENV]: String(WRAPPER_PIPE_FD) },
  });
  const forwarded = forwardedSignals();
  // The child acts on each as it would unwrapped (a stop signal stops it once, however many copies
  // arrive within a moment); this process only passes them on and waits for it, so that a `kill`
  // of this pid reaches the run.
  for (const signal of forwarded) process.on(signal, () => child.kill(signal));
  const pipe = child.stdio[WRAPPER_PIPE_FD];
  child.on('error', (err) => {
    pipe?.destroy();
    process.stderr.write(`blob-cacher: could not start ${node}: ${err.message}\n`);
    process.exitCode = 1;
  });
  child.on('exit', (code, signal) => {
    pipe?.destroy();
    if (signal !== null) {
      for (const s of forwarded) process.removeAllListeners(s);
      process.kill(process.pid, signal);
      return;
    }
    process.exitCode = code ?? 1;
  });
}

/**
 * In a re-run: watches the pipe from the process that started it, and on its end (that process is
 * gone, even by SIGKILL, and would otherwise leave this run orphaned) stops as on SIGTERM, through
 * the same handlers, so that what was measured is written. The variable is taken out of the
 * environment: the workers and anything else this run starts are not re-runs.
 */
export function stopWithWrapper(env: NodeJS.ProcessEnv): void {
  const fd = Number(env[WRAPPER_PIPE_ENV]);
  delete env[WRAPPER_PIPE_ENV];
  if (!Number.isInteger(fd) || fd < WRAPPER_PIPE_FD) return;
  // Loaded only here: every other start does without node:net.
  const { Socket } = process.getBuiltinModule('node:net');
  let pipe: import('node:net').Socket;
  try {
    pipe = new Socket({ fd, readable: true, writable: false });
  } catch {
    return; // not a pipe after all (the variable set by hand): nothing to watch
  }
  pipe.on('error', () => {});
  pipe.once('close', () => process.kill(process.pid, 'SIGTERM'));
  pipe.resume();
  // Watching holds nothing open: the run ends when its work does.
  pipe.unref();
}
