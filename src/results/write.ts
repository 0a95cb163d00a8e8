// Where results go: the path is checked before any measuring starts, and each write goes to a fresh
// exclusive temporary file beside the target that is renamed into place, so a file is never seen
// half-written and a device, FIFO, directory or symbolic link at the path is never replaced.
import { redactDeep } from '../log/redact.js';
import { nodeCrypto } from '../startup/lazy.js';
import { closeSync, mkdirSync, openSync, readSync, rmSync, statSync, type Stats } from 'node:fs';
import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { ConfigError } from '../vocabulary/errors.js';
import type { ResultsFile } from './schema.js';
import type { ReplayResults } from './replay.js';
import { refuseSpecialFile, RESULTS_OPTION } from './output-path.js';

/**
 * Throws a ConfigError, before any measuring work, unless results can be written to `path`: its
 * directory exists or can be created, a new file can be created there, and the path itself is
 * absent or a regular file. Leaves nothing behind but the directory.
 */
export async function checkResultsPath(path: string): Promise<void> {
  // Synchronous: a handful of calls on a local path, before anything else runs. Through the thread
  // pool each would be a round trip, and the first would start the pool, on every start's path.
  prepareTarget(path);
  const probe = tempPathBeside(path);
  let fd: number;
  try {
    fd = openSync(probe, 'wx');
  } catch (err) {
    throw new ConfigError(`${cannotWrite(path, err)}; ${fixFor(err, dirname(resolve(path)))}`);
  }
  try {
    closeSync(fd);
  } finally {
    rmSync(probe, { force: true });
  }
}

/**
 * Writes `doc` to `path` through an exclusive temporary file in the same directory, renamed over
 * the target. Refuses (ConfigError) a target that is not a regular file; a symbolic link is refused
 * too, naming what it points to, since replacing it would silently break the link and following it
 * would write wherever it points. Any other failure throws a one-line Error. The temporary file is
 * removed on every failure path.
 */
export async function writeResults(path: string, doc: ResultsFile | ReplayResults): Promise<void> {
  // Through the one redaction: a swept --url with ?sig= or a swept --connection-string is in the cells.
  const text = `${JSON.stringify(redactDeep(doc))}\n`;
  prepareTarget(path);
  const tmp = tempPathBeside(path);
  let fh: FileHandle | undefined;
  try {
    // 'wx' fails if anything (a planted link included) already has this name; that file is not ours.
    fh = await open(tmp, 'wx');
  } catch (err) {
    throw new Error(`${cannotWrite(path, err)}; ${fixFor(err, dirname(resolve(path)))}`);
  }
  try {
    await fh.writeFile(text);
    await fh.close();
    fh = undefined;
    // The target was checked above; rename never follows a link swapped in since, it replaces it.
    await rename(tmp, path);
  } catch (err) {
    await fh?.close().catch(() => {});
    await rm(tmp, { force: true }).catch(() => {});
    throw new Error(`${cannotWrite(path, err)}; ${fixFor(err, dirname(resolve(path)))}`);
  }
}

/**
 * writeResults, but a failure comes back as one line saying where results could not go (undefined
 * when written), so the CLI can still print the report it measured and then say so.
 */
export async function writeResultsOrExplain(
  path: string,
  doc: ResultsFile | ReplayResults,
): Promise<string | undefined> {
  try {
    await writeResults(path, doc);
    return undefined;
  } catch (err) {
    return `results not saved: ${(err as Error).message.split('\n')[0]}`;
  }
}

/** The checks both a write and checkResultsPath make: the target's kind, then its directory. */
function prepareTarget(path: string): void {
  if (path === '' || path.endsWith('/')) {
    throw new ConfigError(
      `results path "${path}" names no file; give --results a file path, e.g. results/run.json`,
    );
  }
  refuseSpecialFile(path, RESULTS_OPTION);
  makeDirectoryFor(path);
}

/** A name no one can predict, in the target's directory so the rename stays on one file system. */
function tempPathBeside(path: string): string {
  return resolve(dirname(path), `${basename(path)}.tmp-${randomHex(6)}`);
}

/**
 * Random bytes, as hex, from the kernel's /dev/urandom where there is one: node:crypto's randomBytes
 * would load node:crypto (on a 1-byte download's path before its job is sent, bench case 8) for a name.
 */
function randomHex(bytes: number): string {
  const out = Buffer.alloc(bytes);
  try {
    const fd = openSync('/dev/urandom', 'r');
    try {
      if (readSync(fd, out, 0, bytes, null) === bytes) return out.toString('hex');
    } finally {
      closeSync(fd);
    }
  } catch {
    // No /dev/urandom (or it cannot be read): node:crypto's generator below.
  }
  return nodeCrypto().randomBytes(bytes).toString('hex');
}

/**
 * mkdir -p of the path's directory, written out: Node's recursive mkdir spins forever where a
 * parent exists but refuses children with ENOENT (under /proc), and this names the part in the way.
 * Synchronous, as a stat or two of a local directory is.
 */
function makeDirectoryFor(path: string): void {
  const missing: string[] = [];
  for (let d = dirname(resolve(path)); ; d = dirname(d)) {
    let st: Stats | undefined;
    try {
      st = statSync(d);
    } catch (err) {
      // ENOTDIR: an ancestor is a file; the walk goes on up to name it.
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR')
        throw new ConfigError(
          `results path ${path} cannot be checked: ${d} (${describe(err)}); ${fixFor(err, dirname(d))}`,
        );
    }
    if (st?.isDirectory()) break;
    if (st)
      throw new ConfigError(
        `results path ${path} cannot be created: ${d} is not a directory; ` +
          'give --results a path in a directory',
      );
    missing.unshift(d);
    if (d === dirname(d)) break;
  }
  for (const d of missing) {
    try {
      mkdirSync(d);
    } catch (err) {
      // EEXIST: made meanwhile by someone else, fine if it is a directory now.
      if ((err as NodeJS.ErrnoException).code === 'EEXIST' && isDirectory(d)) continue;
      throw new ConfigError(
        `results path ${path} cannot be created: directory ${d} (${describe(err)}); ` +
          fixFor(err, dirname(d)),
      );
    }
  }
}

function isDirectory(d: string): boolean {
  try {
    return statSync(d).isDirectory();
  } catch {
    return false;
  }
}

function cannotWrite(path: string, err: unknown): string {
  return `cannot write results to ${path} (${describe(err)})`;
}

function describe(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  const words: Record<string, string> = {
    ENOSPC: 'no space left on device',
    EDQUOT: 'disk quota exceeded',
    EFBIG: 'file too large for this process or file system',
    EACCES: 'permission denied',
    EPERM: 'operation not permitted',
    EROFS: 'read-only file system',
    EISDIR: 'it is a directory',
    ENOTDIR: 'a part of the path is not a directory',
    ENOENT: 'no such file or directory',
    EEXIST: 'a file with the temporary name exists',
    ENAMETOOLONG: 'name too long',
  };
  if (e.code !== undefined) return `${words[e.code] ?? e.message.split('\n')[0]}, ${e.code}`;
  return String(e?.message ?? err).split('\n')[0]!;
}

/**
 * The fix for a write that failed in `dir`. A permission refusal names the uid the process runs as:
 * in a container that is the image's (1000) or --user's, and a directory mounted from the host
 * belongs to whoever made it there, so the fix is on the host's side or in docker run's flags.
 */
function fixFor(err: unknown, dir: string): string {
  switch ((err as NodeJS.ErrnoException).code) {
    case 'ENOSPC':
    case 'EDQUOT':
    case 'EFBIG':
      return 'free space or give --results a path on another file system';
    case 'EACCES':
    case 'EPERM': {
      const uid = process.getuid?.();
      if (uid === undefined) return 'give --results a path in a directory you can write to';
      return (
        `${dir} is not writable by uid ${uid}, which this process runs as: make it so ` +
        `(a directory mounted into a container: chown ${uid} DIR on the host, ` +
        'or docker run --user "$(id -u)"), or give --results a path in a directory you can write to'
      );
    }
    case 'EROFS':
      return (
        `${dir} is on a read-only file system: mount a writable directory there ` +
        `(docker run -v "$PWD/results:${dir}", in Kubernetes an emptyDir), ` +
        'or give --results a path in a directory you can write to'
      );
    default:
      return 'give --results a file path in a writable directory';
  }
}
