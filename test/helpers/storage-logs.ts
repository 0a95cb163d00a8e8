// A StorageBlobLogs sample as a Log Analytics export writes it: a realistic field set (not a copy
// of a real log), drawn from a seeded generator over a set of names that exist when the log starts,
// with the statuses a blob service gives (404 for a name deleted and not written since). Steps on
// one name are kept apart in time, so that a replay's answers come in the recorded order.

export interface SampleOptions {
  lines: number;
  names: number;
  spanMs: number;
  seed?: number;
  /** Extra lines of operations a replay does not send, e.g. SetBlobMetadata. */
  unsupported?: { operation: string; count: number }[];
}

export interface Sample {
  csv: string;
  jsonLines: string;
  /** Lines by OperationName. */
  counts: Record<string, number>;
  spanMs: number;
}

const FIELDS = [
  'TimeGenerated',
  'AccountName',
  'Location',
  'Protocol',
  'OperationName',
  'AuthenticationType',
  'StatusCode',
  'StatusText',
  'DurationMs',
  'ServerLatencyMs',
  'Uri',
  'CallerIpAddress',
  'CorrelationId',
  'UserAgentHeader',
  'ObjectKey',
  'RequestBodySize',
  'ResponseBodySize',
  'Category',
] as const;

/** mulberry32: the same sample for the same seed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Kept this far apart, in recorded time, per name. */
const SAME_NAME_GAP_MS = 800;
const START = Date.parse('2026-05-04T09:00:00Z');
const OPS = [
  ['GetBlob', 0.55],
  ['PutBlob', 0.2],
  ['GetBlobProperties', 0.15],
  ['DeleteBlob', 0.1],
] as const;

function pick(r: () => number): string {
  let x = r();
  for (const [op, share] of OPS) if ((x -= share) < 0) return op;
  return OPS[0][0];
}

const csvCell = (v: string | number) =>
  /[",\n]/.test(String(v)) ? `"${String(v).replace(/"/g, '""')}"` : String(v);

export function storageLogSample(o: SampleOptions): Sample {
  const r = random(o.seed ?? 7);
  const size = new Map<string, number | undefined>();
  const lastAt = new Map<string, number>();
  for (let i = 0; i < o.names; i++)
    size.set(`data/part-${String(i).padStart(4, '0')}.parquet`, 1024 + Math.floor(r() * 32 * 1024));
  const names = [...size.keys()];
  const extra = (o.unsupported ?? []).flatMap((u) => Array.from({ length: u.count }, () => u.operation));
  const total = o.lines;
  // The unsupported lines spread evenly among the others.
  const extraAt = new Map(
    extra.map((op, k) => [Math.floor(((k + 0.5) * total) / extra.length), op] as const),
  );
  const rows: Record<(typeof FIELDS)[number], string | number>[] = [];
  const counts: Record<string, number> = {};
  for (let i = 0; i < total; i++) {
    const at = i === total - 1 ? o.spanMs : Math.floor((i / (total - 1)) * o.spanMs);
    let name = names[Math.floor(r() * names.length)]!;
    for (
      let tries = 0;
      tries < names.length && at - (lastAt.get(name) ?? -Infinity) < SAME_NAME_GAP_MS;
      tries++
    )
      name = names[(names.indexOf(name) + 1) % names.length]!;
    lastAt.set(name, at);
    const op = extraAt.get(i) ?? pick(r);
    counts[op] = (counts[op] ?? 0) + 1;
    rows.push(row(op, name, at, size, r));
  }
  const csv = [FIELDS.join(','), ...rows.map((x) => FIELDS.map((f) => csvCell(x[f])).join(','))].join('\r\n');
  const jsonLines = rows.map((x) => JSON.stringify(x)).join('\n');
  return { csv: `${csv}\r\n`, jsonLines: `${jsonLines}\n`, counts, spanMs: o.spanMs };
}

/** One line, and the name's state after it: a blob service's answer to it. */
function row(op: string, name: string, at: number, size: Map<string, number | undefined>, r: () => number) {
  const current = size.get(name);
  let status = 200;
  let request = 0;
  let response = 0;
  if (op === 'PutBlob') {
    request = 1024 + Math.floor(r() * 32 * 1024);
    size.set(name, request);
    status = 201;
  } else if (op === 'DeleteBlob') {
    status = current === undefined ? 404 : 202;
    size.set(name, undefined);
  } else if (op === 'GetBlob' || op === 'GetBlobProperties') {
    status = current === undefined ? 404 : 200;
    response = op === 'GetBlob' && current !== undefined ? current : 0;
  }
  const server = 1 + Math.floor(r() * 8);
  return {
    TimeGenerated: new Date(START + at).toISOString().replace('Z', '0000Z'),
    AccountName: 'contosodata',
    Location: 'westeurope',
    Protocol: 'HTTPS',
    OperationName: op,
    AuthenticationType: 'OAuth',
    StatusCode: status,
    StatusText: status === 404 ? 'BlobNotFound' : 'Success',
    DurationMs: server + Math.floor(r() * 20),
    ServerLatencyMs: server,
    Uri: `https://contosodata.blob.core.windows.net:443/lake/${name}`,
    CallerIpAddress: '10.1.0.4:51234',
    CorrelationId: `00000000-0000-4000-8000-${String(Math.floor(r() * 1e12)).padStart(12, '0')}`,
    UserAgentHeader: 'azsdk-python-storage-blob/12.19.0 Python/3.11.6 (Linux-5.15, "x86_64")',
    ObjectKey: `/contosodata/lake/${name}`,
    RequestBodySize: request,
    ResponseBodySize: response,
    Category: op.startsWith('Get') ? 'StorageRead' : op === 'DeleteBlob' ? 'StorageDelete' : 'StorageWrite',
  };
}
