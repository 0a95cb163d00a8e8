// One run's job for its workers, downloads and uploads alike: the run's settings, the contender's
// own job options, and what its workload asks of the workers (a tally of their shares, how they
// record completions). Each direction adds only what is its own (a sink and hedging; a read-back).
import type { DownloadConfig, UploadConfig } from '../config/load.js';
import type { Items } from '../plan/items.js';
import type { Workload } from '../plan/workload.js';
import type { TargetInfo } from '../storage/target.js';
import { workloadOf } from '../strategies/index.js';
import type { DownloadStrategy, JobSettings, UploadStrategy } from '../strategies/strategy.js';
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

export interface JobInput {
  config: RunSettings;
  strategy: DownloadStrategy | UploadStrategy;
  target: TargetInfo;
  items: Items;
  objectSizeBytes: number;
  /** What the contender's job options are drawn from beyond the config. */
  settings: Pick<JobSettings, 'sizeBytes' | 'rangeSizeBytes'>;
  /** The direction's own fields: set before the contender's options, which may override them. */
  own: Pick<JobSpec, 'sink' | 'bufferSizeBytes'> & Partial<JobSpec>;
}

export function buildJob({
  config,
  strategy,
  target,
  items,
  objectSizeBytes,
  settings,
  own,
}: JobInput): JobSpec {
  const workload: Workload = workloadOf(strategy);
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
    ...(workload.tally ? summaryFor(items, workload.tally, processes) : {}),
    ...(workload.completions ? { completions: workload.completions } : {}),
  };
}
