// Configurations that cannot fit fail before anything runs: a range too large for one
// buffer, a memory sink larger than the machine, fixtures the embedded Azurite cannot hold.
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../src/vocabulary/errors.js';
import { checkDownloadFits, checkUploadFits } from '../src/engine/limits.js';
import { selectStrategies } from '../src/strategies/index.js';
import { ONE_RUN } from './helpers/cli-env.js';
import { freshDirsSync } from './helpers/temp-dirs.js';

// Scratch directories, removed after the file so none is left in /tmp.
const scratchDir = freshDirsSync('bc-limits-');

const GiB = 1024 ** 3;
const root = resolve(import.meta.dirname, '..');
const limits = { sink: 'memory', embedded: true, totalMemoryBytes: 24 * GiB };

describe('checkDownloadFits', () => {
  it('a 3 GiB range into the memory sink is refused, naming the way out', () => {
    expect(() =>
      checkDownloadFits(
        selectStrategies('single', false),
        { sizeBytes: 3 * GiB, concurrency: 4, urlTarget: false },
        limits,
      ),
    ).toThrow(
      new RegExp(
        '^single would hold a 3 GiB range in memory, .* use more ' +
          '--concurrency or a --range-size, or --sink file$',
      ),
    );
  });

  it('the same object in four ranges fits; to a file sink one range fits too', () => {
    expect(() =>
      checkDownloadFits(
        selectStrategies('chunked', false),
        { sizeBytes: 3 * GiB, concurrency: 4, urlTarget: false },
        limits,
      ),
    ).not.toThrow();
    expect(() =>
      checkDownloadFits(
        selectStrategies('single', false),
        { sizeBytes: 3 * GiB, concurrency: 4, urlTarget: false },
        { ...limits, sink: 'file' },
      ),
    ).not.toThrow();
  });

  it('the SDK baseline buffers the whole blob whatever the sink', () => {
    expect(() =>
      checkDownloadFits(
        selectStrategies('sdk', false),
        { sizeBytes: 3 * GiB, concurrency: 4, urlTarget: false },
        { ...limits, sink: 'discard' },
      ),
    ).toThrow(/^sdk would hold a 3 GiB range in memory/);
  });

  it(
    'round-robin with --concurrency 1000 needs 1000 copies: refused on the embedded target, allowed ' +
      'on an account',
    () => {
      const input = { sizeBytes: 80 * 1024 ** 2, concurrency: 1000, urlTarget: false };
      expect(() =>
        checkDownloadFits(selectStrategies('round-robin', false), input, { ...limits, sink: 'discard' }),
      ).toThrow(ConfigError);
      expect(() =>
        checkDownloadFits(selectStrategies('round-robin', false), input, {
          ...limits,
          sink: 'discard',
          embedded: false,
        }),
      ).not.toThrow();
    },
  );

  it('a memory sink larger than 80% of the machine is refused', () => {
    expect(() =>
      checkDownloadFits(
        selectStrategies('chunked', false),
        { sizeBytes: 20 * GiB, concurrency: 64, urlTarget: false },
        { ...limits, embedded: false },
      ),
    ).toThrow(
      /memory sink would hold 20 GiB, more than 80% of this machine's 24 GiB; use --sink file or discard/,
    );
  });
});

describe('checkUploadFits', () => {
  it('10 million small files on a 2 GiB machine are refused with the count that fits; 1 million fit', () => {
    expect(() => checkUploadFits(10_000_000, true, 2 * GiB)).toThrow(
      new RegExp(
        String.raw`^10000000 files per run would need about 4\.77 GiB of ` +
          String.raw`per-file state \(about 512 B a file\), more than 80% of this machine's 2 GiB; ` +
          'use --file-count 3355443 or fewer',
      ),
    );
    expect(() => checkUploadFits(1_000_000, true, 2 * GiB)).not.toThrow();
    expect(() => checkUploadFits(10_000_000, true, 24 * GiB)).not.toThrow();
    expect(() => checkUploadFits(10_000_000, false, 2 * GiB)).not.toThrow();
  });
});

describe('through the CLI', () => {
  it('fails in a moment with one line and exit 2, before any fixture is made', () => {
    const cwd = scratchDir();
    const started = performance.now();
    const r = spawnSync(
      process.execPath,
      [
        join(root, 'dist/cli.js'),
        'download',
        '--source-method',
        'single',
        '--file-size',
        '3GiB',
        '--results',
        'r.json',
      ],
      {
        cwd,
        encoding: 'utf8',
        env: { ...ONE_RUN, PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
        timeout: 30_000,
      },
    );
    expect(r.status, r.stderr).toBe(2);
    expect(
      r.stderr
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('blob-cacher:')),
    ).toEqual([expect.stringMatching(/^blob-cacher: single would hold a 3 GiB range in memory/)]);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect(performance.now() - started).toBeLessThan(15_000);
  });
});
