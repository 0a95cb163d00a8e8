// The server's own clock, where the server runs in this process (the embedded Azurite): from the
// first data request's arrival to the last data response's end. Every contender, ours or the SDK's,
// is timed by it alike, so client-side overhead (before the first request, after the last answer)
// shows as the difference between the client's span and the server's.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';

const now = () => performance.timeOrigin + performance.now();
/** Requests that move blob bytes; HEAD, OPTIONS and the like are preflight or metadata. */
const DATA_METHODS = new Set(['GET', 'PUT']);

export class ServerClock {
  /** The data requests since the last reset: earliest arrival, latest end, and how many. */
  private first = Infinity;
  private last = -Infinity;
  private count = 0;
  private readonly server: Server;
  private readonly onRequest = (req: IncomingMessage, res: ServerResponse) => {
    if (!DATA_METHODS.has(req.method ?? '')) return;
    const startEpochMs = now();
    res.once('finish', () => {
      if (res.statusCode < 200 || res.statusCode >= 300) return;
      this.first = Math.min(this.first, startEpochMs);
      this.last = Math.max(this.last, now());
      this.count++;
    });
  };

  constructor(server: Server) {
    this.server = server;
    server.on('request', this.onRequest);
  }

  /** Forgets what was seen: called as a run is released. */
  reset(): void {
    this.first = Infinity;
    this.last = -Infinity;
    this.count = 0;
  }

  /** First data request's arrival to last data response's end since the reset, in ms; undefined: none. */
  span(): number | undefined {
    return this.count ? this.last - this.first : undefined;
  }

  close(): void {
    this.server.off('request', this.onRequest);
  }
}
