#!/usr/bin/env -S node --max-semi-space-size=4
// `node dist/download.js …`: the download comparison, started as `blob-cacher download` is (cli.ts
// says why): the first worker forked before the command's modules load, and those modules read from
// the one bundled file. Typed as `node dist/download.js`, no shebang flag applies: the young
// generation is capped at run time instead (node-check.ts).
import { useCompileCache } from './startup/start.js';
import { capYoungGeneration, nodeIsSupported } from './cli/node-check.js';

if (nodeIsSupported()) {
  capYoungGeneration(process.execArgv);
  useCompileCache();
  const argv = process.argv.slice(2);
  if (!argv.includes('--help') && !argv.includes('-h'))
    (await import('./workers/first-worker.js')).startFirstWorker();
  const { main, downloadCommand } = await import('./cli/commands.js');
  await main(downloadCommand, argv);
}
