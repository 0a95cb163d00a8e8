// The edge of every command: runs it with process.argv's rest and the environment, and maps what it
// throws to one line and an exit code.
import { escapeControls, ExitError, ToldError } from '../vocabulary/errors.js';
import { redact } from '../log/logger.js';
import type { Command } from './command-kit.js';
import { STOP_SIGNALS } from './stop-controller.js';

/** Runs a command and exits: usage errors are one line and exit 2, failures one line and exit 1. */
export async function main(command: Command, argv: readonly string[]): Promise<void> {
  try {
    process.exitCode = await command(argv, process.env);
  } catch (err) {
    // Usage errors exit 2; a scale-out barrier's errors carry their own code (3, 4, 5).
    if (err instanceof ExitError) {
      const line = `blob-cacher: ${escapeControls(redact(err.message))}\n`;
      if (!(err instanceof ToldError)) process.stderr.write(line);
      process.exitCode = err.exitCode;
      return;
    }
    const e = err as NodeJS.ErrnoException;
    process.stderr.write(
      `blob-cacher: ${escapeControls(redact(e.message ?? String(err)).split('\n')[0]!)}\n`,
    );
    process.exitCode = 1;
  } finally {
    // What is left is winding down (the workers told to exit): a stop signal now ends it at once,
    // with the command's exit code, not by the signal's default action (killed: no exit code of ours).
    for (const s of STOP_SIGNALS) process.on(s, () => process.exit());
  }
}
