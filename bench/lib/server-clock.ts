// The servers' own clock. Every contender, ours or a peer, is also timed by the server it talks to:
// from the first data request's arrival to the last data response's end. Tools without a fine timer
// of their own (azcopy ends on a 2-second tick; aria2c has none) are then compared with ours on one
// clock that none of them controls, and no tool's start-up or verification is in it.
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import type { Server } from 'node:http';
import { performance } from 'node:perf_hooks';

/** Which requests move the data: GETs for a download, PUTs for an upload. */
export type DataMethod = 'GET' | 'PUT';

export interface ServerClock {
  /** How the span is taken, for the report. */
  readonly source: string;
  /** A position before a run; span() looks only at requests after it. */
  mark(): number;
  /** First data request's start to last data response's end since `mark`, in ms; undefined: none seen. */
  span(mark: number, method: DataMethod): number | undefined;
}

/** A contender's binding to the clock of the server it talks to. */
export interface ClockBinding {
  clock: ServerClock;
  method: DataMethod;
}

interface Seen {
  method: string;
  status: number;
  startMs: number;
  endMs: number;
  /** Blob-service query (comp=…, restype=…): container and listing calls move no blob data. */
  control: boolean;
  /** Bytes of the request body (PUT) or response body (GET), where the server says so. */
  bodyBytes: number;
}

function spanOf(seen: readonly Seen[], method: DataMethod, isData: (s: Seen) => boolean): number | undefined {
  let first = Infinity;
  let last = -Infinity;
  for (const s of seen) {
    if (s.method !== method || !isData(s)) continue;
    first = Math.min(first, s.startMs);
    last = Math.max(last, s.endMs);
  }
  return Number.isFinite(first) ? last - first : undefined;
}

/**
 * nginx's access log, in a format of our own (`bench_clock`): $msec is the log write (after the last
 * byte went to the socket), $request_time runs from the first bytes read; both in milliseconds.
 */
export const NGINX_CLOCK_FORMAT = "log_format bench_clock '$msec $request_time $request_method $status $body_bytes_sent $request_length';";

export function nginxClock(accessLogPath: string): ServerClock {
  const size = () => (existsSync(accessLogPath) ? statSync(accessLogPath).size : 0);
  const readFrom = (offset: number): string => {
    const length = size() - offset;
    if (length <= 0) return '';
    const buf = Buffer.alloc(length);
    const fd = openSync(accessLogPath, 'r');
    try {
      readSync(fd, buf, 0, length, offset);
    } finally {
      closeSync(fd);
    }
    return buf.toString('utf8');
  };
  return {
    source: 'nginx access log ($msec, $request_time; 1 ms resolution)',
    mark: size,
    span(mark, method) {
      const seen: Seen[] = [];
      for (const line of readFrom(mark).split('\n')) {
        const [msec, requestTime, m, status, bodySent, requestLength] = line.split(' ');
        if (!requestLength) continue;
        const endMs = Number(msec) * 1000;
        const reqLen = Number(requestLength);
        seen.push({
          method: m!, status: Number(status), startMs: endMs - Number(requestTime) * 1000, endMs, control: false,
          bodyBytes: m === 'PUT' ? reqLen : Number(bodySent),
        });
      }
      // Data only: preflight HEADs carry no body, ours' upload probe is a few bytes; 1 KiB parts them.
      return spanOf(seen, method, (s) => s.status >= 200 && s.status < 300 && s.bodyBytes > 1024);
    },
  };
}

/** Azurite in our own process: its http server's requests, seen as they arrive and finish. */
export class AzuriteClock implements ServerClock {
  readonly source = "Azurite's http server, in the suite's process (request arrival to response finish)";
  private readonly seen: Seen[] = [];

  /** Watches one more Azurite (the suite starts a fresh one for many runs). */
  watch(server: Server): void {
    server.on('request', (req, res) => {
      const startMs = performance.now();
      const query = (req.url ?? '').split('?')[1] ?? '';
      const control = /(^|&)(comp=(?!block(&|$)|blocklist(&|$))|restype=)/.test(query);
      res.once('finish', () => {
        this.seen.push({
          method: req.method ?? '', status: res.statusCode, startMs, endMs: performance.now(), control,
          bodyBytes: Number(req.method === 'PUT' ? req.headers['content-length'] : res.getHeader('content-length')) || 0,
        });
      });
    });
  }

  mark(): number {
    return this.seen.length;
  }

  span(mark: number, method: DataMethod): number | undefined {
    const seen = this.seen.slice(mark);
    // Put Blob, Put Block and Put Block List answer 201; blob GETs 200 or 206. Container creation,
    // properties and listings are control calls; downloads' HEADs are not GETs.
    return spanOf(seen, method, (s) => !s.control && (method === 'PUT' ? s.status === 201 : s.status === 200 || s.status === 206));
  }
}
