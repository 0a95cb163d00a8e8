import { nodeHttp } from '../startup/lazy.js';
import type { AddressInfo } from 'node:net';
import { StragglerPlan } from './buckets.js';

export interface StragglerProxy {
  /** http://127.0.0.1:PORT, to put in place of the target's origin. */
  url: string;
  log: { requests: number; stalled: number; abandoned: number };
  close(): Promise<void>;
}

export async function startStragglerProxy(
  upstream: URL,
  stragglers: { every: number; stallMs: number; seed: number },
): Promise<StragglerProxy> {
  const plan = new StragglerPlan(stragglers.every, stragglers.seed);
  const agent = new (nodeHttp().Agent)({ keepAlive: true });
  const log = { requests: 0, stalled: 0, abandoned: 0 };
  let arrivals = 0;
  const server = nodeHttp().createServer((req, res) => {
    log.requests++;
    const blobGet = req.method === 'GET' && !(req.url ?? '').includes('?');
    const stall = blobGet && plan.stalls(arrivals++);
    if (stall) log.stalled++;
    let done = false;
    res.on('close', () => {
      if (!done) log.abandoned++;
    });
    const forward = () => {
      if (res.destroyed) return void req.resume();
      const out = nodeHttp().request(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: req.method,
          path: req.url,
          headers: req.headers,
          agent,
        },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          answer.on('end', () => (done = true));
        },
      );
      out.on('error', () => res.destroy());
      // A client that went away (a hedge's loser) takes the upstream request with it.
      res.on('close', () => {
        if (!done) out.destroy();
      });
      req.pipe(out);
    };
    if (stall) setTimeout(forward, stragglers.stallMs);
    else forward();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    log,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
}
