// Reading a file the user names (a results file, --ca-file, --prices): regular files only, opened
// without blocking, so a FIFO or a device is refused at once instead of hanging the process (a
// libuv thread blocked in open() cannot be stopped), and bounded in size (/dev/zero, a huge file).
import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { ConfigError } from '../vocabulary/errors.js';
import { kindOf } from './output-path.js';

export interface ReadBounds {
  /** Refused past this many bytes. */
  maxBytes: number;
  /** How the file is named in a message: `results file`, `--ca-file`. */
  what: string;
  /** What to do instead, ending the message: `give the path of a file a run wrote`. */
  fix: string;
}

/**
 * The file's bytes, or a one-line ConfigError naming it: missing, unreadable, not a regular file, or too
 * large.
 */
export async function readRegularFile(path: string, bounds: ReadBounds): Promise<Buffer> {
  const fail = (why: string) => new ConfigError(`${bounds.what} ${path} ${why}; ${bounds.fix}`);
  let fh: FileHandle;
  try {
    fh = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw fail(code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? 'error'})`);
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw fail(`is ${kindOf(st)}, not a regular file`);
    if (st.size > bounds.maxBytes) throw fail(`is ${st.size} bytes, more than the ${bounds.maxBytes} read`);
    // Read to the end, not to st.size: a file may say 0 (/proc) or grow; never past the bound.
    const chunks: Buffer[] = [];
    let total = 0;
    for (;;) {
      const { buffer, bytesRead } = await fh.read({
        buffer: Buffer.allocUnsafe(Math.min(1 << 20, bounds.maxBytes + 1 - total)),
      });
      if (bytesRead === 0) break;
      chunks.push(buffer.subarray(0, bytesRead));
      total += bytesRead;
      if (total > bounds.maxBytes) throw fail(`is more than the ${bounds.maxBytes} bytes read`);
    }
    return Buffer.concat(chunks, total);
  } catch (err) {
    if (err instanceof ConfigError) throw err;
    throw fail(`cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  } finally {
    await fh.close();
  }
}
