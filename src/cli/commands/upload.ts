// `blob-cacher upload`: many small files or one large blob with each strategy, compared where the time goes.
import { loadUploadConfig, redactedConfig } from '../../config/load.js';
import { UPLOAD_OPTIONS } from '../../config/options.js';
import { formatBytes } from '../../vocabulary/sizes.js';
import { checkProcessesFit } from '../machine-fit.js';
import { startFirstWorker } from '../../workers/first-worker.js';
import { cellOf, eachSize, loadCommand, mixWords, startEmbeddedEarly, type Env } from '../command-kit.js';
import { measure } from '../measure.js';
import { isPlainUrl } from '../../vocabulary/credentials.js';

export async function uploadCommand(argv: readonly string[], env: Env, name = 'upload'): Promise<number> {
  const loaded = await loadCommand(
    name,
    UPLOAD_OPTIONS,
    'Upload many small files or one large blob with each strategy and compare where the time goes.',
    argv,
    env,
    loadUploadConfig,
  );
  if (!loaded) return 0;
  const { config, output } = loaded;
  checkProcessesFit(config.processes);
  startFirstWorker();
  startEmbeddedEarly(config.credentials);
  // A plain URL takes small files only: no large blob to describe.
  const large = isPlainUrl(config.credentials)
    ? ''
    : `; large blob ${formatBytes(config.blobSizeBytes)} in ${formatBytes(config.blockSizeBytes)} ` +
      `blocks, concurrency ${config.concurrency}`;
  const title =
    `blob-cacher upload: ${config.processes} process(es) x ${config.maxSockets} socket(s); ` +
    (mixWords(config) ?? `small files ${config.fileCount} x ${eachSize(config)}${large}`);
  return measure({
    command: 'upload',
    config,
    cells: [await cellOf(config)],
    docConfig: redactedConfig(config),
    title,
    stem: 'upload',
    output,
  });
}
