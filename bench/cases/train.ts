// Case 16: the training-read pattern (`blob-cacher train`) beside a plain Node loop with the same
// prefetch (bench/peers/train-loop.ts), on the emulated target, hosted in this process, pacing each
// connection: both read the same sample set in shuffled batches behind the same compute timer.
// Alternating rounds, one run each: accelerator utilisation and samples/s, ours over the peer's, as
// paired ratios (>1: ours keeps the accelerator busier); once at a prefetch that hides the reads
// (near 100% for both: the harness's own overhead) and once at 0 (the reads alone decide).
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ResultsFile } from '../../dist/results/schema.js';
import { medianIntervalSignTestExact } from '../../src/analysis/stats.ts';
import { section, type BenchContext } from '../lib/context.ts';
import { DIST_DIR, REPO_DIR } from '../lib/ours.ts';
import { MIN_ROUNDS, ratioText } from '../lib/paired.ts';
import { runProcess, tail } from '../lib/proc.ts';

const MiB = 1024 * 1024;
const SET = { count: 256, sizeBytes: 64 * 1024, epochs: 2, batch: 16, computeMs: 40, sockets: 8 };
/** Per connection: a batch of 16 x 64 KiB over 8 sockets is ~32 ms of reads against 40 ms of compute. */
const PACE = 8 * MiB;

interface Round {
  utilisation: number;
  samplesPerSecond: number;
}

const oursArgs = (url: string, prefetch: number) => [
  'train',
  ...['--url', url, '--file-count', String(SET.count), '--file-size', `${SET.sizeBytes}B`],
  ...['--epochs', String(SET.epochs), '--batch-size', String(SET.batch), '--compute', `${SET.computeMs}ms`],
  ...['--prefetch', String(prefetch), '--processes', '1', '--max-sockets', String(SET.sockets)],
];

async function ours(ctx: BenchContext, url: string, prefetch: number): Promise<Round | string> {
  const results = join(ctx.tmpDir, 'train.json');
  rmSync(results, { force: true });
  const args = [join(DIST_DIR, 'cli.js'), ...oursArgs(url, prefetch), '--runs', '1', '--warmup', '0'];
  const r = await runProcess(
    process.execPath,
    [...args, '--results', results, '--format', 'json', '--log-level', 'warn'],
    { timeoutMs: 5 * 60_000 },
  );
  try {
    const run = (JSON.parse(readFileSync(results, 'utf8')) as ResultsFile).runs.find((x) => !x.warmup)!;
    const epochs = run.train!.epochs;
    const compute = epochs.reduce((a, e) => a + e.computeMs, 0);
    const wall = epochs.reduce((a, e) => a + e.wallMs, 0);
    return { utilisation: compute / wall, samplesPerSecond: run.requests / (run.wallMs / 1000) };
  } catch {
    return `ours: no results (exit ${r.code}): ${tail(r)}`;
  }
}

async function peer(url: string, prefetch: number): Promise<Round | string> {
  const args = [
    join(REPO_DIR, 'bench', 'peers', 'train-loop.ts'),
    ...['--url', url, '--count', String(SET.count), '--epochs', String(SET.epochs)],
    ...['--batch', String(SET.batch), '--compute-ms', String(SET.computeMs), '--prefetch', String(prefetch)],
    ...['--connections', String(SET.sockets)],
  ];
  const r = await runProcess(process.execPath, args, { timeoutMs: 5 * 60_000 });
  try {
    const out = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as {
      ms: number;
      samples: number;
      utilisation: number;
    };
    return { utilisation: out.utilisation, samplesPerSecond: out.samples / (out.ms / 1000) };
  } catch {
    return `peer: no result (exit ${r.code}): ${tail(r)}`;
  }
}

export async function train(ctx: BenchContext, runs: number) {
  const s = section('train', '16. Training reads (`train`) beside a plain Node loop, emulated target');
  const { startEmulatedTarget } = (await import(
    join(DIST_DIR, 'emulate/server.js')
  )) as typeof import('../../dist/emulate/server.js');
  const target = await startEmulatedTarget({ perConnectionBytesPerSecond: PACE });
  const url = `${target.url}/data/`;
  // The set the peer reads: where ours puts it (fixtures made by ours' first run).
  const setUrl = `${url}many/${SET.count}x${SET.sizeBytes}`;
  const rows: string[] = [];
  try {
    for (const prefetch of [2, 0]) {
      const pairs: { ours: Round; peer: Round }[] = [];
      for (let round = 0; round < Math.max(runs, MIN_ROUNDS); round++) {
        ctx.log(`case 16: prefetch ${prefetch}, round ${round + 1}`);
        const a = await ours(ctx, url, prefetch);
        const b = await peer(setUrl, prefetch);
        if (typeof a === 'string' || typeof b === 'string') {
          s.notes.push(typeof a === 'string' ? a : String(b));
          break;
        }
        pairs.push({ ours: a, peer: b });
      }
      report(s, rows, prefetch, pairs);
    }
  } finally {
    await target.close();
  }
  s.commands.push(`node dist/cli.js ${oursArgs('<emulated target>/data/', 2).join(' ')} --runs 1 --warmup 0`);
  s.commands.push(
    'node bench/peers/train-loop.ts --url <emulated target>/data/many/256x65536 --count 256 --epochs 2 ' +
      '--batch 16 --compute-ms 40 --prefetch 2 --connections 8',
  );
  s.commandsNote = `also at --prefetch 0; the emulated target paces each connection at ${PACE / MiB} MiB/s`;
  s.tables.push(
    [
      '| prefetch | rounds | ours utilisation | peer utilisation | utilisation ours/peer | ' +
        'samples/s ours/peer |',
      '| --- | --- | --- | --- | --- | --- |',
      ...rows,
    ].join('\n'),
  );
  return s;
}

function report(
  s: ReturnType<typeof section>,
  rows: string[],
  prefetch: number,
  pairs: readonly { ours: Round; peer: Round }[],
): void {
  if (!pairs.length) return;
  const med = (v: number[]) => medianIntervalSignTestExact([...v].sort((a, b) => a - b));
  const au = med(pairs.map((p) => p.ours.utilisation / p.peer.utilisation));
  const rate = med(pairs.map((p) => p.ours.samplesPerSecond / p.peer.samplesPerSecond));
  const pct = (v: number[]) => `${(med(v).median * 100).toFixed(1)}%`;
  rows.push(
    `| ${prefetch} | ${pairs.length} | ${pct(pairs.map((p) => p.ours.utilisation))} | ` +
      `${pct(pairs.map((p) => p.peer.utilisation))} | ${ratioText(au)} | ${ratioText(rate)} |`,
  );
  s.goals.push({
    what: `train --prefetch ${prefetch}: accelerator utilisation, ours / plain Node loop`,
    ours: 'blob-cacher train',
    peer: 'bench/peers/train-loop.ts',
    ratio: au.median,
    // Each tool's own figure: ours from its results file, the peer from its own timers.
    clock: 'tool',
    // Keeping the accelerator as busy as the plainest loop: the harness costs it nothing that shows.
    reached: au.n >= MIN_ROUNDS ? au.high >= 0.98 : undefined,
    note: '',
    valueText: ratioText(au),
    targetText: '>= 0.98x (its interval reaches it)',
  });
}
