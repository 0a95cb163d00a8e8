// An in-memory server for checkpoint tests on 127.0.0.1 port 0: PUT stores, GET answers whole or one
// byte range (206 with Content-Range), DELETE removes. Options make it misbehave: hold the PUTs of some
// paths (one slow rank), or flip one byte of what GET sends for some paths (a corrupted read).
import http from 'node:http';
import { listen } from './http-servers.js';

export interface ShardServerOptions {
  /** Holds the answer to a PUT of a matching path this long after its body arrived. */
  putDelayMs?: (path: string) => number;
  /** GET of a matching path sends its bytes with the first one sent flipped. */
  flipOnGet?: (path: string) => boolean;
}

export interface ShardServer {
  server: http.Server;
  files: Map<string, Buffer>;
  url: string;
  gets: number;
}

function rangeOf(header: string | undefined, length: number): [number, number] | undefined {
  const m = /^bytes=(\d+)-(\d+)?$/.exec(header ?? '');
  if (!m) return undefined;
  return [Number(m[1]), Math.min(length - 1, m[2] === undefined ? length - 1 : Number(m[2]))];
}

export async function startShardServer(options: ShardServerOptions = {}): Promise<ShardServer> {
  const files = new Map<string, Buffer>();
  const state = { gets: 0 };
  const server = http.createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    if (req.method === 'PUT') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const answer = () => {
          files.set(path, Buffer.concat(chunks));
          res.writeHead(201).end();
        };
        setTimeout(answer, options.putDelayMs?.(path) ?? 0);
      });
      return;
    }
    if (req.method === 'GET') {
      state.gets++;
      const body = files.get(path);
      if (!body) return void res.writeHead(404).end();
      const range = rangeOf(req.headers.range, body.length);
      const part = Buffer.from(range ? body.subarray(range[0], range[1] + 1) : body);
      if (options.flipOnGet?.(path) && part.length) part[0] = part[0]! ^ 0x01;
      const headers = range ? { 'content-range': `bytes ${range[0]}-${range[1]}/${body.length}` } : {};
      res.writeHead(range ? 206 : 200, { ...headers, 'content-length': part.length }).end(part);
      return;
    }
    if (req.method === 'DELETE') {
      res.writeHead(files.delete(path) ? 204 : 404).end();
      return;
    }
    res.writeHead(405).end();
  });
  const url = await listen(server);
  return {
    server,
    files,
    url,
    get gets() {
      return state.gets;
    },
  };
}
