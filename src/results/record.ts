// One run as the engine holds it (MeasuredRun) and as a results file keeps it (RunRecord): the
// in-memory form keeps every raw request; the stored form keeps rows, sampled evenly past
// MAX_RECORDS_PER_RUN. The engine builds a MeasuredRun (engine/measure.ts); nothing here derives.
import { COORDINATOR, type OpRecord } from '../metrics/records.js';
import { RecordTable } from '../metrics/record-table.js';
import { PHASES } from '../transport/phases.js';
import {
  MAX_RECORDS_PER_RUN,
  type Cell,
  type RecordRow,
  type RunParams,
  type RunRecord,
  type Unit,
} from './schema.js';

/**
 * A run as the engine holds it: the record with every raw request as an object, until the run has
 * been reported; then at most what a results file keeps (`recordsSampled` says so), so that a
 * session's memory does not grow with its runs.
 */
export interface MeasuredRun extends Omit<RunRecord, 'records' | 'recordsSampled'> {
  records: RecordTable;
  recordsSampled?: boolean;
}

export interface RunIdentity {
  strategy: string;
  unit?: Unit;
  description: string;
  cell?: Cell;
  params?: RunParams;
  run: number;
  warmup: boolean;
  objectSizeBytes: number;
}

export interface Verification {
  /** True only when every byte was compared with something the target vouched for. */
  verified: boolean;
  verification: string;
  /**
   * Set when nothing failed but nothing could be compared either: why (the run is "not verified", not
   * failed).
   */
  notVerified?: string;
  error?: string;
}

/** A run whose bytes passed every check made, none of them against content the target vouched for. */
export function notVerified(why: string, md5?: string): Verification {
  return {
    verified: false,
    notVerified: why,
    verification: `not verified (${why})${md5 ? `; md5 of what came ${md5}` : ''}`,
  };
}

/** A run that could not be measured at all (its workers never started): it still counts, as failed. */
export function failedRun(id: RunIdentity, error: string): MeasuredRun {
  return {
    ...id,
    wallMs: 0,
    bytes: 0,
    requests: 0,
    failedRequests: 0,
    reusedSockets: 0,
    retries: 0,
    throttled: 0,
    backoffMs: 0,
    phaseSumsMs: {},
    requestSumMs: 0,
    histograms: {},
    verified: false,
    verification: 'not run',
    error,
    workers: [],
    records: new RecordTable(),
  };
}

const ms3 = (v: number) => Math.round(v * 1000) / 1000;

/** A worker or item index, or null for the coordinator's own request (which has neither). */
const indexCell = (v: number) => (v === COORDINATOR ? null : v);

function toRow(r: OpRecord): RecordRow {
  return [
    indexCell(r.worker),
    indexCell(r.item),
    r.offsetBytes,
    r.bytes,
    r.status,
    ms3(r.startEpochMs),
    ms3(r.totalMs),
    ...PHASES.map((p) => (r.phases[p] === undefined ? null : ms3(r.phases[p]))),
    r.reused,
    r.retries,
    r.throttled,
    Math.round(r.backoffMs),
    r.error ?? null,
    r.hedge?.won ?? null,
  ];
}

/** Evenly spaced rows when there are more records than a results file keeps. */
function sample(records: RecordTable, max: number): { kept: RecordTable; sampled: boolean } {
  if (records.length <= max) return { kept: records, sampled: false };
  return { kept: records.pick(records.sampledRows(max)), sampled: true };
}

/** The run with at most the records a results file keeps. */
export function withSampledRecords(m: MeasuredRun): MeasuredRun {
  const { kept, sampled } = sample(m.records, MAX_RECORDS_PER_RUN);
  return sampled ? { ...m, records: kept, recordsSampled: true } : m;
}

export function toRunRecord(m: MeasuredRun): RunRecord {
  const { records, recordsSampled, ...rest } = m;
  const { kept, sampled } = sample(records, MAX_RECORDS_PER_RUN);
  return { ...rest, records: kept.map(toRow), recordsSampled: sampled || recordsSampled === true };
}
