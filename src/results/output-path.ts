// The one check of every path option that writes (--results, --out): what is at the path now may be
// replaced only if it is a regular file; a device, FIFO, socket, directory or symbolic link (a
// dangling one too) is refused, never opened, followed or renamed over.
import { lstatSync, readlinkSync, type Stats } from 'node:fs';
import { rename } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { ConfigError } from '../vocabulary/errors.js';

/** How a path option is named in its messages: `results path`, `--results`, `results/run.json`. */
export interface PathOption {
  what: string;
  flag: string;
  example: string;
}

export const RESULTS_OPTION: PathOption = {
  what: 'results path',
  flag: '--results',
  example: 'results/run.json',
};
export const OUT_OPTION: PathOption = { what: '--out', flag: '--out', example: 'downloads/blob.bin' };

/**
 * Throws a one-line ConfigError unless `path` is absent or a regular file; returns the regular
 * file's stats, or undefined when nothing is there. lstat: a link is judged as itself, never
 * followed, so a link to /dev/null or to nowhere is refused alike.
 */
export function refuseSpecialFile(path: string, option: PathOption): Stats | undefined {
  let st: Stats;
  try {
    st = lstatSync(path);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    // ENOTDIR: a part of the directory is a file; the caller's directory check names it.
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new ConfigError(
      `${option.what} ${path} cannot be checked (${code ?? (err as Error).message}); give ` +
        `${option.flag} a file path in a writable directory`,
    );
  }
  if (st.isSymbolicLink()) {
    const to = resolve(dirname(path), readlinkSync(path));
    throw new ConfigError(
      `${option.what} ${path} is a symbolic link to ${to}; blob-cacher neither follows nor replaces ` +
        `links: give ${option.flag} ${to} itself, or remove the link`,
    );
  }
  if (!st.isFile()) {
    const fix = st.isDirectory()
      ? `give ${option.flag} a file path inside it, e.g. ${path}/${option.example.split('/').pop()}`
      : `give ${option.flag} a file path, e.g. ${option.example}`;
    throw new ConfigError(`${option.what} ${path} is ${kindOf(st)}, not a regular file; ${fix}`);
  }
  return st;
}

export function kindOf(st: Stats): string {
  if (st.isCharacterDevice()) return 'a character device';
  if (st.isBlockDevice()) return 'a block device';
  if (st.isFIFO()) return 'a FIFO (named pipe)';
  if (st.isDirectory()) return 'a directory';
  if (st.isSocket()) return 'a socket';
  if (st.isSymbolicLink()) return 'a symbolic link';
  return 'not a regular file';
}

/**
 * Moves a finished output file over `to`, checking `to` again first: something other than a
 * regular file put there since the run began is refused, not replaced (rename would replace a
 * device node or a FIFO as readily as a file).
 */
export async function moveIntoPlace(from: string, to: string, option: PathOption): Promise<void> {
  refuseSpecialFile(to, option);
  await rename(from, to);
}
