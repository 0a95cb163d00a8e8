// Peer of `blob-cacher train`: the plainest Node training-read loop there is. node:http with one
// keep-alive agent of CONNECTIONS sockets; each epoch reads COUNT files below URL in a shuffled
// order, in batches of BATCH; a timer of COMPUTE ms stands for the accelerator per batch, while up
// to PREFETCH batches beyond the one in compute load. Bodies are counted and dropped. Prints one
// JSON line: {"ms","computeMs","samples","bytes","utilisation"}.
//   node bench/peers/train-loop.ts --url <folder> --count N --epochs E --batch B --compute-ms C
//        --prefetch P --connections S
import http from 'node:http';
import { performance } from 'node:perf_hooks';

function arg(name: string): number | string {
  const i = process.argv.indexOf(`--${name}`);
  const v = i >= 0 ? process.argv[i + 1] : undefined;
  if (v === undefined) throw new Error(`train-loop.ts: --${name} is missing`);
  return name === 'url' ? v : Number(v);
}
const base = String(arg('url')).replace(/\/$/, '');
const count = Number(arg('count'));
const epochs = Number(arg('epochs'));
const batch = Number(arg('batch'));
const computeMs = Number(arg('compute-ms'));
const prefetch = Number(arg('prefetch'));
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(arg('connections')) });
const nameOf = (i: number) => `${base}/file-${String(i).padStart(7, '0')}`;

let bytes = 0;
let samples = 0;
let computed = 0;

function get(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        res.on('data', (c: Buffer) => (bytes += c.length));
        res.on('end', () =>
          res.statusCode === 200 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`)),
        );
      })
      .on('error', reject);
  });
}

/** A seeded shuffle (mulberry32 draws, Fisher-Yates): a fixed order per epoch, as ours has. */
function shuffled(epoch: number): number[] {
  let state = (0x9e3779b9 ^ (epoch + 1)) >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const order = Array.from({ length: count }, (_, i) => i);
  for (let i = count - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

async function epoch(e: number): Promise<void> {
  const order = shuffled(e);
  const batches: Promise<void>[] = [];
  // A batch's reads start when it comes within the prefetch depth: all at once, the agent queues
  // past its sockets (the loop a user writes with Promise.all).
  const load = (b: number) =>
    (batches[b] ??= Promise.all(order.slice(b * batch, (b + 1) * batch).map((i) => get(nameOf(i)))).then(
      () => {
        samples += Math.min(batch, count - b * batch);
      },
    ));
  const total = Math.ceil(count / batch);
  for (let b = 0; b < total; b++) {
    for (let ahead = b; ahead <= Math.min(total - 1, b + prefetch); ahead++) void load(ahead);
    await load(b);
    // Busy for the compute time, as ours counts it: a late timer is idle time.
    await new Promise((r) => setTimeout(r, computeMs));
    computed += computeMs;
  }
}

const started = performance.now();
for (let e = 0; e < epochs; e++) await epoch(e);
const ms = performance.now() - started;
agent.destroy();
process.stdout.write(
  `${JSON.stringify({ ms, computeMs: computed, samples, bytes, utilisation: computed / ms })}\n`,
);
