// The two shared file checks on their own. A file read for the user is a regular
// file within a size bound; an output is moved into place only over a regular file or nothing, even
// when something else was put at its path during the run.
import { execFileSync } from 'node:child_process';
import { lstat, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../src/vocabulary/errors.js';
import { readRegularFile } from '../src/results/bounded-read.js';
import { moveIntoPlace, OUT_OPTION } from '../src/results/output-path.js';
import { freshDirs } from './helpers/temp-dirs.js';

const fresh = freshDirs('safety-files-');
const bounds = { maxBytes: 10, what: 'results file', fix: 'give the path of a file a run wrote' };

describe('the bounded regular-file reader', () => {
  it('reads a regular file within the bound', async () => {
    const file = join(await fresh(), 'r.json');
    await writeFile(file, '0123456789');
    expect((await readRegularFile(file, bounds)).toString()).toBe('0123456789');
  });

  it('refuses a file past the bound, naming it and the bound', async () => {
    const file = join(await fresh(), 'r.json');
    await writeFile(file, '0123456789A');
    await expect(readRegularFile(file, bounds)).rejects.toThrow(
      new ConfigError(
        `results file ${file} is 11 bytes, more than the 10 read; give the path of a file a run wrote`,
      ),
    );
  });

  it('refuses a FIFO and a link to one without blocking', async () => {
    const dir = await fresh();
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    await symlink(join(dir, 'pipe'), join(dir, 'link'));
    await expect(readRegularFile(join(dir, 'pipe'), bounds)).rejects.toThrow(
      /is a FIFO \(named pipe\), not a regular file/,
    );
    await expect(readRegularFile(join(dir, 'link'), bounds)).rejects.toThrow(/is a FIFO/);
    await expect(readRegularFile(join(dir, 'missing'), bounds)).rejects.toThrow(/does not exist/);
  });
});

describe('the rename at the end of a run', () => {
  it('a FIFO put at --out during the run is refused at the rename and left as it was', async () => {
    const dir = await fresh();
    const out = join(dir, 'blob.bin');
    await writeFile(`${out}.partial`, 'bytes');
    execFileSync('mkfifo', [out]);
    await expect(moveIntoPlace(`${out}.partial`, out, OUT_OPTION)).rejects.toThrow(
      /--out .*blob\.bin is a FIFO/,
    );
    expect((await lstat(out)).isFIFO()).toBe(true);
    expect(await readFile(`${out}.partial`, 'utf8')).toBe('bytes');
  });

  it('a regular file is replaced', async () => {
    const dir = await fresh();
    const out = join(dir, 'blob.bin');
    await writeFile(`${out}.partial`, 'new');
    await writeFile(out, 'old');
    await moveIntoPlace(`${out}.partial`, out, OUT_OPTION);
    expect(await readFile(out, 'utf8')).toBe('new');
  });
});
