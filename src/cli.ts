#!/usr/bin/env node
// `blob-cacher <command> …`: one entry for every command.
import { nodeIsSupported } from './cli/node-check.js';

if (nodeIsSupported()) {
  const [command, ...rest] = process.argv.slice(2);
  const { main, downloadCommand, uploadCommand, reportCommand, compareCommand, sweepCommand } = await import('./cli/run-cli.js');
  type Env = Record<string, string | undefined>;
  // A Map, so that only these names are commands: `constructor` or `__proto__` is not.
  const commands = new Map<string, (a: readonly string[], e: Env) => Promise<number>>([
    ['download', (a, e) => downloadCommand(a, e, 'blob-cacher download')],
    ['upload', (a, e) => uploadCommand(a, e, 'blob-cacher upload')],
    ['report', (a, e) => reportCommand(a, e, 'blob-cacher report')],
    ['compare', (a, e) => compareCommand(a, e, 'blob-cacher compare')],
    ['sweep', (a, e) => sweepCommand(a, e)],
  ]);
  const names = [...commands.keys()].join(', ');
  if (command === undefined || command === '--help' || command === '-h' || command === 'help') {
    process.stdout.write(`usage: blob-cacher <command> [options]\ncommands: ${names}\nrun blob-cacher <command> --help for its options\n`);
  } else {
    const run = commands.get(command);
    if (run) {
      await main(run, rest);
    } else {
      process.stderr.write(`blob-cacher: unknown command "${command}"; use one of: ${names}\n`);
      process.exitCode = 2;
    }
  }
}
