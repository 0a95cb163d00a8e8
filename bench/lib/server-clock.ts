// The servers' own clock. Every contender, ours or a peer, is also timed by the server it talks to:
// from the first data request's arrival to the last data response's end. Tools without a fine timer
// of their own (azcopy ends on a 2-second tick; aria2c has none) are then compared with ours on one
// clock that none of them controls, and no tool's start-up or verification is in it.
import { closeSync, existsSync, openSync, readSync, statSync } from 'node:fs';
import type { Server } from 'node:http';
import { performance } from 'node:perf_hooks';
import type * as ServerClockModule from '../../dist/metrics/server-clock.js';
import { distImport } from './ours.ts';

const { dataRequestOf } = await distImport<typeof ServerClockModule>('metrics/server-clock.js');

/** Which requests move the data: GETs for a download, PUTs for an upload. */
export type DataMethod = 'GET' | 'PUT';

export interface ServerClock {
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

/** One data request (a request that moved blob bytes), as the server saw it. */
interface Seen {
  method: string;
  startMs: number;
  endMs: number;
}

function spanOf(seen: readonly Seen[], method: DataMethod): number | undefined {
  let first = Infinity;
  let last = -Infinity;
  for (const s of seen) {
    if (s.method !== method) continue;
    first = Math.min(first, s.startMs);
    last = Math.max(last, s.endMs);
  }
  return Number.isFinite(first) ? last - first : undefined;
}

/**
 * nginx's access log, in a format of our own (`bench_clock`): $msec is the log write (after the last
 * byte went to the socket), $request_time runs from the first bytes read; both in milliseconds.
 */
export const NGINX_CLOCK_FORMAT =
  "log_format bench_clock '$msec $request_time $request_method $status $body_bytes_sent $request_length';";

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
    mark: size,
    span(mark, method) {
      const seen: Seen[] = [];
      for (const line of readFrom(mark).split('\n')) {
        const [msec, requestTime, m, status, bodySent, requestLength] = line.split(' ');
        if (!requestLength) continue;
        // Data only: preflight HEADs carry no body, ours' upload probe is a few bytes; 1 KiB parts them.
        const bodyBytes = Number(m === 'PUT' ? requestLength : bodySent);
        const code = Number(status);
        if (code < 200 || code >= 300 || bodyBytes <= 1024) continue;
        const endMs = Number(msec) * 1000;
        seen.push({ method: m!, startMs: endMs - Number(requestTime) * 1000, endMs });
      }
      return spanOf(seen, method);
    },
  };
}

/** Azurite in our own process: its http server's data requests, seen as they arrive and finish. */
export class AzuriteClock implements ServerClock {
  private readonly seen: Seen[] = [];

  /** Watches one more Azurite (the suite starts a fresh one for every run). */
  watch(server: Server): void {
    server.on('request', (req, res) => {
      const startMs = performance.now();
      res.once('finish', () => {
        // The engine's own rule (src/metrics/server-clock.ts); a tool's listing before it downloads
        // (azcopy lists first) is not the transfer the bench times.
        const kind = dataRequestOf(req.method ?? '', req.url ?? '', res.statusCode);
        if (kind === 'GET' || kind === 'PUT')
          this.seen.push({ method: kind, startMs, endMs: performance.now() });
      });
    });
  }

  mark(): number {
    return this.seen.length;
  }

  span(mark: number, method: DataMethod): number | undefined {
    return spanOf(this.seen.slice(mark), method);
  }
}
