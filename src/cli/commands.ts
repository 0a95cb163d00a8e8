// Every command of `blob-cacher`, as the entry (src/cli.ts) runs them: the one module it imports
// once a command is named. `npm run build` bundles this file, with all it imports, into one
// (scripts/bundle.ts), so that a command's start reads one file instead of ~150 modules; the tune
// and emulate commands load lazily inside it, as before, and share its one copy of every module.
import type { Command } from './command-kit.js';
import { collectCommand } from './commands/collect.js';
import { compareCommand } from './commands/compare.js';
import { downloadCommand } from './commands/download.js';
import { manifestCommand } from './commands/k8s-manifest.js';
import { reportCommand } from './commands/report.js';
import { sweepCommand } from './commands/sweep.js';
import { uploadCommand } from './commands/upload.js';
import { main } from './main.js';

// The two commands dist/download.js and dist/upload.js run, by the names their --help gives.
export { downloadCommand, main, uploadCommand };

/** The commands by name; `name` is what their --help and errors call them. */
export const COMMANDS: ReadonlyMap<string, Command> = new Map<string, Command>([
  ['download', (a, e) => downloadCommand(a, e, 'blob-cacher download')],
  ['upload', (a, e) => uploadCommand(a, e, 'blob-cacher upload')],
  ['report', (a, e) => reportCommand(a, e, 'blob-cacher report')],
  ['compare', (a, e) => compareCommand(a, e, 'blob-cacher compare')],
  ['sweep', (a, e) => sweepCommand(a, e)],
  ['collect', (a, e) => collectCommand(a, e, 'blob-cacher collect')],
  ['k8s-manifest', (a, e) => manifestCommand(a, e, 'blob-cacher k8s-manifest')],
  ['tune', async (a, e) => (await import('./commands/tune.js')).tuneCommand(a, e)],
  [
    'emulate',
    async (a, e) => (await import('./commands/emulate.js')).emulateCommand(a, e, 'blob-cacher emulate'),
  ],
  ['train', async (a, e) => (await import('./commands/train.js')).trainCommand(a, e)],
  ['check', async (a, e) => (await import('./commands/check.js')).checkCommand(a, e, 'blob-cacher check')],
  [
    'replay',
    async (a, e) => (await import('./commands/replay.js')).replayCommand(a, e, 'blob-cacher replay'),
  ],
  [
    'checkpoint',
    async (a, e) =>
      (await import('./commands/checkpoint.js')).checkpointCommand(a, e, 'blob-cacher checkpoint'),
  ],
]);
