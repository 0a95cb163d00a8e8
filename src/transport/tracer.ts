// A tracer per request: write-once monotonic timestamps from the request's and socket's events.
import type { ClientRequest } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { PhaseDurationsMs } from './phases.js';

type Mark = 'start' | 'socket' | 'lookup' | 'connect' | 'secure' | 'sent' | 'response' | 'end';

export class RequestTracer {
  private readonly t: Partial<Record<Mark, number>> = {};
  reused = false;
  /** Epoch milliseconds of the start, comparable across processes (timeOrigin + now). */
  readonly startEpochMs: number;

  /** `startAt`: when the request was really asked for, if it waited in a queue before being created. */
  constructor(startAt?: number) {
    const now = startAt ?? performance.now();
    this.t.start = now;
    this.startEpochMs = performance.timeOrigin + now;
  }

  mark(name: Mark): void {
    this.t[name] ??= performance.now();
  }

  /** Hooks the request's socket events; call right after http.request(). */
  attach(req: ClientRequest): void {
    req.once('socket', (socket: Socket) => {
      this.mark('socket');
      this.reused = req.reusedSocket;
      if (this.reused || !socket.connecting) {
        this.reused = true;
        return;
      }
      socket.once('lookup', () => this.mark('lookup'));
      socket.once('connect', () => this.mark('connect'));
      socket.once('secureConnect', () => this.mark('secure'));
    });
    req.once('finish', () => this.mark('sent'));
    req.once('response', () => this.mark('response'));
  }

  /** Durations of the phases that happened; connection phases are absent on a reused socket. */
  phases(): { phases: PhaseDurationsMs; totalMs: number } {
    const t = this.t;
    const start = t.start!;
    const end = t.end ?? performance.now();
    if (t.socket === undefined && t.response === undefined) return { phases: {}, totalMs: end - start };
    const socket = t.socket ?? start;
    const out: PhaseDurationsMs = { wait: socket - start };
    let cursor = socket;
    if (!this.reused) {
      if (t.lookup !== undefined) {
        out.dns = t.lookup - cursor;
        cursor = t.lookup;
      }
      if (t.connect !== undefined) {
        out.tcp = t.connect - cursor;
        cursor = t.connect;
      }
      if (t.secure !== undefined) {
        out.tls = t.secure - cursor;
        cursor = t.secure;
      }
    }
    // A connection that never completed: the time went into connecting, not into a response.
    if (!this.reused && t.response === undefined && t.connect === undefined && t.socket !== undefined) {
      out.tcp = (out.tcp ?? 0) + (end - cursor);
      return { phases: out, totalMs: end - start };
    }
    // A request written to a socket still connecting reports 'finish' early: sending ends no
    // earlier than the connection is ready.
    const sent = Math.min(Math.max(t.sent ?? cursor, cursor), t.response ?? end);
    out.send = sent - cursor;
    if (t.response !== undefined) {
      out.firstByte = t.response - sent;
      out.download = end - t.response;
    } else {
      out.firstByte = end - sent;
    }
    return { phases: out, totalMs: end - start };
  }
}
