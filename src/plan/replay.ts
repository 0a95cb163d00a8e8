// A recorded workload as the replay sends it: each step an operation on one name at an offset from
// the log's first line. Vocabulary for every layer that handles a replay (config parses it, storage
// turns a step into a request, the engine schedules it, results and analysis count by operation).

/** Where hashed names live, and what a listing of them lists. */
export const HASHED_PREFIX = 'replay/';

/** The operations a replay sends, each as one request. */
export const REPLAY_OPS = ['get', 'put', 'head', 'delete', 'list', 'put-block', 'put-block-list'] as const;
export type ReplayOp = (typeof REPLAY_OPS)[number];

/** Operations that read a name: what the log reads before it writes is created before the start. */
export const READS_FIRST: ReadonlySet<ReplayOp> = new Set(['get', 'head', 'delete']);

export interface ReplayStep {
  /** From the log's first step, as recorded (the replay divides it by --speed). */
  offsetMs: number;
  op: ReplayOp;
  /** The blob name the replay uses (hashed, or the log's with --keep-names); '' for a listing. */
  name: string;
  /** Bytes a write sends; what a read got when it was recorded (0 when unknown). */
  sizeBytes: number;
  /** The log's own latency for this request (DurationMs), where it has one. */
  recordedMs?: number;
  /** The log's status code, where it has one: a recorded 404 is expected again. */
  recordedStatus?: number;
}

/** The input formats a replay reads. */
export const REPLAY_FORMATS = ['csv', 'storage-logs-csv', 'storage-logs-json'] as const;
export type ReplayFormat = (typeof REPLAY_FORMATS)[number];

export interface ReplayPlan {
  format: ReplayFormat;
  /** In recorded order (by offset). */
  steps: ReplayStep[];
  /** Last offset minus first: the recorded span. */
  spanMs: number;
  /** Lines of the log that are operations this tool does not send, by the log's operation name. */
  unsupported: Record<string, number>;
  /** Data lines read (the header not counted). */
  lines: number;
}

/** An object to create before the start: a name the log reads (or deletes) before it writes it. */
export interface ReplayObject {
  name: string;
  sizeBytes: number;
}

/**
 * What must exist before the first step: every name whose first step reads, HEADs or deletes it, at
 * the largest size a read of it got before any write. A first read the log recorded as 404 was of a
 * name that did not exist: it is not created, so that the replay meets the same 404.
 */
export function objectsReadFirst(steps: readonly ReplayStep[]): ReplayObject[] {
  const first = new Map<string, ReplayObject | null>();
  // A name written or deleted: its later reads say nothing of what existed before the log began.
  const settled = new Set<string>();
  for (const s of steps) {
    if (s.op === 'list' || settled.has(s.name)) continue;
    if (!READS_FIRST.has(s.op)) {
      if (!first.has(s.name)) first.set(s.name, null);
      settled.add(s.name);
      continue;
    }
    const known = first.get(s.name);
    if (known === undefined)
      first.set(s.name, s.recordedStatus === 404 ? null : { name: s.name, sizeBytes: s.sizeBytes });
    else if (known && s.op === 'get') known.sizeBytes = Math.max(known.sizeBytes, s.sizeBytes);
    if (s.op === 'delete') settled.add(s.name);
  }
  return [...first.values()].filter((o): o is ReplayObject => o !== null);
}

/**
 * Each Put Block's id, and each Put Block List's ids: the blocks the log staged for that name since
 * its last commit, in order. Ids are one length per name, as the service requires.
 */
export function blockIdsOf(steps: readonly ReplayStep[]): Map<number, string | string[]> {
  const out = new Map<number, string | string[]>();
  const staged = new Map<string, string[]>();
  let counter = 0;
  steps.forEach((s, i) => {
    if (s.op === 'put-block') {
      const id = Buffer.from(`replay-block-${String(counter++).padStart(10, '0')}`).toString('base64');
      out.set(i, id);
      staged.set(s.name, [...(staged.get(s.name) ?? []), id]);
    } else if (s.op === 'put-block-list') {
      out.set(i, staged.get(s.name) ?? []);
      staged.delete(s.name);
    }
  });
  return out;
}
