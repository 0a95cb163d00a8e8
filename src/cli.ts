#!/usr/bin/env -S node --max-semi-space-size=4
// The flag: 4 MiB semi-spaces, as the workers get (workers/entry.ts). Each run's collection is
// short-lived garbage; with V8's default young generation the coordinator's RSS grows with the runs
// of a session, with small semi-spaces it stays near one run's.
// `blob-cacher <command> …`: one entry for every command. The commands' code (and every library it
// loads) is imported only once a command is named: `--help` and an unknown command answer without it.
import { useCompileCache } from './startup/start.js';
import { capYoungGeneration, nodeIsSupported } from './cli/node-check.js';

// Only these names are commands (`constructor` or `__proto__` is not).
const NAMES = [
  'download',
  'upload',
  'report',
  'compare',
  'sweep',
  'tune',
  'collect',
  'k8s-manifest',
  'emulate',
  'check',
  'replay',
  'checkpoint',
  'train',
] as const;

if (nodeIsSupported()) {
  useCompileCache();
  const [command, ...rest] = process.argv.slice(2);
  const names = NAMES.join(', ');
  if (command === '--version' || command === '-V' || command === 'version') {
    // The package's own version, read where npm installed it: no command code is loaded.
    const { createRequire } = await import('node:module');
    process.stdout.write(
      `blob-cacher ${(createRequire(import.meta.url)('../package.json') as { version: string }).version}\n`,
    );
  } else if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(
      `usage: blob-cacher <command> [options]\ncommands: ${names}\nrun blob-cacher <command> --help ` +
        `for its options; blob-cacher --version for the version\n`,
    );
  } else if (!(NAMES as readonly string[]).includes(command)) {
    // Echoed escaped: an argument is text from outside, and may hold terminal escapes. Loaded here
    // alone: a command's start reads no file of ours it does not use.
    const { quotedValue } = await import('./vocabulary/errors.js');
    process.stderr.write(`blob-cacher: unknown command ${quotedValue(command)}; use one of: ${names}\n`);
    process.exitCode = 2;
  } else {
    // Typed as `node dist/cli.js`, the shebang's flag does not apply: the same cap, at run time.
    capYoungGeneration(process.execArgv);
    // A download or an upload forks its first worker before it loads its own modules, not after
    // parsing its options: the worker's Node start and imports overlap the coordinator's instead of
    // following them. Options that turn out bad cost a worker that exits with this process (its
    // channel closes); --help forks none.
    if (
      (command === 'download' || command === 'upload') &&
      !rest.includes('--help') &&
      !rest.includes('-h')
    ) {
      (await import('./workers/first-worker.js')).startFirstWorker();
    }
    const { main, COMMANDS } = await import('./cli/commands.js');
    await main(COMMANDS.get(command)!, rest);
  }
}
