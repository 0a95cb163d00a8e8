// What configuration reads from the outside world: the environment, the dotenv file and, for the
// --out file, the file system. The config layer gets the results as plain strings and facts.
import {
  accessSync,
  closeSync,
  constants,
  fstatSync,
  openSync,
  readFileSync,
  statSync,
  type Stats,
} from 'node:fs';
import { dirname, resolve as resolvePath } from 'node:path';
import { parse as parseDotenv } from 'dotenv';
import { ConfigError } from '../vocabulary/errors.js';
import { dotenvFile, type DownloadConfig, type Sources, type UploadConfig } from '../config/load.js';
import type { AnyOption } from '../config/options.js';
import { OUT_OPTION, refuseSpecialFile } from '../results/output-path.js';

type Env = Sources['env'];

/** The environment and the dotenv file that the flags (or the environment) name, read once. */
export function readSources(
  specs: readonly AnyOption[],
  flags: Readonly<Record<string, unknown>>,
  env: Env,
  cwd = process.cwd(),
): Sources {
  const file = dotenvFile(specs, flags, env);
  return { env, dotenv: file ? readDotenv(file.path, file.explicit, file.origin, cwd) : {} };
}

function errnoCode(err: unknown): string | undefined {
  return err instanceof Error && 'code' in err && typeof err.code === 'string' ? err.code : undefined;
}

/**
 * A missing default .env is fine; a named file must exist and be a regular file. It is opened
 * non-blocking and checked before reading, so that a FIFO or a device fails at once instead of
 * waiting for a writer.
 */
function readDotenv(path: string, explicit: boolean, origin: string, cwd: string): Record<string, string> {
  const fail = (why: string) =>
    new ConfigError(`env file ${path} ${why}; fix the path given to ${origin}, or remove it`);
  let fd: number;
  try {
    fd = openSync(resolvePath(cwd, path), constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    const code = errnoCode(err);
    if (code === 'ENOENT' && !explicit) return {};
    throw fail(
      code === 'ENOENT' ? 'does not exist' : code === 'EACCES' ? 'is not readable' : 'cannot be opened',
    );
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw fail('is a directory');
    if (!stat.isFile()) throw fail('is not a regular file (a FIFO, socket or device)');
    return parseDotenv(readFileSync(fd));
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw fail('cannot be read');
  } finally {
    closeSync(fd);
  }
}

/**
 * A download's --out, checked before any work: an existing directory this user may write holds it; what is at
 * the path (and at its `.partial` twin, written during the run) is absent or a regular file, replaced only
 * with --force; and it is not the --results file, which would overwrite the download.
 */
export function checkOutPath(config: DownloadConfig | UploadConfig, cwd = process.cwd()): void {
  if (!('outPath' in config) || config.outPath === undefined) return;
  const full = resolvePath(cwd, config.outPath);
  if (!statSync(dirname(full), { throwIfNoEntry: false })?.isDirectory()) {
    throw new ConfigError(
      `--out ${config.outPath}: the directory ${dirname(full)} does not exist; create it or choose another path`,
    );
  }
  // Before the run, not after it: a read-only mount (EROFS, even for root) or a folder without write
  // permission would otherwise fail only once every byte had been downloaded.
  try {
    accessSync(dirname(full), constants.W_OK);
  } catch (err) {
    const why = errnoCode(err) === 'EROFS' ? 'is on a read-only file system' : 'is not writable';
    throw new ConfigError(
      `--out ${config.outPath}: the directory ${dirname(full)} ${why}; choose a path where this user may write`,
    );
  }
  const existing = refuseSpecialFile(full, OUT_OPTION);
  refuseSpecialFile(`${full}.partial`, { ...OUT_OPTION, what: "--out's temporary file" });
  if (existing && !config.force)
    throw new ConfigError(
      `--out ${config.outPath} already exists; add --force to overwrite it, or choose another path`,
    );
  if (config.resultsPath === undefined) return;
  const results = resolvePath(cwd, config.resultsPath);
  const same =
    results === full ||
    (existing !== undefined && sameFile(existing, statSync(results, { throwIfNoEntry: false })));
  if (same)
    throw new ConfigError(
      `--out ${config.outPath} is also the --results file: the results would overwrite the ` +
        `download; give them different paths`,
    );
}

const sameFile = (a: Stats, b: Stats | undefined) => b !== undefined && a.dev === b.dev && a.ino === b.ino;
