// Lanes for an open loop under test: a raw echo server on 127.0.0.1 (each byte a lane writes comes
// straight back, its answer) and one connected socket a lane. `send(lane, done)` writes a byte and
// calls `done` with a minimal record when it comes back.
import net from 'node:net';
import type { OpRecord } from '../../src/metrics/records.js';

export interface EchoLanes {
  send(lane: number, done: (got: OpRecord) => void): void;
  close(): Promise<void>;
}

const answer = (lane: number): OpRecord =>
  ({ item: lane, bytes: 1, totalMs: 0.1, phases: {}, retries: 0, throttled: 0 }) as unknown as OpRecord;

export async function echoLanes(lanes: number): Promise<EchoLanes> {
  const server = net.createServer((s) => s.on('data', (d) => s.write(d)));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  const sockets = await Promise.all(
    Array.from({ length: lanes }, () => {
      const s = net.connect(port, '127.0.0.1');
      s.setNoDelay(true);
      return new Promise<net.Socket>((resolve) => s.once('connect', () => resolve(s)));
    }),
  );
  const waiting: ((got: OpRecord) => void)[] = [];
  sockets.forEach((s, lane) => s.on('data', () => waiting[lane]!(answer(lane))));
  return {
    send(lane, done) {
      waiting[lane] = done;
      sockets[lane]!.write('x');
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
