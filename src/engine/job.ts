// One run's job for its workers, downloads and uploads alike: the run's settings, the contender's
// own job options, and what its workload asks of the workers (a tally of their shares, how they
// record completions). Each direction adds only what is its own (a sink and hedging; a read-back);
// a workload with contenders of its own (--mix, checkpoint) names the kind they run and what it holds.
import type { DownloadConfig, UploadConfig } from '../config/load.js';
import type { Items } from '../plan/items.js';
import type { Workload } from '../plan/workload.js';
import type { TargetInfo } from '../storage/target.js';
import type { KindName } from '../kinds/index.js';
import type { JobOptions, JobSettings } from '../strategies/strategy.js';
import type { JobSpec } from '../workers/pool.js';
import { summaryFor } from './summary.js';

/** The settings a job takes from the run's config, either direction's. */
type RunSettings = Pick<
  DownloadConfig | UploadConfig,
  | 'processes'
  | 'maxSockets'
  | 'concurrency'
  | 'httpClient'
  | 'logLevel'
  | 'maxRetries'
  | 'timeoutMs'
  | 'trace'
>;

/** What a job runs: the contender's name, the request kind its workers run, its own job options. */
export interface JobContender {
  name: string;
  kind: KindName;
  jobOptions?(settings: JobSettings): JobOptions;
}

export interface JobInput {
  config: RunSettings;
  /** A strategy, or a contender of a workload's own (a mix's kind, a checkpoint's shard write). */
  strategy: JobContender;
  /** What it measures (plan/workload.ts); unset: a workload that asks nothing more of the workers. */
  workload?: Workload;
  target: TargetInfo;
  items: Items;
  objectSizeBytes: number;
  /** What the contender's job options are drawn from beyond the config. */
  settings: Pick<JobSettings, 'sizeBytes' | 'rangeSizeBytes'>;
  /** The direction's own fields: set before the contender's options, which may override them. */
  own: Pick<JobSpec, 'sink' | 'bufferSizeBytes'> & Partial<JobSpec>;
  /** What the workload holds whatever the contender's options say: set after them. */
  fixed?: Partial<JobSpec>;
}

/** What a workload asks of the workers: a tally of their shares, how they record completions. */
function workloadFields(input: JobInput): Partial<JobSpec> {
  const { workload } = input;
  if (!workload) return {};
  return {
    ...(workload.tally ? summaryFor(input.items, workload.tally, input.config.processes) : {}),
    ...(workload.completions ? { completions: workload.completions } : {}),
  };
}

export function buildJob(input: JobInput): JobSpec {
  const { config, strategy, target, objectSizeBytes, settings, own } = input;
  const { processes, maxSockets, concurrency } = config;
  return {
    strategy: strategy.name,
    kind: strategy.kind,
    target,
    objectSizeBytes,
    concurrency,
    maxSockets,
    httpClient: config.httpClient,
    logLevel: config.logLevel,
    ...own,
    maxRetries: config.maxRetries,
    timeoutMs: config.timeoutMs,
    trace: config.trace,
    ...strategy.jobOptions?.({ processes, maxSockets, concurrency, ...settings }),
    ...input.fixed,
    ...workloadFields(input),
  };
}
