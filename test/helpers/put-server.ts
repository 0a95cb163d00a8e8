// A real in-memory file server for upload tests: PUT stores (201 new, 204 overwrite), GET returns, HEAD
// answers with the length, DELETE removes, on 127.0.0.1 port 0. Options make it misbehave: refuse PUT or
// DELETE, or flip a byte of what it stores.
import http from 'node:http';
import { listen } from './http-servers.js';

export interface PutServerOptions {
  /** Answer every PUT with this status and store nothing (e.g. 405, as a server without WebDAV). */
  refusePut?: number;
  /** Answer every DELETE with this status and keep the file (e.g. 405). */
  refuseDelete?: number;
  /** Answers the PUTs of the paths it gives a status for with that status, storing nothing (e.g. 403). */
  failPut?: (path: string) => number | undefined;
  /** Answer a successful PUT with this status instead of 201/204 (e.g. 200). */
  putStatus?: number;
  /** Stores the files whose path this matches with one byte flipped (in the middle). */
  corrupt?: (path: string) => boolean;
  /** Holds every PUT's answer this long after its body arrived. */
  delayMs?: number;
  /** Holds every DELETE's answer this long (a slow cleanup). */
  deleteDelayMs?: number;
  /**
   * DELETE of a path ending in / answers 204 and, unless 'lie', removes every file below it (a WebDAV
   * collection).
   */
  deleteFolders?: 'yes' | 'lie';
}

export interface PutServerLog {
  puts: number;
  gets: number;
  heads: number;
  deletes: number;
  /** DELETEs of a folder (a path ending in /), with deleteFolders. */
  folderDeletes: number;
  /** Request headers of every PUT. */
  putHeaders: http.IncomingHttpHeaders[];
  /** The most PUTs in progress at one moment. */
  maxConcurrentPuts: number;
}

export interface PutServer {
  server: http.Server;
  /** Stored bodies by decoded path, e.g. /dav/run-…/small-files/0/file-0000000. */
  files: Map<string, Buffer>;
  log: PutServerLog;
  /** Base URL, http://127.0.0.1:PORT. */
  url: string;
}

export async function startPutServer(options: PutServerOptions = {}): Promise<PutServer> {
  const files = new Map<string, Buffer>();
  const log: PutServerLog = {
    puts: 0,
    gets: 0,
    heads: 0,
    deletes: 0,
    folderDeletes: 0,
    putHeaders: [],
    maxConcurrentPuts: 0,
  };
  let putsInProgress = 0;
  const server = http.createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    if (req.method === 'PUT') {
      log.puts++;
      log.putHeaders.push(req.headers);
      log.maxConcurrentPuts = Math.max(log.maxConcurrentPuts, ++putsInProgress);
      res.on('close', () => putsInProgress--);
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on(
        'end',
        () =>
          void setTimeout(() => {
            const refusal = options.refusePut ?? options.failPut?.(path);
            if (refusal) return void res.writeHead(refusal).end();
            const body = Buffer.concat(chunks);
            if (options.corrupt?.(path) && body.length) {
              const middle = body.length >> 1;
              body[middle] = body[middle]! ^ 0xff;
            }
            const existed = files.has(path);
            files.set(path, body);
            res.writeHead(options.putStatus ?? (existed ? 204 : 201)).end();
          }, options.delayMs ?? 0),
      );
      return;
    }
    if (req.method === 'HEAD') {
      log.heads++;
      const body = files.get(path);
      res.writeHead(body ? 200 : 404, body ? { 'content-length': body.length } : {}).end();
      return;
    }
    if (req.method === 'GET') {
      log.gets++;
      const body = files.get(path);
      if (!body) return void res.writeHead(404).end();
      res.writeHead(200, { 'content-length': body.length }).end(body);
      return;
    }
    if (req.method === 'DELETE') {
      log.deletes++;
      const answer = () => {
        if (options.refuseDelete) return void res.writeHead(options.refuseDelete).end();
        if (options.deleteFolders && path.endsWith('/')) {
          if (options.deleteFolders === 'yes') for (const p of pathsUnder(files, path)) files.delete(p);
          log.folderDeletes++;
          return void res.writeHead(204).end();
        }
        res.writeHead(files.delete(path) ? 204 : 404).end();
      };
      if (options.deleteDelayMs) setTimeout(answer, options.deleteDelayMs);
      else answer();
      return;
    }
    res.writeHead(405).end();
  });
  return { server, files, log, url: await listen(server) };
}

/** Stored paths under `dir` (a path such as /dav/run-…/), sorted. */
export function pathsUnder(files: ReadonlyMap<string, Buffer>, dir: string): string[] {
  return [...files.keys()].filter((p) => p.startsWith(dir)).sort();
}
