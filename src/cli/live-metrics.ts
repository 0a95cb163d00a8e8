// Where --metrics points go: appended to a file as line protocol, or POSTed to an InfluxDB write
// endpoint or an OTLP/HTTP collector. A receiver is never waited on by the run: each sink has a
// bounded queue and one request in flight with a bounded timeout; a batch that does not fit, fails
// or times out is dropped and counted, and the session says so once at its end.
import {
  closeSync,
  constants,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  write,
  type Stats,
} from 'node:fs';
import { hostname } from 'node:os';
import { dirname, resolve } from 'node:path';
import { ConfigError } from '../vocabulary/errors.js';
import type { MetricsSink } from '../config/options.js';
import { log, redact } from '../log/logger.js';
import { lineProtocolBatch, otlpJson, type MetricPoint } from '../report/metrics-encode.js';
import { liveMetrics, type LiveContext, type LiveMetricsView } from '../report/live-metrics.js';
import { kindOf } from '../results/output-path.js';

/** Batches waiting per sink: at one a second, a receiver may fall this many seconds behind. */
export const MAX_QUEUED_BATCHES = 64;
/** The longest one POST may take, and the longest the session's end waits for what is queued. */
export const POST_TIMEOUT_MS = 5_000;
export const CLOSE_WAIT_MS = 2_000;

/** One destination: takes text without waiting, drops what it cannot hold. */
class BoundedQueue {
  readonly name: string;
  private readonly queue: string[] = [];
  private busy?: Promise<void>;
  private readonly deliver: (text: string) => Promise<void>;
  batches = 0;
  dropped = 0;
  firstProblem?: string;

  constructor(name: string, deliver: (text: string) => Promise<void>) {
    this.name = name;
    this.deliver = deliver;
  }

  push(text: string): void {
    this.batches++;
    if (this.queue.length >= MAX_QUEUED_BATCHES) {
      this.drop('the receiver is slower than the points come');
      return;
    }
    this.queue.push(text);
    this.busy ??= this.pump();
  }

  /** Past the session's end: what is still in flight was counted as dropped when it ended. */
  private closed = false;

  private drop(why: string, n = 1): void {
    if (this.closed) return;
    this.dropped += n;
    this.firstProblem ??= why;
  }

  private async pump(): Promise<void> {
    for (let text = this.queue.shift(); text !== undefined; text = this.queue.shift()) {
      await this.deliver(text).catch((err: Error) => this.drop(err.message));
    }
    this.busy = undefined;
  }

  private sending(): boolean {
    return this.busy !== undefined;
  }

  /** Waits at most `ms` for what is queued; what is left then is dropped. */
  async drain(ms: number): Promise<void> {
    if (!this.busy) return;
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((r) => {
      timer = setTimeout(r, ms);
    });
    await Promise.race([this.busy, late]);
    clearTimeout(timer);
    // What is queued, and the one in flight, never reached the receiver in time.
    const left = this.queue.splice(0).length + (this.sending() ? 1 : 0);
    if (left) this.drop('the session ended before the receiver took them', left);
    this.closed = true;
  }
}

/**
 * The file a line-protocol sink appends to, opened now (so a bad path fails before any work):
 * created if absent, appended to if a regular file, a FIFO or a device (written to, never
 * replaced); a symbolic link is neither followed nor replaced, except /dev/stdout and /dev/stderr.
 */
function openAppend(path: string): { fd: number; owned: boolean } {
  if (path === '-' || path === '/dev/stdout') return { fd: 1, owned: false };
  if (path === '/dev/stderr') return { fd: 2, owned: false };
  let st: Stats | undefined;
  try {
    st = lstatSync(path);
  } catch {
    st = undefined;
  }
  if (st?.isSymbolicLink()) {
    const to = resolve(dirname(path), readlinkSync(path));
    throw new ConfigError(
      `--metrics influx=${path} is a symbolic link to ${to}; ` +
        `blob-cacher neither follows nor replaces links: give ${to} itself`,
    );
  }
  if (st?.isDirectory()) {
    throw new ConfigError(`--metrics influx=${path} is a directory; give a file in it, e.g. ${path}/m.lp`);
  }
  // A FIFO with no reader would block the open: non-blocking, it fails at once (ENXIO) instead.
  const special = st !== undefined && !st.isFile() ? constants.O_NONBLOCK : 0;
  try {
    // As the results file's: its directory is made if missing.
    if (!st) mkdirSync(dirname(path), { recursive: true });
    const { O_WRONLY, O_APPEND, O_CREAT, O_NOFOLLOW } = constants;
    const flags = O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | special;
    return { fd: openSync(path, flags, 0o644), owned: true };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    const what = st && !st.isFile() ? ` (${kindOf(st)})` : '';
    throw new ConfigError(
      `--metrics influx=${path}${what} cannot be opened for appending (${code}); ` +
        'give a writable file path, e.g. results/metrics.lp',
    );
  }
}

const writeAll = (fd: number, text: string) =>
  new Promise<void>((ok, fail) => {
    write(fd, text, null, 'utf8', (err) => (err ? fail(err) : ok()));
  });

/** An Influx write URL with precision=ns (our timestamps), unless it already names one. */
function influxUrl(raw: string): string {
  const u = new URL(raw);
  if (!u.searchParams.has('precision')) u.searchParams.set('precision', 'ns');
  return u.href;
}

/** An OTLP endpoint: its own path, or /v1/metrics when it names only the collector. */
function otlpUrl(raw: string): string {
  const u = new URL(raw);
  if (u.pathname === '/' || u.pathname === '') u.pathname = '/v1/metrics';
  return u.href;
}

async function post(url: string, body: string, contentType: string, authorization?: string): Promise<void> {
  const res = await fetch(url, {
    method: 'POST',
    body,
    signal: AbortSignal.timeout(POST_TIMEOUT_MS),
    headers: { 'content-type': contentType, ...(authorization ? { authorization } : {}) },
  }).catch((err: Error) => {
    if (err.name === 'TimeoutError') throw new Error(`no answer within ${POST_TIMEOUT_MS / 1000} s`);
    throw new Error((err.cause as Error | undefined)?.message ?? err.message);
  });
  // The body is read (and bounded by the same timeout) so that the socket is free for the next batch.
  await res.arrayBuffer().catch(() => {});
  if (!res.ok) throw new Error(`HTTP ${res.status}`);
}

/** A sink as shown in messages: a URL without its query or credentials. */
const shown = (s: MetricsSink): string => {
  if ('file' in s) return `${s.format}=${s.file}`;
  const u = new URL(s.url);
  return `${s.format}=${u.protocol}//${u.host}${u.pathname}`;
};

export interface LiveMetrics extends LiveMetricsView {
  /** Ends the session's metrics: the last points go, queued ones are waited for, drops said once. */
  finish(): Promise<void>;
}

/** Opens every sink (a bad file path throws a ConfigError now) and returns the session's listener. */
export interface LiveMetricsOptions {
  intervalMs: number;
  token?: string;
  runId: string;
  command: string;
  targetKind: string;
  version: string;
}

export function startLiveMetrics(sinks: readonly MetricsSink[], opts: LiveMetricsOptions): LiveMetrics {
  const host = hostname();
  const files: number[] = [];
  const queues = sinks.map((s) => {
    if ('file' in s) {
      const { fd, owned } = openAppend(s.file);
      if (owned) files.push(fd);
      return { queue: new BoundedQueue(shown(s), (text) => writeAll(fd, text)), encode: lineProtocolBatch };
    }
    if (s.format === 'influx') {
      const url = influxUrl(s.url);
      const auth = opts.token ? `Token ${opts.token}` : undefined;
      const queue = new BoundedQueue(shown(s), (text) => post(url, text, 'text/plain; charset=utf-8', auth));
      return { queue, encode: lineProtocolBatch };
    }
    const url = otlpUrl(s.url);
    const auth = opts.token ? `Bearer ${opts.token}` : undefined;
    const resource = { 'service.name': 'blob-cacher', 'service.version': opts.version, 'host.name': host };
    const queue = new BoundedQueue(shown(s), (text) => post(url, text, 'application/json', auth));
    return { queue, encode: (p: readonly MetricPoint[]) => otlpJson(p, resource, opts.version) };
  });
  // fetch's HTTP stack (undici, ~50-130 ms of CPU) loads now, before any run, not in the first run's
  // first interval, where the coordinator is collecting the workers' messages.
  if (sinks.some((s) => 'url' in s)) void new Request('http://127.0.0.1/', { method: 'POST', body: '' });
  const { runId, command, targetKind } = opts;
  const ctx: LiveContext = { runId, command, targetKind, host };
  const view = liveMetrics(ctx, opts.intervalMs, (points) => {
    for (const { queue, encode } of queues) {
      const text = encode(points);
      if (text) queue.push(text);
    }
  });
  return {
    onEvent: view.onEvent,
    close: view.close,
    async finish() {
      view.close();
      await Promise.all(queues.map(({ queue }) => queue.drain(CLOSE_WAIT_MS)));
      for (const fd of files) closeSync(fd);
      for (const { queue } of queues) {
        if (!queue.dropped) continue;
        const why = redact(queue.firstProblem ?? 'unknown');
        log.warn(`--metrics ${queue.name}: ${queue.dropped} of ${queue.batches} batch(es) dropped (${why})`);
      }
    },
  };
}
