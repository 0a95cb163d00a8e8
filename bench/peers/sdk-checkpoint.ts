// Peer of `blob-cacher checkpoint`: the Azure SDK per rank. RANKS child processes (one a rank, as
// ours) each make their shard (the seed's stream at rank x size, as ours) before the clock, then on
// one release call uploadData (staged blocks of BLOCK, CONCURRENCY in flight, a Put Block List of
// its own); once every rank has written, on a second release each calls downloadToBuffer with the
// same block size and concurrency and compares what came with what it wrote. Times run from the
// first rank's call to the last rank's end, per phase. The blobs are deleted after the clock.
// Prints one JSON line: {"writeMs","readMs","bytes","ok","error"?}.
//   STORAGE_CONNECTION_STRING=… node bench/peers/sdk-checkpoint.ts --ranks K --shard-bytes S
//     --block-bytes B --concurrency C --prefix P
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BlobServiceClient } from '@azure/storage-blob';
import type { contentBuffer as contentFn } from '../../dist/payload/content.js';

function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}
const ranks = Number(arg('ranks'));
const shardBytes = Number(arg('shard-bytes'));
const blockBytes = Number(arg('block-bytes'));
const concurrency = Number(arg('concurrency'));
const prefix = arg('prefix') ?? 'sdk-checkpoint';
const rank = arg('rank');
const CONTAINER = 'bench-sdk-checkpoint';
if (!(ranks > 0) || !(shardBytes > 0) || !(blockBytes > 0) || !(concurrency > 0))
  throw new Error('usage: sdk-checkpoint.ts --ranks K --shard-bytes S --block-bytes B --concurrency C');

const container = () =>
  BlobServiceClient.fromConnectionString(process.env.STORAGE_CONNECTION_STRING ?? '').getContainerClient(
    CONTAINER,
  );
const blobName = (r: number) => `${prefix}/rank-${String(r).padStart(4, '0')}`;

type Span = { startMs: number; endMs: number; ok: boolean; error?: string };
const now = () => performance.timeOrigin + performance.now();

/** One rank: the shard made, then each phase on its release. */
async function runRank(r: number): Promise<void> {
  const dist = process.env.BLOB_CACHER_DIST ?? new URL('../../dist', import.meta.url).pathname;
  const { contentBuffer, FIXTURE_SEED } = (await import(
    pathToFileURL(join(dist, 'payload/content.js')).href
  )) as {
    contentBuffer: typeof contentFn;
    FIXTURE_SEED: string;
  };
  const shard = contentBuffer(FIXTURE_SEED, r * shardBytes, shardBytes);
  const blob = container().getBlockBlobClient(blobName(r));
  const options = { blockSize: blockBytes, concurrency, maxSingleShotSize: 0 };
  const phase = async (work: () => Promise<boolean>): Promise<Span> => {
    const startMs = now();
    try {
      return { startMs, ok: await work(), endMs: now() };
    } catch (err) {
      return { startMs, endMs: now(), ok: false, error: (err as Error).message.split('\n')[0] };
    }
  };
  process.send!({ type: 'ready' });
  process.on('message', async (m: { type: string }) => {
    if (m.type === 'write') {
      process.send!({
        type: 'done',
        span: await phase(async () => {
          await blob.uploadData(shard, options);
          return true;
        }),
      });
    } else if (m.type === 'read') {
      const back = Buffer.alloc(shardBytes);
      const span = await phase(async () => {
        await blob.downloadToBuffer(back, 0, shardBytes, options);
        return back.equals(shard);
      });
      process.send!({
        type: 'done',
        span: span.ok || span.error ? span : { ...span, error: 'read-back differs' },
      });
      process.disconnect?.();
    }
  });
}

const next = (c: ChildProcess, type: string) =>
  new Promise<{ span?: Span }>((resolve, reject) => {
    c.once('message', (m: { type: string; span?: Span }) =>
      m.type === type ? resolve(m) : reject(new Error(m.type)),
    );
    c.once('exit', (code) => reject(new Error(`rank exited ${code}`)));
  });

/** Releases every rank into a phase and waits for all: first start to last end. */
async function release(children: ChildProcess[], type: string): Promise<{ ms: number; error?: string }> {
  const done = children.map((c) => next(c, 'done'));
  for (const c of children) c.send({ type });
  const spans = (await Promise.all(done)).map((m) => m.span!);
  const failed = spans.find((s) => !s.ok);
  const ms = Math.max(...spans.map((s) => s.endMs)) - Math.min(...spans.map((s) => s.startMs));
  return { ms, ...(failed ? { error: failed.error ?? 'failed' } : {}) };
}

async function coordinate(): Promise<void> {
  await container().createIfNotExists();
  const argv = process.argv.slice(2);
  const children = Array.from({ length: ranks }, (_, r) =>
    fork(new URL(import.meta.url).pathname, [...argv, '--rank', String(r)], { stdio: 'inherit' }),
  );
  try {
    await Promise.all(children.map((c) => next(c, 'ready')));
    const write = await release(children, 'write');
    const read = write.error ? { ms: NaN, error: write.error } : await release(children, 'read');
    const error = write.error ?? read.error;
    const summary = { writeMs: write.ms, readMs: read.ms, bytes: ranks * shardBytes, ok: !error, error };
    process.stdout.write(`${JSON.stringify(summary)}\n`);
  } finally {
    for (const c of children) if (c.connected) c.kill();
    await Promise.all(
      Array.from({ length: ranks }, (_, r) =>
        container()
          .deleteBlob(blobName(r))
          .catch(() => undefined),
      ),
    );
  }
}

await (rank === undefined ? coordinate() : runRank(Number(rank)));
