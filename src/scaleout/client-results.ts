// What one client of a scale-out run leaves at runs/<RUN_ID>/results/<i>.json: its results file,
// and what it takes to put its times on the service's clock (its offset) beside the others'.
import type { ResultsFile } from '../results/schema.js';
import { parseResultsDoc } from '../results/validate.js';

export const CLIENT_RESULTS_SCHEMA = 'blob-cacher/scaleout-client';
export const CLIENT_RESULTS_VERSION = 1;
/** The most clients a run may have: --parallelism's own bound. */
export const MAX_CLIENTS = 10_000;

export interface ClientClock {
  /** Service time minus this client's clock, as estimated from the Date header. */
  offsetMs: number;
  uncertaintyMs: number;
  samples: number;
  /**
   * Service time minus the clock of the records' startEpochMs (differs from offsetMs only under a test skew).
   */
  recordsOffsetMs: number;
}

export interface ClientResults {
  schema: typeof CLIENT_RESULTS_SCHEMA;
  schemaVersion: number;
  runId: string;
  index: number;
  parallelism: number;
  host: string;
  clock?: ClientClock;
  /** The start the barrier gave, on the service's clock. */
  startStorageMs?: number;
  /** Set when the client failed: what went wrong, and its exit code. */
  failure?: string;
  exitCode?: number;
  results?: ResultsFile;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);

/** The document as ClientResults, or one line saying what is wrong with it. */
export function parseClientResults(text: string): { doc: ClientResults } | { problem: string } {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return { problem: 'is not valid JSON (corrupt or truncated)' };
  }
  if (!isObject(doc) || doc.schema !== CLIENT_RESULTS_SCHEMA)
    return { problem: 'is not a blob-cacher scale-out client results file' };
  if (doc.schemaVersion !== CLIENT_RESULTS_VERSION)
    return {
      problem:
        `has schema version ${String(doc.schemaVersion)}, ` +
        `this blob-cacher reads version ${CLIENT_RESULTS_VERSION}`,
    };
  const { runId, index, parallelism, host, clock, startStorageMs, failure, exitCode, results } = doc;
  if (typeof runId !== 'string' || !isNumber(index) || !isNumber(parallelism) || typeof host !== 'string')
    return { problem: 'is missing its header fields' };
  // collect sizes its merge by these: 1e9 clients would be gigabytes of slots, -3 an empty run.
  if (!Number.isInteger(parallelism) || parallelism < 1 || parallelism > MAX_CLIENTS)
    return { problem: `has parallelism ${parallelism}, not a whole number from 1 to ${MAX_CLIENTS}` };
  if (!Number.isInteger(index) || index < 0 || index >= parallelism)
    return { problem: `has index ${index}, not a whole number from 0 to ${parallelism - 1}` };
  if (
    clock !== undefined &&
    !(
      isObject(clock) &&
      ['offsetMs', 'uncertaintyMs', 'samples', 'recordsOffsetMs'].every((f) => isNumber(clock[f]))
    )
  )
    return { problem: 'has a bad clock' };
  if (startStorageMs !== undefined && !isNumber(startStorageMs))
    return { problem: 'has a bad startStorageMs' };
  if (failure !== undefined && typeof failure !== 'string') return { problem: 'has a bad failure' };
  if (exitCode !== undefined && !isNumber(exitCode)) return { problem: 'has a bad exitCode' };
  let parsed: ResultsFile | undefined;
  if (results !== undefined) {
    const r = parseResultsDoc(results);
    if ('problem' in r) return { problem: `holds a results file that ${r.problem}` };
    parsed = r.doc;
  }
  return {
    doc: {
      schema: CLIENT_RESULTS_SCHEMA,
      schemaVersion: CLIENT_RESULTS_VERSION,
      runId,
      index,
      parallelism,
      host,
      ...(clock ? { clock: clock as unknown as ClientClock } : {}),
      ...(startStorageMs !== undefined ? { startStorageMs } : {}),
      ...(failure !== undefined ? { failure } : {}),
      ...(exitCode !== undefined ? { exitCode } : {}),
      ...(parsed ? { results: parsed } : {}),
    },
  };
}
