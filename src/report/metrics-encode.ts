// Live metric points as the receivers read them: InfluxDB line protocol, and OpenTelemetry's
// OTLP/HTTP JSON encoding (resourceMetrics -> scopeMetrics -> metrics), written by hand. Pure
// functions of the points; what the points hold is decided in live-metrics.ts.

/** One point: a measurement, its tags, its fields, and its time as epoch ms on this machine's clock. */
export interface MetricPoint {
  measurement: string;
  tags: Readonly<Record<string, string>>;
  fields: Readonly<Record<string, number>>;
  /** Epoch ms (timeOrigin + performance.now()); the start of what the point covers, for OTLP sums. */
  timeMs: number;
  startMs: number;
}

/** Fields that count events within the point's span: integers in line protocol, delta sums in OTLP. */
export const COUNT_FIELDS: ReadonlySet<string> = new Set([
  'requests',
  'bytes',
  'errors',
  'retries',
  'throttles',
]);

/** Epoch ms as integer nanoseconds: microsecond precision (a double cannot hold ns since 1970 exactly). */
export const epochNs = (ms: number): bigint => BigInt(Math.round(ms * 1000)) * 1000n;

// Line protocol has no way to write a newline in a name or a tag; a control character becomes a space.
const clean = (s: string) => s.replace(/[\u0000-\u001f\u007f]/g, ' ');
/** Measurement names: commas and spaces escaped (and the backslash that would escape them). */
const escMeasurement = (s: string) => clean(s).replace(/[\\, ]/g, (c) => `\\${c}`);
/** Tag keys, tag values and field keys: commas, equals signs and spaces escaped. */
const escKey = (s: string) => clean(s).replace(/[\\,= ]/g, (c) => `\\${c}`);

function fieldValue(name: string, v: number): string {
  if (COUNT_FIELDS.has(name)) return `${Math.round(v)}i`;
  // A float field is always written with a decimal point or exponent, so that its type never changes
  // between points (Influx refuses a field that was a float and is then written as an integer).
  const text = String(v);
  return /[.e]/.test(text) ? text : `${text}.0`;
}

/** One line of line protocol (no newline); tags sorted by key, as Influx keeps them; NaN fields left out. */
export function lineProtocol(p: MetricPoint): string {
  const tags = Object.entries(p.tags)
    .filter(([, v]) => v !== '')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const fields = Object.entries(p.fields).filter(([, v]) => Number.isFinite(v));
  const tagText = tags.map(([k, v]) => `,${escKey(k)}=${escKey(v)}`).join('');
  const fieldText = fields.map(([k, v]) => `${escKey(k)}=${fieldValue(k, v)}`).join(',');
  return `${escMeasurement(p.measurement)}${tagText} ${fieldText} ${epochNs(p.timeMs)}`;
}

/** A batch as line protocol: one line per point that has a field. */
export const lineProtocolBatch = (points: readonly MetricPoint[]): string =>
  points
    .filter((p) => Object.values(p.fields).some(Number.isFinite))
    .map((p) => `${lineProtocol(p)}\n`)
    .join('');

/** Units, UCUM as OTLP asks: by field-name suffix. */
function unitOf(field: string): string {
  if (field.endsWith('_ms')) return 'ms';
  if (field === 'mib_per_s') return 'MiBy/s';
  if (field.endsWith('_per_s')) return '{request}/s';
  if (field === 'bytes') return 'By';
  if (field.endsWith('_s')) return 's';
  return COUNT_FIELDS.has(field) ? `{${field.replace(/s$/, '')}}` : '1';
}

type AnyValue = { stringValue: string };
const attributes = (tags: Readonly<Record<string, string>>): { key: string; value: AnyValue }[] =>
  Object.entries(tags)
    .filter(([, v]) => v !== '')
    .map(([key, v]) => ({ key, value: { stringValue: v } }));

/** OTLP's aggregation temporality: a delta sum covers its own span only. */
const DELTA = 1;

/**
 * An OTLP ExportMetricsServiceRequest in its JSON encoding: one metric per measurement and field
 * (`blob_cacher.mib_per_s`), gauges for rates and latencies, monotonic delta sums for counts.
 * int64 values and times are strings, as the protobuf JSON mapping writes them.
 */
export function otlpJson(
  points: readonly MetricPoint[],
  resource: Readonly<Record<string, string>>,
  scopeVersion: string,
): string {
  const metrics = new Map<string, { name: string; unit: string; count: boolean; dataPoints: object[] }>();
  for (const p of points) {
    for (const [field, v] of Object.entries(p.fields)) {
      if (!Number.isFinite(v)) continue;
      const name = `${p.measurement}.${field}`;
      const count = COUNT_FIELDS.has(field);
      let m = metrics.get(name);
      if (!m) metrics.set(name, (m = { name, unit: unitOf(field), count, dataPoints: [] }));
      const time = { timeUnixNano: String(epochNs(p.timeMs)) };
      m.dataPoints.push(
        count
          ? {
              attributes: attributes(p.tags),
              startTimeUnixNano: String(epochNs(p.startMs)),
              ...time,
              asInt: String(Math.round(v)),
            }
          : { attributes: attributes(p.tags), ...time, asDouble: v },
      );
    }
  }
  const encoded = [...metrics.values()].map(({ name, unit, count, dataPoints }) =>
    count
      ? { name, unit, sum: { aggregationTemporality: DELTA, isMonotonic: true, dataPoints } }
      : { name, unit, gauge: { dataPoints } },
  );
  return JSON.stringify({
    resourceMetrics: [
      {
        resource: { attributes: attributes(resource) },
        scopeMetrics: [{ scope: { name: 'blob-cacher', version: scopeVersion }, metrics: encoded }],
      },
    ],
  });
}
