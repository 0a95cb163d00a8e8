// Worker processes the machine cannot hold. Past its cores they only compete
// (a warning); past its memory they would be killed part-way (refused before any is forked).
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { checkProcessesFit, WORKER_BASE_BYTES } from '../src/cli/machine-fit.js';
import { runCli } from './helpers/cli.js';
import { refusingUrl } from './helpers/http-servers.js';
import { freshDirs } from './helpers/temp-dirs.js';

const fresh = freshDirs('safety-machine-');

describe('--processes against the machine', () => {
  it(
    'also seen: --processes past the cores warns; more than memory holds is refused with the most ' +
      'that fits',
    async () => {
      expect(() => checkProcessesFit(16, { cores: 2, availableBytes: 10 * WORKER_BASE_BYTES })).toThrow(
        /--processes 16 needs about 1280 MiB .* give --processes 10 or fewer/,
      );
      expect(() => checkProcessesFit(4, { cores: 2, availableBytes: 10 * WORKER_BASE_BYTES })).not.toThrow();
      const over = availableParallelism() + 1;
      const run = await runCli(['download', '--url', await refusingUrl(), '--processes', String(over)], {
        cwd: await fresh(),
      });
      expect(run.stderr).toContain(
        `--processes ${over} is more than this machine's ${availableParallelism()} core(s)`,
      );
    },
  );
});
