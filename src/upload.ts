#!/usr/bin/env -S node --max-semi-space-size=4
// `node dist/upload.js …`: the upload comparison (the Docker image's command).
import { useCompileCache } from './cli/compile-cache.js';
import { nodeIsSupported } from './cli/node-check.js';

if (nodeIsSupported()) {
  useCompileCache();
  const { main, uploadCommand } = await import('./cli/run-cli.js');
  await main(uploadCommand, process.argv.slice(2));
}
