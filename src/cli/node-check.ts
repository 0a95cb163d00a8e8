// Runs before anything else is loaded. On a Node older than 22 (Debian's is 20) the entry re-runs
// itself, quietly, under the pinned Node 24 that `npm ci` installed (the `node` package), so that
// `node dist/download.js` works as printed; only where there is none does it say what to do.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MIN_MAJOR = 22;
const majorOf = (version: string) => Number(version.replace(/^v/, '').split('.')[0]);
/** Signals the re-run process is told of as well; the terminal's own reach it as one of the group. */
const FORWARDED = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

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

/** Where an npm package named `name` may be installed for a module in `from`: node_modules/<name> there and in each folder above. */
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
  if (majorOf(process.versions.node) >= MIN_MAJOR) return true;
  const pinned = pinnedNode();
  if (pinned === undefined || pinned === process.execPath) {
    process.stderr.write(
      `blob-cacher: Node ${process.versions.node} is too old; it needs Node >= ${MIN_MAJOR}. Run npm ci in the project (it installs Node 24 for it) or use npm run download -- <options>\n`,
    );
    process.exitCode = 1;
    return false;
  }
  rerun(pinned);
  return false;
}

/** The coordinator's young generation, as the bin's shebang and the npm scripts give it (cli.ts says why). */
const SEMI_SPACE = '--max-semi-space-size=4';

/** The re-run's arguments: this one's Node flags (and the young generation's, unless one was given), entry and options. */
export function rerunArgs(execArgv: readonly string[], argv: readonly string[]): string[] {
  // `node dist/cli.js` on an old Node has no shebang's flag: the re-run gets it.
  const flags = execArgv.some((a) => a.startsWith('--max-semi-space-size')) ? execArgv : [...execArgv, SEMI_SPACE];
  return [...flags, argv[1]!, ...argv.slice(2)];
}

function rerun(node: string): void {
  const child = spawn(node, rerunArgs(process.execArgv, process.argv), { stdio: 'inherit' });
  // The child stops itself on these (one signal, however many copies arrive within a moment);
  // this process only passes them on and waits for it, so that a `kill` of this pid still stops the run.
  for (const signal of FORWARDED) process.on(signal, () => child.kill(signal));
  child.on('error', (err) => {
    process.stderr.write(`blob-cacher: could not start ${node}: ${err.message}\n`);
    process.exitCode = 1;
  });
  child.on('exit', (code, signal) => {
    if (signal !== null) {
      for (const s of FORWARDED) process.removeAllListeners(s);
      process.kill(process.pid, signal);
      return;
    }
    process.exitCode = code ?? 1;
  });
}
