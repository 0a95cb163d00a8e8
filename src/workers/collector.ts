// Collection: each worker's records go into the run's table as they arrive (and its message is
// dropped), and once all are in, one MergedRun: histograms added, the ranked span, a steady run's
// intervals, a many-file run's totals and tallies, the step after the workers as one more request.
import { HistogramSum } from '../metrics/histograms.js';
import { addObjectTotals, emptyObjectTotals, type ObjectTotals } from '../metrics/objects.js';
import { addTallies, type Tally } from '../metrics/record-checks.js';
import { RecordTable } from '../metrics/record-table.js';
import { addTotals, countInto, type SteadyTotals } from '../metrics/totals.js';
import type { OpenLoopRecord } from '../results/schema.js';
import { mergeOpenLoop } from './open-loop.js';
import type { OpenLoopJob, OpRecord, SteadyJob, TrainJob, WorkerResult } from './protocol.js';
import { mergeSteady, type MergedSteady } from './steady.js';
import { mergeTrain, type MergedTrain } from './train.js';

/** What a worker sent about itself, its records taken out (they are the run's, merged). */
export type WorkerSummary = Omit<WorkerResult, 'records'> & { requests: number };

export interface MergedRun {
  workers: WorkerSummary[];
  records: RecordTable;
  histograms: HistogramSum;
  /** From the first request's start to the last response's end (or the step after them), across processes. */
  wallMs: number;
  /** Workers that failed or died, with the reason; their items are missing from `records`. */
  failures: string[];
  /** Requests that failed or never went because of a stop, over every worker: the run was cut short. */
  stopped: number;
  /** After a stop: the items that may have reached the server (the rest never left). */
  maybeSent?: ReadonlySet<number>;
  /** A steady run (--duration): every request counted by interval; `records` hold each item's last. */
  steady?: MergedSteady;
  /** When --autoterm ended a steady run, in ms since the release. */
  autotermAtMs?: number;
  /** --rate: every worker's open loop, added. */
  openLoop?: OpenLoopRecord;
  /** `train`: every accelerator's epochs, added; `records` hold each sample's last read. */
  train?: MergedTrain;
  /**
   * Many files (the job asked for a summary): every request's totals and the checks of every item,
   * made by the workers over their shares; `records` are then a sample, with every failure.
   */
  summary?: { totals: SteadyTotals; tally: Tally };
  /**
   * Many files: the workers' item completions, added (an object workload's is made from `records` by
   * measure).
   */
  objects?: ObjectTotals;
}

/** What the run knows besides the workers' results. */
export interface MergeInput {
  releaseEpochMs: number;
  steady?: SteadyJob;
  openLoop?: OpenLoopJob;
  train?: TrainJob;
  failures: string[];
  /** The step after the workers (an upload's commit), when it ran. */
  afterRecord?: OpRecord;
  maybeSent?: ReadonlySet<number>;
  autotermAtMs?: number;
}

export class Collector {
  private collected?: RecordTable;
  private readonly summaries: WorkerSummary[] = [];
  private readonly items: number;
  private readonly histograms = new HistogramSum();

  constructor(items: number) {
    this.items = items;
  }

  /**
   * One worker's result, as it arrives: one row per item, or more where a listing's pages are rows of their
   * own.
   */
  add(worker: number, result: WorkerResult): void {
    const { records: encoded, ...summary } = result;
    const table = RecordTable.decode(encoded);
    // A small job's worker sent its records alone (workers/result.ts): they are every request it made.
    if (summary.histograms) this.histograms.addEncoded(summary.histograms);
    else table.recordInto(this.histograms);
    this.collected = (this.collected ?? new RecordTable(this.items)).append(table);
    // The summary keeps no second copy of the records.
    this.summaries[worker] = { ...summary, requests: summary.summary?.requests ?? encoded.length };
  }

  merge(input: MergeInput): MergedRun {
    const results = this.summaries.filter((s) => s !== undefined);
    const { histograms } = this;
    const records = (this.collected ?? new RecordTable()).sortByOffset();
    const steady = input.steady
      ? mergeSteady(results, input.releaseEpochMs, input.steady.intervalMs)
      : undefined;
    const trains = results.flatMap((w) => (w.train ? [w.train] : []));
    const train = input.train && trains.length ? mergeTrain(input.train, trains) : undefined;
    // A training run's span is its accelerators': the last batch's compute ends after the last read.
    let { start, end } = train
      ? { start: train.startEpochMs, end: train.endEpochMs }
      : spanOf(records, results, input.releaseEpochMs, steady);
    const summary =
      !steady && results.length && results.every((w) => w.summary)
        ? {
            totals: addTotals(results.map((w) => w.summary!.totals)),
            tally: addTallies(results.map((w) => w.summary!.tally)),
          }
        : undefined;
    const after = input.afterRecord;
    if (after) {
      // A step after the workers (an upload's commit) is one more request of the run, steady or not.
      if (steady) countInto(steady.totals, after);
      if (summary) countInto(summary.totals, after);
      records.push(after);
      if (!after.error) histograms.record(after.phases, after.totalMs);
      end = Math.max(end, after.startEpochMs + after.totalMs);
    }
    const loops = results.flatMap((w) => (w.openLoop ? [w.openLoop] : []));
    const openLoop = input.openLoop ? mergeOpenLoop(input.openLoop, loops) : undefined;
    const perItem = results.filter((w) => w.objects);
    const objects = perItem.length
      ? perItem.map((w) => w.objects!).reduce(addObjectTotals, emptyObjectTotals())
      : undefined;
    return {
      ...(objects ? { objects } : {}),
      workers: results,
      records,
      histograms,
      wallMs: end > start ? end - start : 0,
      failures: input.failures,
      stopped: results.reduce((a, w) => a + (w.stopped ?? 0), 0),
      maybeSent: input.maybeSent,
      ...(summary ? { summary } : {}),
      ...(steady ? { steady } : {}),
      ...(openLoop ? { openLoop } : {}),
      ...(train ? { train } : {}),
      ...(input.autotermAtMs === undefined ? {} : { autotermAtMs: input.autotermAtMs }),
    };
  }
}

/**
 * The ranked span, the same for every contender: its first request's start (when it was issued, so
 * queueing for a socket counts) to its last response's end; a worker's own setup and wind-down are
 * outside it.
 */
function spanOf(
  records: RecordTable,
  results: readonly WorkerSummary[],
  releaseEpochMs: number,
  steady?: MergedSteady,
): { start: number; end: number } {
  let start = Infinity;
  let end = -Infinity;
  if (steady) {
    // Records keep each item's last request only: the span comes from every request the workers counted.
    for (const w of steady.workers) {
      start = Math.min(start, releaseEpochMs + w.firstStartMs);
      end = Math.max(end, releaseEpochMs + w.lastEndMs);
    }
    return { start, end };
  }
  ({ startEpochMs: start, endEpochMs: end } = records.span());
  // A sample of the records may not hold the first and last: the workers said when they were.
  for (const w of results) {
    if (!w.summary) continue;
    start = Math.min(start, w.summary.firstStartEpochMs);
    end = Math.max(end, w.summary.lastEndEpochMs);
  }
  return { start, end };
}
