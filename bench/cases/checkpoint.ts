// Case 15: the checkpoint pattern on the suite's Azurite. RANKS ranks each write a shard at once as
// staged blocks, then read it back: `blob-cacher checkpoint --shard-write blocks` against the SDK per
// rank (bench/peers/sdk-checkpoint.ts: uploadData, then downloadToBuffer, one process a rank), the
// same block size and blocks in flight. One call of each gives both phases: the write (first
// request to the last shard's commit) and the read-back are two tables and two ratios.
import { join } from 'node:path';
import { alternate } from '../lib/alternate.ts';
import { section, type BenchContext } from '../lib/context.ts';
import { DIST_DIR, ours } from '../lib/ours.ts';
import { runProcess } from '../lib/proc.ts';
import { evaluate, rowsTable } from '../lib/report.ts';
import { failedSample, MiB, summarize, type Contender, type Sample } from '../lib/sample.ts';

const RANKS = 4;
const BLOCK_BYTES = 8 * MiB;
const IN_FLIGHT = 8;
const OURS = `ours checkpoint shard-blocks ${RANKS} ranks`;
const SDK = `SDK uploadData/downloadToBuffer ${RANKS} ranks`;
const PEERS_DIR = join(import.meta.dirname, '..', 'peers');

/** A read-back sample beside the write's: the same call, its second phase. */
const readSample = (write: Sample, readMs: number): Sample => ({
  ...write,
  transferMs: readMs,
  run: undefined,
});

function sdkPeer(ctx: BenchContext, shardBytes: number, reads: Sample[]): Contender {
  return {
    label: SDK,
    ours: false,
    timing: 'in-process',
    run: async (run) => {
      const args = [
        join(PEERS_DIR, 'sdk-checkpoint.ts'),
        ...['--ranks', String(RANKS), '--shard-bytes', String(shardBytes)],
        ...['--block-bytes', String(BLOCK_BYTES), '--concurrency', String(IN_FLIGHT)],
        ...['--prefix', `run-${run}`],
      ];
      const env = {
        ...process.env,
        BLOB_CACHER_DIST: DIST_DIR,
        STORAGE_CONNECTION_STRING: ctx.azurite.current().connectionString,
      };
      const r = await runProcess(process.execPath, args, { env, timeoutMs: 20 * 60_000 });
      const line = r.stdout.trim().split('\n').pop() ?? '';
      const j = (line.startsWith('{') ? JSON.parse(line) : {}) as Record<string, unknown>;
      if (r.code !== 0 || j.ok !== true)
        return failedSample(String(j.error ?? `exit ${r.code}: ${r.stderr.trim().split('\n').pop()}`));
      const base = {
        ok: true,
        processMs: r.processMs,
        bytes: Number(j.bytes),
        requests: RANKS,
        peakRssBytes: r.peakRssBytes,
        peakTreeRssBytes: r.peakTreeRssBytes,
      };
      reads.push({ ...base, transferMs: Number(j.readMs) });
      return { ...base, transferMs: Number(j.writeMs) };
    },
  };
}

function oursCheckpoint(
  ctx: BenchContext,
  shardBytes: number,
  reads: Sample[],
): Contender & { command: string } {
  const c = ours(OURS, {
    command: 'checkpoint',
    tmpDir: ctx.tmpDir,
    env: () => ({ STORAGE_CONNECTION_STRING: ctx.azurite.current().connectionString }),
    args: [
      ...['--shard-write', 'blocks', '--processes', String(RANKS), '--shard-size', `${shardBytes / MiB}MiB`],
      ...['--block-size', `${BLOCK_BYTES / MiB}MiB`, '--max-sockets', String(IN_FLIGHT)],
    ],
  });
  return {
    ...c,
    run: async (run) => {
      const s = await c.run(run);
      const readMs = s.run?.checkpoint?.read?.wallMs;
      if (s.ok && readMs !== undefined) reads.push(readSample(s, readMs));
      return s;
    },
  };
}

export async function checkpointCase(ctx: BenchContext, shardBytes: number) {
  const s = section(
    'checkpoint',
    `15. Checkpoint: ${RANKS} ranks x ${shardBytes / MiB} MiB, write then read back`,
  );
  const host = ctx.azurite;
  const oursReads: Sample[] = [];
  const sdkReads: Sample[] = [];
  const oursC = oursCheckpoint(ctx, shardBytes, oursReads);
  const sdkC = sdkPeer(ctx, shardBytes, sdkReads);
  // Shards pile up in an in-memory Azurite: a fresh one for every run.
  const writes = await alternate([host.fresh(oursC), host.fresh(sdkC)], { runs: ctx.runs, log: ctx.log });
  const reads = [summarize(oursC, oursReads), summarize(sdkC, sdkReads)];
  s.notes.push(
    `Each rank is a process of its own, released together; shards of ${shardBytes / MiB} MiB in ` +
      `${BLOCK_BYTES / MiB} MiB blocks, ${IN_FLIGHT} in flight a rank, for both. Write: first ` +
      "request to the last shard's Put Block List (ours commits every shard once all ranks are in; " +
      "the SDK's uploadData commits its own). Read: each rank's shard in ranged GETs of the block " +
      'size (ours: discarded as it comes, every range MD5-checked; the SDK: into a buffer, compared ' +
      'after). Times are each tool\'s own; "process s" adds start-up, payloads and, for ours, the ' +
      'workers of both phases.',
  );
  s.tables.push(
    '**Write (time to a consistent checkpoint)**',
    rowsTable(writes),
    '**Read back**',
    rowsTable(reads),
  );
  s.rows.push(writes, reads);
  s.goals.push(
    evaluate(
      { what: 'checkpoint write vs the SDK per rank', ours: [OURS], peer: SDK, clock: 'tool' },
      writes,
    ),
    evaluate(
      { what: 'checkpoint read-back vs the SDK per rank', ours: [OURS], peer: SDK, clock: 'tool' },
      reads,
    ),
  );
  s.commands.push(
    `STORAGE_CONNECTION_STRING="<azurite>" ${oursC.command}`,
    `STORAGE_CONNECTION_STRING="<azurite>" node bench/peers/sdk-checkpoint.ts --ranks ${RANKS} ` +
      `--shard-bytes ${shardBytes} --block-bytes ${BLOCK_BYTES} --concurrency ${IN_FLIGHT}`,
  );
  return s;
}
