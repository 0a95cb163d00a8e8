// `checkpoint`'s options as one typed config: an upload's config (target, sockets, runs, keep) with
// the shard size and the ways it is written. Refused here, one line each: what cannot run as asked.
import { isPlainUrl, resolveCredentials } from '../vocabulary/credentials.js';
import { ConfigError } from '../vocabulary/errors.js';
import { resolveOptions, type Sources } from './flags.js';
import { MAX_BLOCKS, runOptions, type UploadConfig } from './load.js';
import { CHECKPOINT_OPTIONS } from './options.js';
import { formatBytes } from '../vocabulary/sizes.js';
import { blocksOnly, putOnly, type ShardWriteChoice } from '../strategies/checkpoint.js';
import { DEFAULT_UPLOAD_STRATEGY } from '../strategies/index.js';

export interface CheckpointConfig extends UploadConfig {
  /** Each rank's shard; `processes` is the number of ranks. */
  shardSizeBytes: number;
  shardWrite: ShardWriteChoice;
  /** Every --block-size given: a session cell each (blockSizeBytes is the cell's, the first by default). */
  blockSizesBytes: number[];
}

export function loadCheckpointConfig(
  flags: Readonly<Record<string, unknown>>,
  sources: Sources,
): CheckpointConfig {
  const o = resolveOptions(CHECKPOINT_OPTIONS, flags, sources);
  const credentials = resolveCredentials(o);
  const { shardSizeBytes, blockSizesBytes, thresholdBytes, shardWrite } = o;
  const blockSizeBytes = blockSizesBytes[0]!;
  if (credentials.kind === 'anonymous')
    throw new ConfigError('--auth anonymous only reads; a checkpoint writes: use --auth key, sas or entra');
  const plain = isPlainUrl(credentials);
  if (plain && blocksOnly(shardWrite))
    throw new ConfigError(
      '--shard-write blocks needs a blob service (Put Block, Put Block List) and --url is a plain server, ' +
        'which takes one PUT per shard; give --shard-write put or all, or drop --url',
    );
  if (!plain && putOnly(shardWrite) && shardSizeBytes > thresholdBytes)
    throw new ConfigError(
      `--shard-write put: a shard of ${formatBytes(shardSizeBytes)} is above --single-shot-size ` +
        `${formatBytes(thresholdBytes)}; raise --single-shot-size (at most 256MiB) ` +
        'or give --shard-write blocks',
    );
  if (blockSizesBytes.length > 1 && (plain || putOnly(shardWrite)))
    throw new ConfigError(
      'several --block-size values compare staged blocks, which need a blob service and --shard-write ' +
        'blocks or all; give one --block-size',
    );
  if (!plain && !putOnly(shardWrite) && Math.ceil(shardSizeBytes / Math.min(...blockSizesBytes)) > MAX_BLOCKS)
    throw new ConfigError(
      `--shard-size / --block-size makes more than ${MAX_BLOCKS} blocks; raise --block-size`,
    );
  const run = runOptions(o);
  if (run.steady || run.openLoop)
    throw new ConfigError(
      'checkpoint measures whole checkpoints, one a run; drop --duration and --rate (give --runs instead)',
    );
  return {
    logLevel: o.logLevel,
    // Unused: the shard writes are the contenders (--shard-write).
    uploadMethod: DEFAULT_UPLOAD_STRATEGY,
    shardSizeBytes,
    shardWrite,
    fileCount: o.processes,
    fileSizeBytes: shardSizeBytes,
    blobSizeBytes: shardSizeBytes,
    blockSizeBytes,
    blockSizesBytes,
    concurrency: o.processes * o.maxSockets,
    thresholdBytes,
    processes: o.processes,
    maxSockets: o.maxSockets,
    container: o.container,
    keep: o.keep,
    httpClient: o.httpClient,
    credentials,
    ...run,
  };
}

/** A config is a checkpoint's (tune and the command kit take either). */
export const isCheckpointConfig = (c: object): c is CheckpointConfig => 'shardSizeBytes' in c;
