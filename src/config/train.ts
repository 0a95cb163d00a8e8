// `train`'s settings: the download options (the sample set is a many-file set, read by the strategies
// of the `files` workload) and the training loop's own, with MLPerf Storage's presets filled in where
// the user gave nothing. The presets are MLPerf Storage's H100 workload configurations
// (mlcommons/storage, configs/dlio/workload/{resnet50,cosmoflow,unet3d}_h100.yaml): sample size
// (record_length_bytes; resnet50's resized image), batch_size, computation_time and metric.au.
import { DOWNLOAD_STRATEGIES, workloadOf } from '../strategies/index.js';
import { ConfigError } from '../vocabulary/errors.js';
import { flagAttribute, givenText, resolveOptions, type Sources } from './flags.js';
import { loadDownloadConfig, type DownloadConfig } from './load.js';
import { DOWNLOAD_OPTIONS, TRAIN_OPTIONS, type TrainPreset } from './options.js';
import type { TrainOptions } from './train-options.js';

export type { TrainOptions } from './train-options.js';

export type TrainConfig = DownloadConfig & { train: TrainOptions };

export interface PresetSpec {
  sampleBytes: number;
  batchSize: number;
  computeMs: number;
  passMark: number;
  /** A small set for one machine (MLPerf's own runs size theirs to 5x the host's memory). */
  fileCount: number;
}

export const PRESETS: Readonly<Record<TrainPreset, PresetSpec>> = {
  resnet50: { sampleBytes: 150_528, batchSize: 400, computeMs: 224, passMark: 0.9, fileCount: 2400 },
  cosmoflow: { sampleBytes: 2_828_486, batchSize: 1, computeMs: 3.5, passMark: 0.7, fileCount: 512 },
  unet3d: { sampleBytes: 146_600_628, batchSize: 7, computeMs: 323, passMark: 0.9, fileCount: 28 },
};

const DEFAULT_BATCH_SIZE = 8;
const DEFAULT_COMPUTE_MS = 50;
const DEFAULT_PASS_MARK = 0.9;

/** The strategies that read a sample set: those of the one-GET-per-file workload, from the registry. */
export const TRAIN_READERS: readonly string[] = DOWNLOAD_STRATEGIES.filter(
  (s) => workloadOf(s).name === 'files',
).map((s) => s.name);

/** The kind of request that reads a byte range (chunked's): a sample in parts goes through it. */
const RANGED_KIND = 'get';

const specOf = (key: string) => DOWNLOAD_OPTIONS.find((s) => s.key === key)!;

/** The flags with a preset's sample size and set, and the first reader, where none was given. */
function withDefaults(
  flags: Readonly<Record<string, unknown>>,
  sources: Sources,
  preset?: PresetSpec,
): Record<string, unknown> {
  const out = { ...flags };
  const unset = (key: string) => givenText(specOf(key), flags, sources) === undefined;
  if (unset('sourceMethod')) out[flagAttribute(specOf('sourceMethod'))] = TRAIN_READERS[0];
  if (preset && unset('fileSize')) out[flagAttribute(specOf('fileSize'))] = `${preset.sampleBytes}B`;
  if (preset && unset('fileCount')) out[flagAttribute(specOf('fileCount'))] = String(preset.fileCount);
  return out;
}

/**
 * --range-size: large samples read as ranged GETs of that size, through the kind that sends ranges;
 * the sample's bytes are hashed whole after the run, so a sink that hashes each request's bytes as
 * they come (discard), and --hedge, which duplicates a whole request, are refused beside it.
 */
/** The readers that can read a sample in ranges: those whose kind is the ranged one. */
const rangedReaders = () =>
  DOWNLOAD_STRATEGIES.filter((s) => TRAIN_READERS.includes(s.name) && s.kind === RANGED_KIND).map(
    (s) => s.name,
  );

function rangedReads(config: DownloadConfig): number | undefined {
  const range = config.rangeSizeBytes;
  if (range === undefined) return undefined;
  const methods = config.sourceMethod.split(',');
  const whole = DOWNLOAD_STRATEGIES.filter((s) => methods.includes(s.name) && s.kind !== RANGED_KIND);
  if (whole.length)
    throw new ConfigError(
      `--range-size reads large samples in ranges, which ${whole.map((s) => s.name).join(', ')} cannot; ` +
        `drop --range-size or give --source-method ${rangedReaders().join(',')}`,
    );
  if (config.sink === 'discard' || config.hedge)
    throw new ConfigError(
      `--range-size reads samples in parts and checks each one whole after the run; ` +
        `drop ${config.hedge ? '--hedge' : '--sink discard (use memory)'} or --range-size`,
    );
  return range;
}

export function loadTrainConfig(flags: Readonly<Record<string, unknown>>, sources: Sources): TrainConfig {
  const t = resolveOptions(TRAIN_OPTIONS, flags, sources);
  const preset = t.preset ? PRESETS[t.preset] : undefined;
  const filled = withDefaults(flags, sources, preset);
  const config = loadDownloadConfig(filled, sources);
  const other = config.sourceMethod.split(',').filter((m) => !TRAIN_READERS.includes(m));
  if (other.length)
    throw new ConfigError(
      `train reads its samples one file each; --source-method ${other.join(',')} is not such a reader: ` +
        `give ${TRAIN_READERS.join(' or ')}`,
    );
  if (config.steady || config.openLoop)
    throw new ConfigError(
      'train runs its epochs at the pace its accelerators set; drop --duration and --rate',
    );
  const rangeBytes = rangedReads(config);
  const { seed } = resolveOptions(DOWNLOAD_OPTIONS, filled, sources);
  return {
    ...config,
    train: {
      epochs: t.epochs,
      batchSize: t.batchSize ?? preset?.batchSize ?? DEFAULT_BATCH_SIZE,
      computeMs: t.computeMs ?? preset?.computeMs ?? DEFAULT_COMPUTE_MS,
      prefetch: t.prefetch,
      seed,
      ...(rangeBytes ? { rangeBytes } : {}),
      passMark: t.passMark ?? preset?.passMark ?? DEFAULT_PASS_MARK,
      ...(t.preset ? { preset: t.preset } : {}),
    },
  };
}
