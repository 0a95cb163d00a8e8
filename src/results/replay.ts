// A replay's results file: what the log held, what was created before the start, and per operation
// what was sent, skipped and answered, with encoded HDR histograms (µs) of latency from the intended
// start, from the actual send, and as the log recorded it. Versioned and checked field by field on read.
import { hostFacts } from './host.js';
import { decodeHistogram } from '../metrics/histograms.js';
import { REPLAY_FORMATS, REPLAY_OPS, type ReplayFormat, type ReplayOp } from '../plan/replay.js';

export const REPLAY_SCHEMA = 'blob-cacher/replay';
export const REPLAY_SCHEMA_VERSION = 1;

export interface ReplayOpResult {
  op: ReplayOp;
  /** Steps of this operation the replay was to send. */
  planned: number;
  sent: number;
  /** Due while --max-in-flight requests were out: counted, never sent late. */
  skipped: number;
  succeeded: number;
  failed: number;
  /** Bytes the answers carried and the writes sent. */
  bytes: number;
  /** The first failure's text (from a server: escaped where it is shown). */
  firstError?: string;
  histograms: { fromIntended: string; fromSend: string; recorded?: string };
}

export interface ReplayResults {
  schema: typeof REPLAY_SCHEMA;
  schemaVersion: number;
  createdAt: string;
  /** False when a stop or a failure cut it short: what was measured until then. */
  complete: boolean;
  config: Record<string, unknown>;
  environment: { node: string; os: string; arch: string; cpus: number; cpuModel: string; target: string };
  source: {
    format: ReplayFormat;
    lines: number;
    steps: number;
    /** The log's first step to its last, as recorded. */
    spanMs: number;
    /** Lines not sent, by the log's operation name (or the reason the target cannot send them). */
    unsupported: Record<string, number>;
  };
  speed: number;
  maxInFlight: number;
  /** Before the start: objects the log reads first, made (or found at their size) on the target. */
  created: { objects: number; bytes: number; existing: number };
  pace: {
    /** The start to the last answer's end. */
    wallMs: number;
    /** The start to the last intended start (the recorded span over --speed). */
    scheduledMs: number;
    /** Actual send minus intended start, every request sent. */
    lateness: string;
  };
  ops: ReplayOpResult[];
}

export function newReplayResults(
  config: Record<string, unknown>,
  target: string,
  fields: Pick<ReplayResults, 'source' | 'speed' | 'maxInFlight' | 'created' | 'pace' | 'ops' | 'complete'>,
): ReplayResults {
  return {
    schema: REPLAY_SCHEMA,
    schemaVersion: REPLAY_SCHEMA_VERSION,
    createdAt: new Date().toISOString(),
    config,
    environment: {
      ...hostFacts(),
      target,
    },
    ...fields,
  };
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown) => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
const isMs = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0;
const isText = (v: unknown) => typeof v === 'string';

function decodes(text: unknown): boolean {
  try {
    decodeHistogram(String(text));
    return true;
  } catch {
    return false;
  }
}

export const isReplayDoc = (doc: unknown): boolean => isObject(doc) && doc.schema === REPLAY_SCHEMA;

/** The first field that is not as a replay writes it, or undefined. */
function problemIn(doc: Record<string, unknown>): string | undefined {
  if (doc.schemaVersion !== REPLAY_SCHEMA_VERSION)
    return (
      `has replay schema version ${String(doc.schemaVersion)}; ` +
      `this blob-cacher reads ${REPLAY_SCHEMA_VERSION}`
    );
  const { source, created, pace, environment, config } = doc;
  if (!isText(doc.createdAt) || typeof doc.complete !== 'boolean') return 'has no createdAt or complete';
  if (!isObject(config) || !isObject(environment) || !isText(environment.target))
    return 'has no config or target';
  if (!isObject(source) || !(REPLAY_FORMATS as readonly unknown[]).includes(source.format))
    return 'has no source format';
  if (![source.lines, source.steps].every(isCount) || !isMs(source.spanMs)) return 'has a bad source count';
  if (!isObject(source.unsupported) || !Object.values(source.unsupported).every(isCount))
    return 'has a bad unsupported count';
  if (!isMs(doc.speed) || !isCount(doc.maxInFlight)) return 'has no speed or max in flight';
  if (!isObject(created) || ![created.objects, created.bytes, created.existing].every(isCount))
    return 'has a bad created count';
  if (!isObject(pace) || !isMs(pace.wallMs) || !isMs(pace.scheduledMs) || !isText(pace.lateness))
    return 'has no pace';
  if (!Array.isArray(doc.ops) || !doc.ops.every(isOpResult)) return 'has a bad per-operation entry';
  const histograms = [
    pace.lateness,
    ...doc.ops.flatMap((o) => Object.values((o as ReplayOpResult).histograms)),
  ];
  if (!histograms.every(decodes)) return 'has a histogram that does not decode';
  return undefined;
}

function isOpResult(v: unknown): boolean {
  if (!isObject(v) || !(REPLAY_OPS as readonly unknown[]).includes(v.op)) return false;
  const counts = [v.planned, v.sent, v.skipped, v.succeeded, v.failed, v.bytes];
  const h = v.histograms;
  return (
    counts.every(isCount) &&
    (v.firstError === undefined || isText(v.firstError)) &&
    isObject(h) &&
    isText(h.fromIntended) &&
    isText(h.fromSend) &&
    (h.recorded === undefined || isText(h.recorded))
  );
}

/** The doc as a replay's results, or the problem that stops it being read. */
export function parseReplayDoc(doc: unknown): { doc: ReplayResults } | { problem: string } {
  if (!isObject(doc) || !isReplayDoc(doc)) return { problem: 'is not a replay results file' };
  const problem = problemIn(doc);
  return problem ? { problem } : { doc: doc as unknown as ReplayResults };
}
