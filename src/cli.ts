#!/usr/bin/env node
// `blob-cacher <command> …`: one entry for every command.
import { nodeIsSupported } from './cli/node-check.js';

if (nodeIsSupported()) {
  const [command, ...rest] = process.argv.slice(2);
  const { main, downloadCommand, uploadCommand, reportCommand, compareCommand, sweepCommand } = await import('./cli/run-cli.js');
  type Env = Record<string, string | undefined>;
  const commands = {
    download: (a: readonly string[], e: Env) => downloadCommand(a, e, 'blob-cacher download'),
    upload: (a: readonly string[], e: Env) => uploadCommand(a, e, 'blob-cacher upload'),
    report: (a: readonly string[], e: Env) => reportCommand(a, e, 'blob-cacher report'),
    compare: (a: readonly string[], e: Env) => compareCommand(a, e, 'blob-cacher compare'),
    sweep: (a: readonly string[], e: Env) => sweepCommand(a, e),
  };
  const names = Object.keys(commands).join(', ');
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`usage: blob-cacher <command> [options]\ncommands: ${names}\nrun blob-cacher <command> --help for its options\n`);
  } else if (command in commands) {
    await main(commands[command as keyof typeof commands], rest);
  } else {
    process.stderr.write(`blob-cacher: unknown command "${command}"; use one of: ${names}\n`);
    process.exitCode = 2;
  }
}
