// A job's result as the coordinator gets it: records as columns, encoded histograms, what the worker
// measured of itself; with many files, the worker's own checks and totals and a sample of the records.
import type { KeptBuffers } from '../kept/buffers.js';
import { PhaseHistograms } from '../metrics/histograms.js';
import { perItemObjects, splitObject } from '../metrics/objects.js';
import { tallyRecords } from '../metrics/record-checks.js';
import type { RecordTable } from '../metrics/record-table.js';
import { countInto, emptyTotals } from '../metrics/totals.js';
import type { Items } from '../plan/items.js';
import type {
  OpenLoopWorkerResult,
  SteadyWorkerResult,
  WorkerJob,
  WorkerResult,
  WorkerSummaryOfRecords,
} from './protocol.js';
import type { SteadyMeter } from './steady.js';
import type { TrainMeter } from './train.js';

export interface JobMeasures {
  startEpochMs: number;
  endEpochMs: number;
  cpu: NodeJS.CpuUsage;
  eventLoopDelayP99Ms: number;
  verifyMs: number;
  stopped: number;
  warmSockets?: number;
  /** Items the kind's check found byte for byte equal to the fixture (they carry no MD5). */
  equalToFixture?: number[];
  steady?: { meter: SteadyMeter; result: SteadyWorkerResult };
  openLoop?: OpenLoopWorkerResult;
  /** A training run's meter: every epoch's reads, which the records (each sample's last) are not. */
  train?: TrainMeter;
}

/**
 * A job of at most this many records sends them without histograms: the coordinator makes those from
 * the records it gets anyway. Such a worker never loads the histogram code (a visible share of a
 * process's start, most of it node:zlib) before its first job, which is where a cold start waits
 * for it; past this, each worker makes its own, in parallel, and the coordinator only adds them.
 */
export const RECORDS_ALONE_MAX = 64;

/**
 * A job whose every request the coordinator gets as a record, and few of them (no sample, no steady meter, no
 * per-item objects).
 */
export function sendsRecordsAlone(job: WorkerJob, records: number): boolean {
  return (
    !job.steady &&
    !job.train &&
    !job.summary &&
    job.completions !== 'per-item' &&
    records <= RECORDS_ALONE_MAX
  );
}

/**
 * `kept`: the worker process's state, whose run histograms a run's records go into (emptied and
 * filled again each run, encoded before this returns); without, a new set.
 */
export function packResult(
  job: WorkerJob,
  items: Items,
  records: RecordTable,
  m: JobMeasures,
  kept?: KeptBuffers,
): WorkerResult {
  // Few records, all sent: the coordinator makes their histograms, and a split object's completion
  // from them as it does for an object split among workers.
  if (sendsRecordsAlone(job, records.length)) return { ...measuresOf(job, m), records: records.encode() };
  // A steady run's meter has every request; otherwise the records are every request.
  const metered = m.steady?.meter ?? m.train;
  const histograms = metered?.histograms ?? kept?.emptyHistograms() ?? new PhaseHistograms();
  if (!metered) records.recordInto(histograms);
  // Every record is still here: each item's completion, before any sampling. The whole of a split
  // object here: its completion made where the histograms already are, which saves the coordinator
  // a histogram and its first deflate on the way from the last answer to the report.
  const objects = metered
    ? undefined
    : job.completions === 'per-item'
      ? perItemObjects(records, histograms)
      : job.completions === 'whole-object'
        ? splitObject(records, histograms)
        : undefined;
  // Many files: what the coordinator needs of all the records is made here, and it gets a sample.
  let summary: WorkerSummaryOfRecords | undefined;
  let sent = records;
  if (job.summary && !m.steady) {
    const totals = emptyTotals();
    for (const r of records) countInto(totals, r);
    const span = records.span();
    const tally = tallyRecords(job.summary.check, items, records);
    summary = {
      requests: records.length,
      totals,
      firstStartEpochMs: span.startEpochMs,
      lastEndEpochMs: span.endEpochMs,
      tally,
    };
    sent = records.pick(records.sampledRows(job.summary.keepRecords, true));
  }
  return {
    ...measuresOf(job, m),
    records: sent.encode(),
    ...(summary ? { summary } : {}),
    histograms: histograms.encode(),
    ...(objects ? { objects } : {}),
  };
}

/** What the worker measured of itself and the run, whatever it sends of its requests. */
function measuresOf(job: WorkerJob, m: JobMeasures): Omit<WorkerResult, 'records'> {
  return {
    workerIndex: job.workerIndex,
    startEpochMs: m.startEpochMs,
    endEpochMs: m.endEpochMs,
    cpuUserMs: m.cpu.user / 1000,
    cpuSystemMs: m.cpu.system / 1000,
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
    eventLoopDelayP99Ms: m.eventLoopDelayP99Ms,
    stopped: m.stopped,
    ...(m.warmSockets === undefined ? {} : { warmSockets: m.warmSockets }),
    ...(m.equalToFixture?.length ? { equalToFixture: m.equalToFixture } : {}),
    ...(m.verifyMs >= 0.5 ? { verifyMs: m.verifyMs } : {}),
    ...(m.steady ? { steady: m.steady.result } : {}),
    ...(m.openLoop ? { openLoop: m.openLoop } : {}),
    ...(m.train ? { train: m.train.result() } : {}),
  };
}
