// The Report's shape: every figure the analysis derives from a results file, and the tables the
// renderers draw from them. Built by report-model.ts.
import type { Environment, ResultsFile, Unit } from '../results/schema.js';
import type { Table } from './columns.js';
import type { HedgeSummary, ObjectCompletion } from './completion.js';
import type { ContenderCost } from './cost.js';
import type { OpenLoopSummary, RateCurve } from './open-loop.js';
import type { Recommendation } from './recommend.js';
import type { ReportSizeBuckets } from './size-buckets.js';
import type { ReportMix } from './mix.js';
import type { CheckpointReport } from './checkpoint.js';
import type { ReportTrain } from './train.js';
import type { SweepGrid } from './sweep.js';
import type { ThresholdResults } from './thresholds.js';
import type { TimeBounds } from './time-bounds.js';
import type { ReportTune } from './tune.js';
import type { RankedStats, ServerGap, Verdict } from './verdict.js';
import type { ReportWarning } from './warnings.js';
import type { WarmupFaults } from './warmup.js';
import type { Phase } from '../transport/phases.js';

export interface ReportContender extends RankedStats {
  cost: ContenderCost;
  /** Whole-object completion beside request latency, where runs measured it. */
  completion?: ObjectCompletion;
  /** What --hedge did, where it ran. */
  hedge?: HedgeSummary;
  /** The spread of its times as shown beside the median; none from one sample. */
  timeBounds?: TimeBounds;
  /** --rate: offered and achieved rate, skipped sends, latency from the intended start and from the send. */
  openLoop?: OpenLoopSummary;
  /** Its measured times added up (what JUnit reports as the time of its test). */
  measuredMs: number;
}

/** Where one contender's request time went: each phase's share of its requests' summed time. */
export interface TimeWent {
  contender: string;
  /** Phases present, in PHASES' order; connection phases from opened sockets only. */
  shares: { phase: Phase; share: number }[];
  /** Requests, and those that opened a socket (the rest reused one), median per run. */
  requestsPerRun: number;
  socketsOpenedPerRun: number;
}

export interface ReportHeader {
  title: string;
  command: ResultsFile['command'];
  target: string;
  targetKind: string;
  targetOnThisMachine: boolean;
  /** The one object size every download run delivered, when there is one. */
  objectSizeBytes?: number;
  /** Measured runs per contender, as measured (warm-ups left out). */
  runsPerContender: { label: string; runs: number }[];
  /** The most common of those counts (the larger on a tie): the header says it once, then the others. */
  usualRuns: number;
  /** The most runs any contender has (0 where none): whether there is a spread to show at all. */
  mostRuns: number;
  complete: boolean;
  interrupted?: string;
  createdAt: string;
}

export interface ReportSweep {
  grid: SweepGrid;
  /** Each cell's winning contender, in grid order. */
  winners: string[];
  best?: string;
  /** The best cell and every cell a rank test cannot tell from it. */
  tied: string[];
  /** SDK settings drawn from measured SDK cells, as lines. */
  sdkAdvice: string[];
}

export interface Report {
  schema: 'blob-cacher/report';
  schemaVersion: number;
  header: ReportHeader;
  environment: Environment;
  /** What the report's rates are in: MiB/s, or ops/s when every contender is counted in requests. */
  unit: Unit;
  /** Ranked, fastest first; failed contenders last. */
  contenders: ReportContender[];
  verdicts: Verdict[];
  recommendation?: Recommendation;
  /** Where the time went, one per contender in the answer (a sweep's or tune's: the recommended cell's). */
  timeWent: TimeWent[];
  /** One per kind. */
  warnings: ReportWarning[];
  /** Retries, throttled answers and failures in warm-up runs, apart from the measured figures. */
  warmupFaults: WarmupFaults[];
  /** Client time against the server's own span, where the server's clock was read. */
  serverClock: (ServerGap & { contender: string })[];
  sweep?: ReportSweep;
  /** A tune's answer: the best cell, its neighbours, the path, throttling, what to deploy. */
  tune?: ReportTune;
  prices: { name: string; asOf: string; currency: string };
  /** The percentiles of each contender's `totalPercentilesMs`. */
  latencyPercentiles: readonly number[];
  /** The extremes across contenders that the charts scale to. */
  ranges: ReportRanges;
  /** --threshold's rules, each row pass or fail; absent when none was given. */
  thresholds?: ThresholdResults;
  /** --slo with --rate: each open-loop contender's rates against it, and its knee (a rate sweep's answer). */
  rateCurves?: RateCurve[];
  /** Runs of drawn file sizes: throughput and latency per size bucket. */
  sizeBuckets?: ReportSizeBuckets;
  /** --mix runs: rates and latency per operation, and the combined rate. */
  mix?: ReportMix;
  /** `checkpoint` runs: per-rank writes and read-backs, bandwidth, the straggler share. */
  checkpoint?: CheckpointReport;
  /** `train`: accelerator utilisation per contender, the pass mark, and where prefetch levels off. */
  train?: ReportTrain;
  /**
   * The figures above as the tables every renderer draws (analysis/columns.ts). Left out of the JSON
   * output, which holds each figure once.
   */
  tables: ReportTables;
}

/** The Report's figures, before they are laid out as tables. */
export type ReportFigures = Omit<Report, 'tables'>;

export interface ReportTables {
  /** One row per contender, ranked. */
  ranked: Table;
  /** Per contender with size buckets, a row per bucket. */
  sizeBuckets: { contender: string; table: Table }[];
  /** Per contender that ran steady, its series' buckets. */
  steady: { contender: string; table: Table }[];
  /** --threshold's rows; absent when none was given. */
  thresholds?: Table;
}

/** Extremes across every contender; not finite (null in JSON) where there is no figure. */
export interface ReportRanges {
  /** The fastest run of any contender, MiB/s. */
  throughputMiBpsHigh: number;
  /** Over every contender's `totalPercentilesMs`: the lowest above 0, and the highest. */
  latencyMsLowestPositive: number;
  latencyMsHighest: number;
}
