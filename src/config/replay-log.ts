// A recorded workload's text as the steps a replay sends: our own CSV (offset, operation, name,
// size), or Azure's StorageBlobLogs export as CSV or JSON lines, told apart by the first line. Pure:
// the CLI reads the file (bounded) and hands the text in; bad input is one line naming the line.
import { csvRows, type CsvRow } from './csv-rows.js';
import { ConfigError, quotedValue } from '../vocabulary/errors.js';
import { parseSizeBytes } from '../vocabulary/sizes.js';
import { replayName } from './replay-names.js';
import {
  HASHED_PREFIX,
  type ReplayFormat,
  type ReplayOp,
  type ReplayPlan,
  type ReplayStep,
} from '../plan/replay.js';

/** The largest log read whole: a StorageBlobLogs line is about 1-2 KiB, so ~200,000 lines. */
export const MAX_REPLAY_BYTES = 256 * 1024 * 1024;
/** Lines past this are refused before any is parsed. */
export const MAX_REPLAY_LINES = 1_000_000;
/** A request's body is a slice of one buffer of the largest size: no step moves more than this. */
export const MAX_REPLAY_OBJECT_BYTES = 256 * 1024 * 1024;
/** Distinct unsupported operation names counted by name; the rest are counted as one. */
const MAX_UNSUPPORTED_NAMES = 20;

/** Azure's operation names (StorageBlobLogs OperationName) and ours, lower-cased. */
const OPS: ReadonlyMap<string, ReplayOp> = new Map([
  ['getblob', 'get'],
  ['putblob', 'put'],
  ['getblobproperties', 'head'],
  ['deleteblob', 'delete'],
  ['listblobs', 'list'],
  ['putblock', 'put-block'],
  ['putblocklist', 'put-block-list'],
  ['get', 'get'],
  ['put', 'put'],
  ['head', 'head'],
  ['delete', 'delete'],
  ['list', 'list'],
  ['put-block', 'put-block'],
  ['put-block-list', 'put-block-list'],
]);
const WRITES: ReadonlySet<ReplayOp> = new Set(['put', 'put-block']);

/** One line of any format, before its name and operation are turned into a step. */
interface LogLine {
  line: number;
  timeMs: number;
  operation: string;
  /** The blob name in the log's namespace (an ObjectKey's part below its container); '' for none. */
  name: string;
  sizeBytes: number;
  latencyMs?: number;
  status?: number;
}

/** A field by name: the line's text for it, or undefined where the line has none. */
type Field = (name: string) => string | undefined;

export interface ReplayLogOptions {
  keepNames: boolean;
  /** The file, as the messages name it. */
  path: string;
}

export function parseReplayLog(text: string, opts: ReplayLogOptions): ReplayPlan {
  let lines = 0;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) lines++;
  if (lines > MAX_REPLAY_LINES)
    throw new ConfigError(
      `${opts.path} has ${lines} lines, more than the ${MAX_REPLAY_LINES} a replay reads; ` +
        'replay a part of it (split the file by time)',
    );
  const { format, lines: read } = readLines(text, opts.path);
  return planOf(format, read, opts);
}

function readLines(text: string, path: string): { format: ReplayFormat; lines: Generator<LogLine> } {
  const body = text.replace(/^\uFEFF/, '');
  if (body.trimStart().startsWith('{')) return { format: 'storage-logs-json', lines: jsonLines(body, path) };
  const rows = csvRows(body);
  const first = rows.next();
  const header = first.done ? [] : first.value.cells.map(headerName);
  if (header.includes('operationname'))
    return { format: 'storage-logs-csv', lines: csvLines(rows, header, storageLogLine(path)) };
  if (header.includes('operation'))
    return { format: 'csv', lines: csvLines(rows, header, ownLine(header, path)) };
  throw new ConfigError(
    `${path} is not a log a replay reads; give a CSV with the header offset_s,operation,name,size_bytes, ` +
      "or Azure's StorageBlobLogs exported as CSV or JSON lines (docs/replay.md)",
  );
}

/** A header cell as matched: lower case, without a Log Analytics export's ` [UTC]` and quotes. */
const headerName = (cell: string) =>
  cell
    .trim()
    .replace(/\s*\[utc\]$/i, '')
    .toLowerCase();

function* csvLines(
  rows: Generator<CsvRow>,
  header: readonly string[],
  lineOf: (field: Field, line: number) => LogLine,
): Generator<LogLine> {
  const at = new Map(header.map((h, i) => [h, i] as const));
  for (const row of rows) {
    const field: Field = (name) => {
      const i = at.get(name);
      return i === undefined ? undefined : row.cells[i]?.trim();
    };
    yield lineOf(field, row.line);
  }
}

function* jsonLines(text: string, path: string): Generator<LogLine> {
  const lineOf = storageLogLine(path);
  let n = 0;
  for (const raw of text.split('\n')) {
    n++;
    if (raw.trim() === '') continue;
    let doc: unknown;
    try {
      doc = JSON.parse(raw);
    } catch {
      throw new ConfigError(`${path} line ${n} is not JSON; a JSON-lines export holds one object a line`);
    }
    if (typeof doc !== 'object' || doc === null || Array.isArray(doc))
      throw new ConfigError(`${path} line ${n} is not a JSON object; a JSON-lines export holds one a line`);
    yield lineOf(jsonField(doc as Record<string, unknown>), n);
  }
}

/**
 * A JSON line's fields by case-insensitive name, at its top or in `properties`: Log Analytics'
 * export (TimeGenerated, ObjectKey) and diagnostic settings' archive (time, properties.objectKey).
 */
function jsonField(doc: Record<string, unknown>): Field {
  const flat = new Map<string, unknown>();
  const props = doc.properties;
  if (typeof props === 'object' && props !== null)
    for (const [k, v] of Object.entries(props)) flat.set(k.toLowerCase(), v);
  for (const [k, v] of Object.entries(doc)) flat.set(k.toLowerCase(), v);
  if (!flat.has('timegenerated') && flat.has('time')) flat.set('timegenerated', flat.get('time'));
  return (name) => {
    const v = flat.get(name);
    return typeof v === 'string' || typeof v === 'number' ? String(v).trim() : undefined;
  };
}

/** A StorageBlobLogs line, in either export. */
function storageLogLine(path: string): (field: Field, line: number) => LogLine {
  return (field, line) => {
    const where = `${path} line ${line}`;
    const operation = field('operationname') ?? '';
    const op = OPS.get(operation.toLowerCase());
    const sizeField = op && WRITES.has(op) ? 'requestbodysize' : 'responsebodysize';
    return {
      line,
      timeMs: timeOf(field('timegenerated'), where),
      operation,
      name: blobOfKey(field('objectkey') ?? ''),
      sizeBytes: count(field(sizeField), sizeField, where),
      ...optional('latencyMs', field('durationms'), 'DurationMs', where),
      ...optional('status', field('statuscode'), 'StatusCode', where),
    };
  };
}

/** Our CSV: offset_s or offset_ms, operation, name, size_bytes or size; latency_ms and status if given. */
function ownLine(header: readonly string[], path: string): (field: Field, line: number) => LogLine {
  const offset = header.includes('offset_ms') ? 'offset_ms' : header.includes('offset_s') ? 'offset_s' : '';
  const size = header.includes('size_bytes') ? 'size_bytes' : header.includes('size') ? 'size' : '';
  const missing = [offset || 'offset_s (or offset_ms)', 'name', size || 'size_bytes'].filter(
    (h) => !header.includes(h),
  );
  if (missing.length)
    throw new ConfigError(
      `${path}'s header has no ${missing.join(', ')}; a replay CSV starts offset_s,operation,name,size_bytes`,
    );
  return (field, line) => {
    const where = `${path} line ${line}`;
    const at = Number(field(offset));
    if (field(offset) === '' || !Number.isFinite(at) || at < 0)
      throw new ConfigError(`${where}: ${offset} ${quotedValue(field(offset) ?? '')} is not a time offset`);
    const bytes = parseSizeBytes(field(size) ?? '');
    if (bytes === undefined)
      throw new ConfigError(`${where}: ${size} ${quotedValue(field(size) ?? '')} is not a size such as 4096`);
    return {
      line,
      timeMs: offset === 'offset_ms' ? at : at * 1000,
      operation: field('operation') ?? '',
      name: field('name') ?? '',
      sizeBytes: bytes,
      ...optional('latencyMs', field('latency_ms'), 'latency_ms', where),
      ...optional('status', field('status'), 'status', where),
    };
  };
}

/** `/account/container/dir/blob` -> `dir/blob`; a container-level key has none (''). */
const blobOfKey = (key: string) => key.split('/').slice(3).join('/');

function count(text: string | undefined, what: string, where: string): number {
  if (text === undefined || text === '') return 0;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 0)
    throw new ConfigError(`${where}: ${what} ${quotedValue(text)} is not a whole number of bytes`);
  return n;
}

function optional<K extends string>(key: K, text: string | undefined, what: string, where: string) {
  if (text === undefined || text === '') return {};
  const n = Number(text);
  if (!Number.isFinite(n) || n < 0)
    throw new ConfigError(`${where}: ${what} ${quotedValue(text)} is not a number`);
  return { [key]: n } as { [k in K]?: number };
}

const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2}):(\d{2})(\.\d+)?\s*(Z|[+-]\d{2}:?\d{2})?$/i;
/** The Azure portal's CSV export: `5/1/2024, 12:00:00.123 PM` (UTC). */
const PORTAL_TIME = /^(\d{1,2})\/(\d{1,2})\/(\d{4}),?\s+(\d{1,2}):(\d{2}):(\d{2})(\.\d+)?\s*([AP]M)?$/i;

/** A log time in ms since the epoch, sub-millisecond digits kept (Date.parse drops them). */
export function timeOf(text: string | undefined, where: string): number {
  const t = text ?? '';
  const iso = ISO_TIME.exec(t);
  const portal = iso ? undefined : PORTAL_TIME.exec(t);
  const fail = () =>
    new ConfigError(
      `${where}: TimeGenerated ${quotedValue(t)} is not a time such as 2024-05-01T12:00:00.123Z`,
    );
  if (!iso && !portal) throw fail();
  let ms: number;
  let fraction: string | undefined;
  if (iso) {
    const [, y, mo, d, h, mi, s, frac, zone] = iso;
    const offset = !zone || zone.toUpperCase() === 'Z' ? 'Z' : zone.replace(/^([+-]\d{2})(\d{2})$/, '$1:$2');
    ms = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}${offset}`);
    fraction = frac;
  } else {
    const [, mo, d, y, h, mi, s, frac, half] = portal!;
    const hour = (Number(h) % (half ? 12 : 24)) + (half?.toUpperCase() === 'PM' ? 12 : 0);
    ms = Date.UTC(Number(y), Number(mo) - 1, Number(d), hour, Number(mi), Number(s));
    fraction = frac;
  }
  if (!Number.isFinite(ms)) throw fail();
  return ms + (fraction ? Number(fraction) * 1000 : 0);
}

/** The lines as steps in recorded order, offsets from the first; what cannot be sent, counted. */
function planOf(format: ReplayFormat, lines: Iterable<LogLine>, opts: ReplayLogOptions): ReplayPlan {
  const steps: (ReplayStep & { timeMs: number })[] = [];
  const unsupported: Record<string, number> = {};
  let read = 0;
  for (const l of lines) {
    read++;
    const op = OPS.get(l.operation.toLowerCase());
    const needsName = op !== undefined && op !== 'list';
    if (!op || (needsName && l.name === '')) {
      const label = op ? `${l.operation} without a blob name` : l.operation || '(no operation)';
      const known = label in unsupported || Object.keys(unsupported).length < MAX_UNSUPPORTED_NAMES;
      const key = known ? label : 'other operations';
      unsupported[key] = (unsupported[key] ?? 0) + 1;
      continue;
    }
    steps.push(stepOf(l, op, format, opts));
  }
  if (!steps.length)
    throw new ConfigError(
      `${opts.path} has no operation a replay sends (${read} lines read); ` +
        'give a log of GetBlob, PutBlob, GetBlobProperties, DeleteBlob, ListBlobs, PutBlock or PutBlockList',
    );
  steps.sort((a, b) => a.timeMs - b.timeMs);
  const t0 = steps[0]!.timeMs;
  const out = steps.map(({ timeMs, ...s }) => ({ ...s, offsetMs: timeMs - t0 }));
  return { format, steps: out, spanMs: out.at(-1)!.offsetMs, unsupported, lines: read };
}

function stepOf(
  l: LogLine,
  op: ReplayOp,
  format: ReplayFormat,
  opts: ReplayLogOptions,
): ReplayStep & { timeMs: number } {
  const where = `${opts.path} line ${l.line}`;
  if (l.sizeBytes > MAX_REPLAY_OBJECT_BYTES)
    throw new ConfigError(
      `${where}: ${l.sizeBytes} bytes is more than the ${MAX_REPLAY_OBJECT_BYTES} bytes (256 MiB) ` +
        'a replayed request moves; replay a log without it',
    );
  let name: string;
  if (op === 'list') name = opts.keepNames && format === 'csv' ? l.name : opts.keepNames ? '' : HASHED_PREFIX;
  else {
    const kept = replayName(l.name, opts.keepNames, where);
    if (typeof kept !== 'string') throw new ConfigError(kept.problem);
    name = kept;
  }
  return {
    timeMs: l.timeMs,
    offsetMs: 0,
    op,
    name,
    sizeBytes: l.sizeBytes,
    ...(l.latencyMs === undefined ? {} : { recordedMs: l.latencyMs }),
    ...(l.status === undefined ? {} : { recordedStatus: l.status }),
  };
}
