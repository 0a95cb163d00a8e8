#!/usr/bin/env node
// `node dist/download.js …`: the download comparison.
import { nodeIsSupported } from './cli/node-check.js';

if (nodeIsSupported()) {
  const { main, downloadCommand } = await import('./cli/run-cli.js');
  await main(downloadCommand, process.argv.slice(2));
}
