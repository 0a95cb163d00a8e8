// `blob-cacher checkpoint`: K ranks each write a shard at once and read it back (MLPerf Storage's
// checkpoint pattern), compared across the ways a shard is written.
import { loadCheckpointConfig, type CheckpointConfig } from '../../config/checkpoint.js';
import { redactedConfig } from '../../config/load.js';
import { CHECKPOINT_OPTIONS } from '../../config/options.js';
import { formatBytes, formatSizeExact } from '../../vocabulary/sizes.js';
import { checkProcessesFit } from '../machine-fit.js';
import { checkCheckpointFits } from '../../engine/limits.js';
import { startFirstWorker } from '../../workers/first-worker.js';
import { cellOf, loadCommand, startEmbeddedEarly, type Env } from '../command-kit.js';
import { measure } from '../measure.js';

export async function checkpointCommand(
  argv: readonly string[],
  env: Env,
  name = 'checkpoint',
): Promise<number> {
  const loaded = await loadCommand(
    name,
    CHECKPOINT_OPTIONS,
    'K ranks (--processes) each write a shard at once, then read it back: the time to a consistent ' +
      'checkpoint, write and read bandwidth, and the straggler share.',
    argv,
    env,
    loadCheckpointConfig,
  );
  if (!loaded) return 0;
  const { config, output } = loaded;
  // Refused before the warnings about processes: a configuration that cannot fit says only that.
  checkCheckpointFits(config.processes, config.shardSizeBytes, config.credentials.kind === 'embedded');
  checkProcessesFit(config.processes);
  startFirstWorker();
  startEmbeddedEarly(config.credentials);
  const sizes = config.blockSizesBytes;
  const title =
    `blob-cacher checkpoint: ${config.processes} rank(s) x ${formatBytes(config.shardSizeBytes)} shard, ` +
    `${config.maxSockets} socket(s) a rank, blocks of ${sizes.map((b) => formatBytes(b)).join(', ')}`;
  // Several block sizes: a cell each, named by its size, as a sweep's are.
  const cells =
    sizes.length > 1
      ? await Promise.all(
          sizes.map((b) => {
            const one: CheckpointConfig = { ...config, blockSizeBytes: b, blockSizesBytes: [b] };
            return cellOf(one, { '--block-size': formatSizeExact(b).replace(' ', '') });
          }),
        )
      : [await cellOf(config)];
  return measure({
    command: 'upload',
    config,
    cells,
    docConfig: { checkpoint: true, ...redactedConfig(config) },
    title,
    stem: 'checkpoint',
    output,
  });
}
