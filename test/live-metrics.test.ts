// Live metrics (--metrics): a steady run of the built CLI against a local object server writes one
// line-protocol point per interval per contender to a file, POSTs the same lines to an InfluxDB
// stand-in and OTLP/HTTP JSON to a collector stand-in (both real servers on port 0), keeps the token
// out of everything it writes, and is neither failed nor held up by a receiver that stalls or refuses.
import http from 'node:http';
import { mkdir, readFile, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildProgram, loadDownloadConfig, parseFlags, redactedConfig } from '../src/config/load.js';
import { DOWNLOAD_OPTIONS, Invalid, metricsSinks } from '../src/config/options.js';
import { lineProtocol, lineProtocolBatch, otlpJson, type MetricPoint } from '../src/report/metrics-encode.js';
import { close, deterministicBuffer, listen, objectServer, refusingUrl } from './helpers/http-servers.js';
import { runCli } from './helpers/cli.js';
import { freshDirs } from './helpers/temp-dirs.js';

interface ParsedLine {
  measurement: string;
  tags: Record<string, string>;
  fields: Record<string, number | string | boolean>;
  timestampNs: bigint;
}

/**
 * InfluxDB line protocol, as its reference describes it: `measurement[,tag=v...] field=v[,...] ts`;
 * a backslash escapes the next character in names, tag keys and values and field keys; integers
 * end in `i`, strings are double-quoted; the timestamp is an integer (ns here).
 */
function parseLine(line: string): ParsedLine {
  let i = 0;
  /** Reads up to an unescaped character of `stops`, unescaping. */
  const token = (stops: string): string => {
    let out = '';
    while (i < line.length && !stops.includes(line[i]!)) {
      if (line[i] === '\\' && i + 1 < line.length) i++;
      out += line[i++];
    }
    return out;
  };
  const measurement = token(', ');
  const tags: Record<string, string> = {};
  while (line[i] === ',') {
    i++;
    const k = token('=');
    if (line[i++] !== '=') throw new Error(`tag without '=': ${line}`);
    tags[k] = token(', ');
  }
  if (line[i++] !== ' ') throw new Error(`no space before the fields: ${line}`);
  const fields: Record<string, number | string | boolean> = {};
  for (;;) {
    const k = token('=');
    if (line[i++] !== '=') throw new Error(`field without '=': ${line}`);
    let v: number | string | boolean;
    if (line[i] === '"') {
      i++;
      let s = '';
      while (line[i] !== '"') {
        if (line[i] === '\\') i++;
        s += line[i++];
      }
      i++;
      v = s;
    } else {
      const raw = token(', ');
      if (/^-?\d+i$/.test(raw)) v = Number(raw.slice(0, -1));
      else if (/^(t|true|f|false)$/i.test(raw)) v = /^t/i.test(raw);
      else if (/^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i.test(raw)) v = Number(raw);
      else throw new Error(`bad field value ${raw}: ${line}`);
    }
    fields[k] = v;
    if (line[i] !== ',') break;
    i++;
  }
  if (line[i++] !== ' ') throw new Error(`no timestamp: ${line}`);
  const ts = line.slice(i);
  if (!/^\d+$/.test(ts)) throw new Error(`bad timestamp ${ts}`);
  return { measurement, tags, fields, timestampNs: BigInt(ts) };
}

const parseAll = (text: string) =>
  text
    .split('\n')
    .filter((l) => l !== '')
    .map(parseLine);

const LIVE_FIELDS = ['requests', 'bytes', 'errors', 'retries', 'requests_per_s', 'mib_per_s', 'elapsed_s'];
const LIVE_PERCENTILES = ['latency_p50_ms', 'latency_p90_ms', 'latency_p99_ms'];
const DASHBOARD = join(import.meta.dirname, '..', 'docs', 'grafana', 'blob-cacher-influx.json');

/** An OTLP/HTTP JSON export request, as far as the tests read it. */
interface OtlpDoc {
  resourceMetrics: {
    resource: { attributes: { key: string }[] };
    scopeMetrics: { scope: { name: string }; metrics: OtlpMetric[] }[];
  }[];
}
interface OtlpPoint {
  attributes: unknown[];
  timeUnixNano: string;
  startTimeUnixNano?: string;
  asDouble?: number;
  asInt?: string;
}
interface OtlpMetric {
  name: string;
  gauge?: { dataPoints: OtlpPoint[] };
  sum?: { aggregationTemporality: number; isMonotonic: boolean; dataPoints: OtlpPoint[] };
}

/** What the CLI run below wrote: each measurement's fields and tags, for the dashboard's check. */
const emitted = new Map<string, { fields: Set<string>; tags: Set<string> }>();

describe('line protocol and OTLP encoding', () => {
  const hostile: MetricPoint = {
    measurement: 'blob cacher,x',
    tags: { contender: 'a,b c=d\\e', cell: 'x\ny', empty: '' },
    fields: { 'mib per_s': 1.5, requests: 3, whole: 2, nan: NaN },
    timeMs: 1_700_000_000_123.456,
    startMs: 1_700_000_000_000,
  };

  it('escapes commas, spaces, equals signs and backslashes so that a parser reads every part back', () => {
    const p = parseLine(lineProtocol(hostile));
    expect(p.measurement).toBe('blob cacher,x');
    // A newline cannot be written in a tag: it becomes a space. An empty tag is left out.
    expect(p.tags).toEqual({ contender: 'a,b c=d\\e', cell: 'x y' });
    // Counts are integers; a float stays a float even when whole; NaN is left out.
    expect(p.fields).toEqual({ 'mib per_s': 1.5, requests: 3, whole: 2 });
    expect(lineProtocol(hostile)).toMatch(/,requests=3i,whole=2\.0 /);
    expect(p.timestampNs).toBe(1_700_000_000_123_456_000n);
  });

  it('writes OTLP JSON with gauges for rates and delta sums for counts, int64s as strings', () => {
    const doc = JSON.parse(otlpJson([hostile], { 'service.name': 'blob-cacher' }, '1.2.3')) as OtlpDoc;
    const metrics = doc.resourceMetrics[0]!.scopeMetrics[0]!.metrics;
    const byName = new Map(metrics.map((m) => [m.name, m]));
    expect([...byName.keys()].sort()).toEqual([
      'blob cacher,x.mib per_s',
      'blob cacher,x.requests',
      'blob cacher,x.whole',
    ]);
    const requests = byName.get('blob cacher,x.requests')!;
    expect(requests.sum).toMatchObject({ aggregationTemporality: 1, isMonotonic: true });
    expect(requests.sum!.dataPoints[0]).toMatchObject({
      asInt: '3',
      startTimeUnixNano: '1700000000000000000',
      timeUnixNano: '1700000000123456000',
    });
    expect(byName.get('blob cacher,x.whole')!.gauge!.dataPoints[0]!.asDouble).toBe(2);
    expect(requests.sum!.dataPoints[0]!.attributes).toEqual([
      { key: 'contender', value: { stringValue: 'a,b c=d\\e' } },
      { key: 'cell', value: { stringValue: 'x\ny' } },
    ]);
  });

  it('parses sinks: files, Influx URLs and OTLP URLs, space-separated, and refuses anything else', () => {
    const v2 = 'https://h/api/v2/write?org=o&bucket=b';
    expect(metricsSinks(`influx=out/m.lp otlp=http://h:4318 influx=${v2}`)).toEqual([
      { format: 'influx', file: 'out/m.lp' },
      { format: 'otlp', url: 'http://h:4318' },
      { format: 'influx', url: v2 },
    ]);
    expect(metricsSinks('influx=my metrics.lp')).toEqual([{ format: 'influx', file: 'my metrics.lp' }]);
    for (const bad of ['prometheus=x', 'otlp=metrics.json', 'influx=ftp://h/x', 'influx=']) {
      expect(metricsSinks(bad), bad).toBeInstanceOf(Invalid);
    }
  });

  it('takes --metrics repeated, or BLOB_CACHER_METRICS space-separated, and never shows the token', () => {
    const argv = [
      '--metrics',
      'influx=a.lp',
      '--metrics',
      'otlp=http://h:4318',
      '--metrics-token',
      'tok-123456',
    ];
    const flags = parseFlags(buildProgram('download', DOWNLOAD_OPTIONS, ''), argv)!;
    const config = loadDownloadConfig(flags, { env: {} });
    expect(config.metrics).toEqual([
      { format: 'influx', file: 'a.lp' },
      { format: 'otlp', url: 'http://h:4318' },
    ]);
    expect(config.metricsIntervalMs).toBe(1_000);
    expect(JSON.stringify(redactedConfig(config))).not.toContain('tok-123456');
    const fromEnv = loadDownloadConfig(
      {},
      { env: { BLOB_CACHER_METRICS: 'influx=a.lp otlp=http://h:4318' } },
    );
    expect(fromEnv.metrics).toEqual(config.metrics);
    expect(loadDownloadConfig({}, { env: {} }).metrics).toBeUndefined();
  });

  it('leaves a batch of only empty points empty', () => {
    expect(lineProtocolBatch([{ ...hostile, fields: { nan: NaN } }])).toBe('');
  });
});

/** A receiver on port 0 that keeps every POST: its URL, headers and body. */
type Answer = (req: http.IncomingMessage, res: http.ServerResponse) => void;

async function receiver(answer: Answer = (_q, r) => void r.writeHead(204).end()) {
  const got: { url: string; authorization?: string; contentType?: string; body: string }[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (d: string) => (body += d));
    req.on('end', () => {
      const { authorization, 'content-type': contentType } = req.headers;
      got.push({ url: req.url ?? '', authorization, contentType, body });
      answer(req, res);
    });
  });
  return { server, base: await listen(server), got };
}

describe('--metrics on a steady run of the CLI', () => {
  const dir = freshDirs('blob-cacher-metrics-');
  const objects = objectServer(deterministicBuffer(16 * 1024), true);
  let target = '';
  beforeAll(async () => {
    target = await listen(objects.server);
  });
  afterAll(() => close(objects.server));

  const TOKEN = 'metrics-token-3f9a7c1e';
  const DURATION_MS = 2_000;
  const INTERVAL_MS = 250;
  const steadyArgs = (cwd: string) => [
    'download',
    '--url',
    `${target}/blob`,
    '--source-method',
    'single,chunked',
    '--concurrency',
    '2',
    '--processes',
    '1',
    '--duration',
    `${DURATION_MS}ms`,
    '--interval',
    `${INTERVAL_MS}ms`,
    '--results',
    join(cwd, 'r.json'),
    '--log-level',
    'warn',
  ];

  it('writes one point per interval per contender to a file, the same lines to Influx, and OTLP JSON ' +
    'to a collector', async () => {
    const cwd = await dir();
    const influx = await receiver();
    const otlp = await receiver(
      (_q, r) => void r.writeHead(200, { 'content-type': 'application/json' }).end('{}'),
    );
    try {
      const sinks = [
        `influx=${join(cwd, 'm.lp')}`,
        `influx=${influx.base}/api/v2/write?org=o&bucket=b`,
        `otlp=${otlp.base}`,
      ];
      const run = await runCli([...steadyArgs(cwd), ...sinks.flatMap((s) => ['--metrics', s])], {
        cwd,
        env: { BLOB_CACHER_METRICS_TOKEN: TOKEN },
        limitMs: 30_000,
      });
      expect(run.stderr).not.toMatch(/dropped/);
      expect(run.code).toBe(0);
      const text = await readFile(join(cwd, 'm.lp'), 'utf8');
      const points = parseAll(text);
      for (const p of points) {
        const seen = emitted.get(p.measurement) ?? { fields: new Set<string>(), tags: new Set<string>() };
        emitted.set(p.measurement, seen);
        for (const f of Object.keys(p.fields)) seen.fields.add(f);
        for (const t of Object.keys(p.tags)) seen.tags.add(t);
      }
      type Stored = { strategy: string; requests: number; steady: { series: unknown[] } };
      const results = JSON.parse(await readFile(join(cwd, 'r.json'), 'utf8')) as { runs: Stored[] };
      for (const contender of ['single', 'chunked']) {
        const mine = points.filter((p) => p.tags.contender === contender);
        const live = mine.filter((p) => p.measurement === 'blob_cacher');
        // One per interval of the run (the coordinator's timer from the release), at most one for the tail.
        const intervals = DURATION_MS / INTERVAL_MS;
        expect(live.length, `${contender}: ${live.length} live points`).toBeGreaterThanOrEqual(intervals - 1);
        expect(live.length).toBeLessThanOrEqual(intervals + 2);
        for (const p of live) {
          expect(p.tags).toMatchObject({
            command: 'download',
            target: 'url',
            run_id: 'r',
            phase: 'run',
            run: '1',
          });
          expect(p.tags.host).toBeTruthy();
          expect(Object.keys(p.fields)).toEqual(expect.arrayContaining(LIVE_FIELDS));
        }
        // Every live point that counted a success carries the percentiles of what succeeded in it,
        // from the workers' histograms since the last point, added in the coordinator.
        // (A point that no progress reached, on a loaded machine, counts nothing and carries none.)
        const succeeded = live.filter((p) => (p.fields.requests as number) > (p.fields.errors as number));
        expect(succeeded.length).toBeGreaterThanOrEqual(intervals / 2);
        for (const p of succeeded) {
          const [p50, p90, p99] = LIVE_PERCENTILES.map((f) => p.fields[f] as number);
          expect(p50, `${contender}: ${JSON.stringify(p.fields)}`).toBeGreaterThan(0);
          expect(p50).toBeLessThanOrEqual(p90!);
          expect(p90).toBeLessThanOrEqual(p99!);
        }
        // Time moves forward, in ns since the epoch (now, not 1970 or ms).
        const times = live.map((p) => p.timestampNs);
        expect(times).toEqual([...times].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
        expect(Number(times[0]! / 1_000_000n)).toBeGreaterThan(Date.now() - 120_000);
        // The live counts are the workers' progress; the run's own point has the exact figures and latency.
        const stored = results.runs.find((r) => r.strategy === contender)!;
        const whole = mine.filter((p) => p.measurement === 'blob_cacher_run');
        expect(whole).toHaveLength(1);
        expect(whole[0]!.fields.requests).toBe(stored.requests);
        expect(whole[0]!.fields).toHaveProperty('latency_p99_ms');
        const liveRequests = live.reduce((a, p) => a + (p.fields.requests as number), 0);
        expect(liveRequests).toBeLessThanOrEqual(stored.requests);
        // The steady series, exactly as the results file has it, with each interval's percentiles.
        const series = mine.filter((p) => p.measurement === 'blob_cacher_interval');
        expect(series).toHaveLength(stored.steady.series.length);
        const gaps = series.slice(1).map((p, k) => p.timestampNs - series[k]!.timestampNs);
        expect(new Set(gaps)).toEqual(new Set([BigInt(INTERVAL_MS) * 1_000_000n]));
      }
      // Influx got the same lines, with our timestamps' precision and the token.
      expect(influx.got.map((g) => g.body).join('')).toBe(text);
      expect(new URL(influx.got[0]!.url, influx.base).searchParams.get('precision')).toBe('ns');
      expect(influx.got[0]!.authorization).toBe(`Token ${TOKEN}`);
      // The collector got OTLP JSON at /v1/metrics, and the same figures.
      expect(otlp.got.length).toBe(influx.got.length);
      const paths = new Set(otlp.got.map((g) => new URL(g.url, otlp.base).pathname));
      expect(paths).toEqual(new Set(['/v1/metrics']));
      const names = new Set<string>();
      for (const g of otlp.got) {
        expect(g.contentType).toBe('application/json');
        const doc = JSON.parse(g.body) as OtlpDoc;
        expect(doc.resourceMetrics[0]!.resource.attributes.map((a) => a.key)).toContain('service.name');
        for (const m of doc.resourceMetrics[0]!.scopeMetrics[0]!.metrics) {
          names.add(m.name);
          for (const d of m.gauge?.dataPoints ?? []) {
            expect(d.timeUnixNano).toMatch(/^\d{19}$/);
            expect(typeof d.asDouble).toBe('number');
          }
          for (const d of m.sum?.dataPoints ?? []) expect(d.asInt).toMatch(/^\d+$/);
        }
      }
      const wanted = [
        'blob_cacher.requests_per_s',
        'blob_cacher.mib_per_s',
        'blob_cacher.requests',
        'blob_cacher.latency_p99_ms',
        'blob_cacher_run.latency_p99_ms',
        'blob_cacher_interval.latency_p50_ms',
      ];
      for (const n of wanted) expect(names.has(n), n).toBe(true);
      // The token is a secret: in no file, no output, no report.
      const stored = await readFile(join(cwd, 'r.json'), 'utf8');
      for (const written of [text, run.stdout, run.stderr, stored]) expect(written).not.toContain(TOKEN);
    } finally {
      await close(influx.server);
      await close(otlp.server);
    }
  }, 40_000);

  it('goes on past a receiver that stalls and one that refuses, says so once per ' +
    'sink, and exits 0', async () => {
    const cwd = await dir();
    // Takes each POST and never answers it.
    const stalled = await receiver(() => {});
    const refusing = await refusingUrl();
    try {
      const args = steadyArgs(cwd).map((a) => (a === 'single,chunked' ? 'single' : a));
      const sinks = `influx=${stalled.base}/write?db=x&u=me&p=hunter2-secret otlp=${refusing}/v1/metrics`;
      const run = await runCli([...args, '--metrics', sinks], { cwd, limitMs: 30_000 });
      expect(run.killedAtLimit).toBe(false);
      expect(run.code).toBe(0);
      const warnings = run.stderr.split('\n').filter((l) => /--metrics/.test(l));
      expect(warnings).toHaveLength(2);
      expect(warnings.find((l) => l.includes('influx='))).toMatch(/batch\(es\) dropped/);
      expect(warnings.find((l) => l.includes('otlp='))).toMatch(/batch\(es\) dropped/);
      // The stalled receiver held one POST at a time: the run did not queue more on it.
      expect(stalled.got.length).toBeLessThanOrEqual(1);
      expect(run.stderr + run.stdout + (await readFile(join(cwd, 'r.json'), 'utf8'))).not.toContain(
        'hunter2-secret',
      );
    } finally {
      stalled.server.closeAllConnections();
      await close(stalled.server);
    }
  }, 40_000);

  it('refuses a bad sink, a symbolic link and a directory before any work, with one ' +
    'line and exit 2', async () => {
    const cwd = await dir();
    await mkdir(join(cwd, 'adir'));
    await symlink(join(cwd, 'elsewhere.lp'), join(cwd, 'link.lp'));
    const cases = [
      ['graphite=x', /--metrics/],
      [`influx=${join(cwd, 'link.lp')}`, /symbolic link/],
      [`influx=${join(cwd, 'adir')}`, /is a directory/],
    ] as const;
    for (const [sink, said] of cases) {
      const run = await runCli([...steadyArgs(cwd), '--metrics', sink], { cwd, limitMs: 20_000 });
      expect(run.code, sink).toBe(2);
      expect(run.stderr.trim().split('\n'), run.stderr).toHaveLength(1);
      expect(run.stderr).toMatch(said);
    }
  }, 40_000);

  it(
    'has a Grafana dashboard whose every query reads a measurement, fields and ' + 'tags the run above wrote',
    async () => {
      expect(emitted.size, 'the steady run above wrote points').toBeGreaterThan(0);
      const dash = JSON.parse(await readFile(DASHBOARD, 'utf8')) as {
        schemaVersion: number;
        uid: string;
        title: string;
        __inputs: { type: string; pluginId: string }[];
        templating: { list: { name: string }[] };
        panels: {
          id: number;
          type: string;
          title: string;
          gridPos: { x: number; y: number; w: number; h: number };
          datasource: { type: string };
          targets: { refId: string; query: string }[];
        }[];
      };
      // Grafana 10 and 11 read schemaVersion 39 as current; an import asks for the InfluxDB data source.
      expect(dash.schemaVersion).toBe(39);
      expect(dash.uid).toMatch(/^[A-Za-z0-9_-]{1,40}$/);
      expect(dash.__inputs).toEqual([expect.objectContaining({ type: 'datasource', pluginId: 'influxdb' })]);
      const variables = new Set(dash.templating.list.map((v) => v.name));
      expect(dash.panels.length).toBeGreaterThanOrEqual(5);
      expect(new Set(dash.panels.map((p) => p.id)).size).toBe(dash.panels.length);
      const read = new Set<string>();
      for (const panel of dash.panels) {
        expect(['timeseries', 'table']).toContain(panel.type);
        expect(panel.datasource.type).toBe('influxdb');
        expect(panel.gridPos.x + panel.gridPos.w, panel.title).toBeLessThanOrEqual(24);
        expect(panel.targets.length, panel.title).toBeGreaterThan(0);
        for (const { query } of panel.targets) {
          const measurements = [...query.matchAll(/r\._measurement == "([^"]+)"/g)].map((m) => m[1]!);
          const fields = [...query.matchAll(/r\._field == "([^"]+)"/g)].map((m) => m[1]!);
          const tags = [...query.matchAll(/\br\.([a-z_]+) =~/g)].map((m) => m[1]!);
          expect(measurements, panel.title).toHaveLength(1);
          const wrote = emitted.get(measurements[0]!);
          expect(wrote, `${panel.title}: ${measurements[0]} is written`).toBeDefined();
          expect(fields.length, panel.title).toBeGreaterThan(0);
          for (const f of fields) {
            expect(wrote!.fields.has(f), `${panel.title}: field ${f} of ${measurements[0]}`).toBe(true);
            read.add(`${measurements[0]}.${f}`);
          }
          for (const t of tags) expect(wrote!.tags.has(t), `${panel.title}: tag ${t}`).toBe(true);
          for (const [, v] of query.matchAll(/\$\{([a-z_]+)(:[a-z]+)?\}/g)) {
            expect(variables.has(v!), `${panel.title}: variable ${v}`).toBe(true);
          }
        }
      }
      // Every figure live metrics are for is on it: rate, latency percentiles, errors, retries, throttles.
      const figures = [
        'blob_cacher.mib_per_s',
        'blob_cacher.requests_per_s',
        'blob_cacher.errors',
        'blob_cacher.retries',
        'blob_cacher.latency_p50_ms',
        'blob_cacher.latency_p99_ms',
        'blob_cacher_interval.latency_p99_ms',
        'blob_cacher_interval.throttles',
        'blob_cacher_run.latency_p90_ms',
      ];
      for (const f of figures) {
        expect(read.has(f), f).toBe(true);
      }
    },
  );
});
