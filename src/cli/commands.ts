// Every command of `blob-cacher`, as the entry (src/cli.ts) runs them: the one module it imports
// once a command is named. `npm run build` bundles this file, with all it imports, into one
// (scripts/bundle.ts), so that a command's start reads one file instead of ~150 modules; the tune
// and emulate commands load lazily inside it, as before, and share its one copy of every module.
import { collectCommand, compareCommand, downloadCommand, main, manifestCommand, reportCommand, sweepCommand, uploadCommand, type Command } from './run-cli.js';

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
  ['tune', async (a, e) => (await import('./tune-command.js')).tuneCommand(a, e)],
  ['emulate', async (a, e) => (await import('./emulate-command.js')).emulateCommand(a, e, 'blob-cacher emulate')],
  ['check', async (a, e) => (await import('./check-command.js')).checkCommand(a, e, 'blob-cacher check')],
]);
