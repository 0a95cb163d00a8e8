// `blob-cacher download`: the same blob (or many files) with each strategy, compared where the time goes.
import { loadDownloadConfig, redactedConfig } from '../../config/load.js';
import { DOWNLOAD_STRATEGIES, readersOf, workloadOf } from '../../strategies/index.js';
import { DOWNLOAD_OPTIONS } from '../../config/options.js';
import { checkOutPath } from '../sources.js';
import { checkProcessesFit } from '../machine-fit.js';
import { startFirstWorker } from '../../workers/first-worker.js';
import { cellOf, eachSize, loadCommand, mixWords, startEmbeddedEarly, type Env } from '../command-kit.js';
import { measure } from '../measure.js';

export async function downloadCommand(argv: readonly string[], env: Env, name = 'download'): Promise<number> {
  const loaded = await loadCommand(
    name,
    DOWNLOAD_OPTIONS,
    'Download the same blob with each strategy and compare where the time goes.',
    argv,
    env,
    loadDownloadConfig,
  );
  if (!loaded) return 0;
  const { config, output } = loaded;
  checkOutPath(config);
  checkProcessesFit(config.processes);
  startFirstWorker();
  startEmbeddedEarly(config.credentials);
  const many =
    config.sourceMethod !== 'all' &&
    DOWNLOAD_STRATEGIES.some((s) => config.sourceMethod.split(',').includes(s.name) && workloadOf(s).many);
  const pageReaders = readersOf('download', 'pageSize');
  const pages = config.sourceMethod.split(',').some((m) => pageReaders.includes(m))
    ? `, pages of ${config.pageSize}`
    : '';
  const what = config.mix
    ? mixWords(config)
    : many
      ? `${config.fileCount} files x ${eachSize(config)}${pages}`
      : `concurrency ${config.concurrency}`;
  const title =
    `blob-cacher download: ${config.processes} process(es) x ${config.maxSockets} ` +
    `socket(s), ${what}, sink ${config.sink}`;
  return measure({
    command: 'download',
    config,
    cells: [await cellOf(config)],
    docConfig: redactedConfig(config),
    title,
    stem: 'download',
    output,
  });
}
