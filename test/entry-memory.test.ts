// The coordinator's young generation whichever way a command is started: the bin and the npm scripts
// give Node --max-semi-space-size=4; `node dist/download.js` typed as the card prints it gives no flag,
// and the entry caps the young generation's growth at run time (cli/node-check.ts). Checked by what
// V8 reports: garbage with survivors, made once the command is done, grows an uncapped young
// generation past the flag's 8 MiB (two 4 MiB semi-spaces) and a capped one to it, as the flag does.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const DIST = join(resolve(import.meta.dirname, '..'), 'dist');
const work = mkdtempSync(join(tmpdir(), 'entry-memory-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));
const FLAG_CAP_BYTES = 2 * 4 * 1024 * 1024;

/**
 * Registered before the entry: once the command is done, garbage with survivors made over 200 turns of
 * the event loop (as a run's messages come), then the new space's size written to `out`.
 */
const probe = (out: string) =>
  `data:text/javascript,${encodeURIComponent(
    `import v8 from 'node:v8'; import { writeFileSync } from 'node:fs';
  process.once('beforeExit', async () => {
    const keep = [];
    for (let i = 0; i < 200; i++) {
      const a = []; for (let j = 0; j < 20000; j++) a.push({ j, s: 'x' + j }); keep.push(a.length);
      await new Promise((r) => setImmediate(r));
    }
    writeFileSync(${JSON.stringify(out)}, ` +
      `String(v8.getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size));
  });`,
  )}`;

let n = 0;
/** The new space's size after the probe, in a process started as `node <flags> <args>`. */
function newSpaceBytes(flags: string[], args: string[]): number {
  const out = join(work, `new-space-${++n}`);
  const r = spawnSync(process.execPath, [...flags, '--import', probe(out), ...args], {
    encoding: 'utf8',
    timeout: 30_000,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
  });
  expect(r.status, r.stderr).toBe(0);
  return Number(readFileSync(out, 'utf8'));
}

describe('the coordinator young generation', () => {
  it(
    "grows past the flag's cap in a process given neither the flag nor the entry (the probe is not " +
      'vacuous)',
    () => {
      expect(newSpaceBytes([], ['-e', '0'])).toBeGreaterThan(FLAG_CAP_BYTES);
    },
  );

  it.each([['dist/download.js'], ['dist/upload.js'], ['dist/cli.js', 'download']])(
    "is the flag's when typed as `node %s` (no shebang flag)",
    (entry, ...rest) => {
      expect(newSpaceBytes([], [join(DIST, entry.slice('dist/'.length)), ...rest, '--help'])).toBe(
        FLAG_CAP_BYTES,
      );
    },
  );

  it(
    "is the flag's when the flag is given (the npm scripts, the bin's shebang): " +
      'the entry leaves it alone',
    () => {
      expect(newSpaceBytes(['--max-semi-space-size=4'], [join(DIST, 'download.js'), '--help'])).toBe(
        FLAG_CAP_BYTES,
      );
    },
  );
});
