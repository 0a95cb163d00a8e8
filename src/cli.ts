#!/usr/bin/env node
// `blob-cacher <command> …`: one entry for every command.
import { nodeIsSupported } from './cli/node-check.js';

const COMMANDS = ['download'] as const;

if (nodeIsSupported()) {
  const [command, ...rest] = process.argv.slice(2);
  const { main, downloadCommand } = await import('./cli/run-cli.js');
  if (command === 'download') await main((a, e) => downloadCommand(a, e, 'blob-cacher download'), rest);
  else if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`usage: blob-cacher <command> [options]\ncommands: ${COMMANDS.join(', ')}\nrun blob-cacher <command> --help for its options\n`);
  } else {
    process.stderr.write(`blob-cacher: unknown command "${command}"; use one of: ${COMMANDS.join(', ')}\n`);
    process.exitCode = 2;
  }
}
