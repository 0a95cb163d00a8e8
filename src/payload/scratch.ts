// Local scratch space for downloaded bytes: a private directory (mode 0700, unpredictable name) per
// run instead of guessable names in the shared temp directory, where a planted symbolic link would
// be followed. Directories of runs that died without cleaning up (SIGKILL) are swept on the next.
import { lstatSync, readdirSync, type Stats } from 'node:fs';
import { nodeFsPromises } from '../startup/lazy.js';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';

const PREFIX = 'blob-cacher-';
/** blob-cacher-<owner pid>-<six characters from mkdtemp>. */
const SCRATCH_NAME = /^blob-cacher-(\d+)-[A-Za-z0-9]{6}$/;

export interface ScratchDir {
  /** Absolute path of the directory. */
  readonly dir: string;
  /** A file in the directory; `name` must be a plain file name. */
  path(name: string): string;
  /** Removes the directory and everything in it. */
  remove(): Promise<void>;
}

/**
 * Creates a scratch directory under `parent` (the OS temp directory unless given), after sweeping
 * that directory's stale ones. mkdtemp creates it with mode 0700 and a name nobody can claim first.
 */
export async function makeScratchDir(options: { parent?: string } = {}): Promise<ScratchDir> {
  const parent = options.parent ?? tmpdir();
  await sweepStaleScratchDirs(parent).catch(() => []);
  const dir = await nodeFsPromises().mkdtemp(join(parent, `${PREFIX}${process.pid}-`));
  return {
    dir,
    path(name: string): string {
      if (name === '' || name === '.' || name === '..' || name.includes('/') || name.includes('\0')) {
        throw new Error(`scratch file name "${name}" is not a plain file name`);
      }
      return join(dir, name);
    },
    remove: () => nodeFsPromises().rm(dir, { recursive: true, force: true }),
  };
}

/**
 * Removes the scratch directories in `parent` whose owner process has ended; returns their paths.
 * Only real directories (never links) owned by this user are considered. A pid from another PID
 * namespace sharing the temp directory would look dead; that setup is not supported.
 */
export async function sweepStaleScratchDirs(parent = tmpdir()): Promise<string[]> {
  const removed: string[] = [];
  const uid = process.getuid?.();
  // The listing and the checks are synchronous (a start's first thread-pool round trips cost more
  // than they do); only a removal, which is rare, goes through the pool.
  for (const name of readdirSync(parent)) {
    const pid = Number(SCRATCH_NAME.exec(name)?.[1]);
    if (!pid || pid === process.pid || isAlive(pid)) continue;
    const dir = join(parent, name);
    let st: Stats;
    try {
      st = lstatSync(dir);
    } catch {
      continue;
    }
    if (!st.isDirectory() || (uid !== undefined && st.uid !== uid)) continue;
    await nodeFsPromises()
      .rm(dir, { recursive: true, force: true })
      .catch(() => {});
    removed.push(dir);
  }
  return removed;
}

/**
 * A worker whose coordinator is gone (SIGKILL: nothing of it ran to clean up) removes the scratch
 * directory its output file is in; an --out file's `.partial`, which is the user's, is left alone.
 */
export async function removeScratchOf(outPath: string | undefined): Promise<void> {
  if (outPath === undefined || !SCRATCH_NAME.test(basename(dirname(outPath)))) return;
  await nodeFsPromises()
    .rm(dirname(outPath), { recursive: true, force: true })
    .catch(() => {});
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
