#!/usr/bin/env -S node --max-semi-space-size=4
// `node dist/download.js …`: the download comparison.
import { nodeIsSupported } from './cli/node-check.js';

if (nodeIsSupported()) {
  const { main, downloadCommand } = await import('./cli/run-cli.js');
  await main(downloadCommand, process.argv.slice(2));
}
