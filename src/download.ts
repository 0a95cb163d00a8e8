#!/usr/bin/env -S node --max-semi-space-size=4
// `node dist/download.js …`: the download comparison.
import { useCompileCache } from './cli/compile-cache.js';
import { nodeIsSupported } from './cli/node-check.js';

if (nodeIsSupported()) {
  useCompileCache();
  const { main, downloadCommand } = await import('./cli/run-cli.js');
  await main(downloadCommand, process.argv.slice(2));
}
