// A tracer per request: write-once monotonic timestamps from the request's and socket's events.
import type { ClientRequest } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { PhaseDurationsMs } from './phases.js';

type Mark = 'start' | 'socket' | 'lookup' | 'connect' | 'secure' | 'sent' | 'response' | 'end';

/** A mark not made yet (performance.now() is never negative). */
const UNSET = -1;

export class RequestTracer {
  // One field per mark, all made in the constructor: a request's tracer keeps one shape from start
  // to end, where marks added as properties one by one would give it a new one at each.
  private readonly start: number;
  private socket = UNSET;
  private lookup = UNSET;
  private connect = UNSET;
  private secure = UNSET;
  private sent = UNSET;
  private response = UNSET;
  private end = UNSET;
  reused = false;
  /** Epoch milliseconds of the start, comparable across processes (timeOrigin + now). */
  readonly startEpochMs: number;

  /** `startAt`: when the request was really asked for, if it waited in a queue before being created. */
  constructor(startAt?: number) {
    const now = startAt ?? performance.now();
    this.start = now;
    this.startEpochMs = performance.timeOrigin + now;
  }

  /** The first time of each mark is kept (a switch: `this[name]` is a megamorphic access at every mark). */
  mark(name: Mark): void {
    switch (name) {
      case 'start':
        return;
      case 'socket':
        if (this.socket === UNSET) this.socket = performance.now();
        return;
      case 'lookup':
        if (this.lookup === UNSET) this.lookup = performance.now();
        return;
      case 'connect':
        if (this.connect === UNSET) this.connect = performance.now();
        return;
      case 'secure':
        if (this.secure === UNSET) this.secure = performance.now();
        return;
      case 'sent':
        if (this.sent === UNSET) this.sent = performance.now();
        return;
      case 'response':
        if (this.response === UNSET) this.response = performance.now();
        return;
      case 'end':
        if (this.end === UNSET) this.end = performance.now();
        return;
    }
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

  /** From the start to the end mark (or now, where none was made). */
  totalMs(): number {
    return (this.end === UNSET ? performance.now() : this.end) - this.start;
  }

  /**
   * Durations of the phases that happened; connection phases are absent on a reused socket. The
   * phases alone, not an object holding them and the total (totalMs()): one object fewer a request.
   */
  phases(): PhaseDurationsMs {
    const start = this.start;
    const end = this.end === UNSET ? performance.now() : this.end;
    const response = this.response === UNSET ? undefined : this.response;
    if (this.socket === UNSET && response === undefined) return {};
    const socket = this.socket === UNSET ? start : this.socket;
    // The common case, a reused socket that answered: its four phases made at once, in one shape.
    if (this.reused && response !== undefined && this.socket !== UNSET) {
      const sent = Math.min(Math.max(this.sent === UNSET ? socket : this.sent, socket), response);
      return {
        wait: socket - start,
        send: sent - socket,
        firstByte: response - sent,
        download: end - response,
      };
    }
    const out: PhaseDurationsMs = { wait: socket - start };
    let cursor = socket;
    if (!this.reused) {
      if (this.lookup !== UNSET) {
        out.dns = this.lookup - cursor;
        cursor = this.lookup;
      }
      if (this.connect !== UNSET) {
        out.tcp = this.connect - cursor;
        cursor = this.connect;
      }
      if (this.secure !== UNSET) {
        out.tls = this.secure - cursor;
        cursor = this.secure;
      }
    }
    // A connection that never completed: the time went into connecting, not into a response.
    if (!this.reused && response === undefined && this.connect === UNSET && this.socket !== UNSET) {
      out.tcp = (out.tcp ?? 0) + (end - cursor);
      return out;
    }
    // A request written to a socket still connecting reports 'finish' early: sending ends no
    // earlier than the connection is ready.
    const sent = Math.min(Math.max(this.sent === UNSET ? cursor : this.sent, cursor), response ?? end);
    out.send = sent - cursor;
    if (response !== undefined) {
      out.firstByte = response - sent;
      out.download = end - response;
    } else {
      out.firstByte = end - sent;
    }
    return out;
  }
}
