// The server's own clock, in the process the server runs in (the embedded Azurite's own process,
// asked through IPC: ServerClockView): from the first data request's arrival to the last data
// response's end. Every contender, ours or the SDK's, is timed by it alike, so client-side overhead
// (before the first request, after the last answer) shows as the difference between the client's
// span and the server's.
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { performance } from 'node:perf_hooks';

const now = () => performance.timeOrigin + performance.now();

/** What a data request moved: blob bytes down or up, or a page of a listing's names. */
export type DataRequest = 'GET' | 'PUT' | 'LIST';

/**
 * Container calls, properties, metadata and the like: no blob data (Put Block and Put Block List are data).
 */
const CONTROL_QUERY = /(^|&)(comp=(?!block(&|$)|blocklist(&|$))|restype=)/;
const LIST_QUERY = /(^|&)comp=list(&|$)/;

/**
 * The one rule for what a request to the blob service moved, by its method, URL and answer: a blob
 * GET answered 200 or 206; Put Blob, Put Block or Put Block List answered 201; a List Blobs page.
 * Preflight, HEADs, container and properties calls are none (undefined). The bench's clocks use it too.
 */
export function dataRequestOf(method: string, url: string, status: number): DataRequest | undefined {
  const query = url.split('?')[1] ?? '';
  if (method === 'GET' && status === 200 && LIST_QUERY.test(query)) return 'LIST';
  if (CONTROL_QUERY.test(query)) return undefined;
  if (method === 'PUT') return status === 201 ? 'PUT' : undefined;
  if (method === 'GET') return status === 200 || status === 206 ? 'GET' : undefined;
  return undefined;
}

export class ServerClock {
  /** The data requests since the last reset: earliest arrival, latest end, and how many. */
  private first = Infinity;
  private last = -Infinity;
  private count = 0;
  private readonly server: Server;
  private readonly onRequest = (req: IncomingMessage, res: ServerResponse) => {
    if (req.method !== 'GET' && req.method !== 'PUT') return;
    const startEpochMs = now();
    res.once('finish', () => {
      // A run's own requests are its data, a listing's pages included.
      if (!dataRequestOf(req.method ?? '', req.url ?? '', res.statusCode)) return;
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

/**
 * The server's clock as a session asks it, wherever the server runs (the embedded Azurite runs in a
 * process of its own: storage/azurite-child.ts): a reset the run waits for before its release, and the
 * span after its collection. Both answers are bounded.
 */
export interface ServerClockView {
  reset(): Promise<void>;
  span(): Promise<number | undefined>;
}
