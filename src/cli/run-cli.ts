// The edge: turns argv and the environment into a typed config, runs, prints, and maps errors to
// one line and an exit code. The only place that reads process.argv and process.env.
import { buildProgram, loadDownloadConfig, loadUploadConfig, parseFlags, redactedConfig, type Credentials } from '../config/load.js';
import { ConfigError } from '../config/errors.js';
import { DOWNLOAD_OPTIONS, UPLOAD_OPTIONS } from '../config/options.js';
import { formatBytes } from '../config/sizes.js';
import { runDownload } from '../download-run.js';
import { log, redact, registerSecret, setLogLevel } from '../log.js';
import { renderConsole } from '../report/console.js';
import { runUpload } from '../upload-run.js';

export type Command = (argv: readonly string[], env: Record<string, string | undefined>) => Promise<number>;

function registerSecrets(credentials: Credentials, env: Record<string, string | undefined>): void {
  if (credentials.kind === 'key') registerSecret(credentials.key);
  if (credentials.kind === 'sas') registerSecret(credentials.sas);
  registerSecret(env.STORAGE_CONNECTION_STRING);
}

export async function downloadCommand(argv: readonly string[], env: Record<string, string | undefined>, name = 'download'): Promise<number> {
  const program = buildProgram(name, DOWNLOAD_OPTIONS, 'Download the same blob with each strategy and compare where the time goes.');
  const flags = parseFlags(program, argv);
  if (!flags) return 0;
  const config = loadDownloadConfig(flags, { argv, env });
  registerSecrets(config.credentials, env);
  setLogLevel(config.logLevel);
  log.debug(`config ${JSON.stringify(redactedConfig(config))}`);
  const run = await runDownload(config);
  const header = `blob-cacher download: ${config.processes} process(es) x ${config.maxSockets} socket(s), concurrency ${config.concurrency}, sink ${config.sink}`;
  process.stdout.write(`${redact(renderConsole(run, header))}\n`);
  return run.results.every((r) => r.verified) ? 0 : 1;
}

export async function uploadCommand(argv: readonly string[], env: Record<string, string | undefined>, name = 'upload'): Promise<number> {
  const program = buildProgram(name, UPLOAD_OPTIONS, 'Upload many small files or one large blob with each strategy and compare where the time goes.');
  const flags = parseFlags(program, argv);
  if (!flags) return 0;
  const config = loadUploadConfig(flags, { argv, env });
  registerSecrets(config.credentials, env);
  setLogLevel(config.logLevel);
  log.debug(`config ${JSON.stringify(redactedConfig(config))}`);
  const run = await runUpload(config);
  const header =
    `blob-cacher upload: ${config.processes} process(es) x ${config.maxSockets} socket(s); small files ${config.fileCount} x ${formatBytes(config.fileSizeBytes)}; ` +
    `large blob ${formatBytes(config.blobSizeBytes)} in ${formatBytes(config.blockSizeBytes)} blocks, concurrency ${config.concurrency}`;
  process.stdout.write(`${redact(renderConsole(run, header, 'upload'))}\n`);
  return run.results.every((r) => r.verified) ? 0 : 1;
}

/** Runs a command and exits: usage errors are one line and exit 2, failures one line and exit 1. */
export async function main(command: Command, argv: readonly string[]): Promise<void> {
  try {
    process.exitCode = await command(argv, process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`blob-cacher: ${redact(err.message)}\n`);
      process.exitCode = 2;
      return;
    }
    const e = err as NodeJS.ErrnoException;
    process.stderr.write(`blob-cacher: ${redact(e.message ?? String(err)).split('\n')[0]}\n`);
    process.exitCode = 1;
  }
}
