// Case 5: peak memory of a very large download to a sparse file (10 GiB when the disk allows): the
// coordinator's and every worker's peak RSS, measured in each process at its exit.
import { rmSync, statfsSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { section, tool, type BenchContext } from '../lib/context.ts';
import { ours, rssBreakdown } from '../lib/ours.ts';
import { runProcess } from '../lib/proc.ts';
import { keyValueTable } from '../lib/report.ts';
import { GiB, MiB } from '../lib/sample.ts';

const BUDGET_BYTES = 256 * MiB;
const MARGIN_BYTES = 2 * GiB;

function freeBytes(dir: string): number {
  const st = statfsSync(dir);
  return st.bavail * st.bsize;
}

/** An all-zero source of `bytes`, made in no time: fallocate (unwritten extents) or a sparse file. */
async function makeSource(ctx: BenchContext, path: string, bytes: number): Promise<string> {
  const fallocate = tool(ctx, 'fallocate');
  if (fallocate.path) {
    const r = await runProcess(fallocate.path, ['-l', String(bytes), path]);
    if (r.code === 0) return 'fallocate (allocated, reads as zeros)';
  }
  const fh = await open(path, 'w');
  await fh.truncate(bytes);
  await fh.close();
  return 'a sparse file (truncate; reads as zeros)';
}

export async function memory(ctx: BenchContext, wantBytes: number) {
  const s = section('memory', '5. Memory: a large download to a sparse file');
  if (!ctx.nginx) {
    s.notes.push(`Skipped: nginx ${ctx.nginxMissing}.`);
    return s;
  }
  // Source on our temp dir (nginx root) and the output in the OS temp dir: usually the same disk.
  const free = Math.min(freeBytes(ctx.nginx.rootDir), freeBytes(tmpdir()));
  const fits = Math.floor((free - MARGIN_BYTES) / 2 / GiB) * GiB;
  const bytes = Math.min(wantBytes, fits);
  if (bytes < GiB) {
    s.notes.push(
      `Skipped: ${(free / GiB).toFixed(1)} GiB free on /tmp; a run needs twice the size plus ` +
        `${MARGIN_BYTES / GiB} GiB.`,
    );
    return s;
  }
  const name = 'memory-source.bin';
  const source = join(ctx.nginx.rootDir, name);
  const how = await makeSource(ctx, source, bytes);
  const contender = ours(`chunked 16 x 8 MiB ranges, sparse-file, ${bytes / GiB} GiB`, {
    command: 'download',
    tmpDir: ctx.tmpDir,
    args: [
      '--url',
      ctx.nginx.url(name),
      '--source-method',
      'chunked',
      '--concurrency',
      '16',
      '--range-size',
      '8MiB',
      '--max-sockets',
      '16',
      '--sink',
      'sparse-file',
      '--processes',
      '1',
    ],
  });
  ctx.log(
    `case 5: ${bytes / GiB} GiB sparse-file download (one run; verification reads the output back twice)`,
  );
  let sample: Awaited<ReturnType<typeof contender.run>>;
  try {
    sample = await contender.run(0);
  } finally {
    rmSync(source, { force: true });
  }
  const procs = rssBreakdown(ctx.tmpDir, contender.tagOf(0));
  const coordinator = procs
    .filter((p) => p.role === 'coordinator')
    .reduce((m, p) => Math.max(m, p.maxRssBytes), 0);
  const workers = procs.filter((p) => p.role === 'worker');
  const total = coordinator + workers.reduce((t, p) => t + p.maxRssBytes, 0);
  const reportedWorkers = sample.run?.workers.map((w) => w.peakRssBytes) ?? [];
  const together = sample.peakTreeRssBytes;
  const mib = (b: number) => `${(b / MiB).toFixed(0)} MiB`;
  s.notes.push(
    `Source: ${bytes / GiB} GiB made with ${how}, served by nginx. ${
      bytes < wantBytes ? `**Not ${wantBytes / GiB} GiB: only ${(free / GiB).toFixed(1)} GiB free.** ` : ''
    }` +
      `chunked with --range-size 8MiB --concurrency 16: ${bytes / (8 * MiB)} ranges of 8 MiB, 16 ` +
      `in flight. ` +
      "Each process's own peak is its VmHWM at exit (a preload in the coordinator, inherited by " +
      'the forked workers), so it covers the transfer ' +
      'and the verification after it. Their sum is an upper bound (the coordinator peaks while it ' +
      'verifies, after the worker has ended); ' +
      '"all processes together" is the highest sum of their VmRSS at one moment, sampled every 20 ms. ' +
      "The results file's workers[].peakRssBytes is getrusage maxrss at the end of the timed " +
      "section, which on Linux also counts the coordinator's memory at fork time.",
  );
  s.tables.push(
    keyValueTable([
      [
        'outcome',
        sample.ok
          ? sample.run?.verified
            ? 'verified'
            : (sample.run?.verification ?? 'measured')
          : `FAILED: ${sample.error}`,
      ],
      [
        'transfer (in-tool wallMs)',
        sample.ok
          ? `${(sample.transferMs / 1000).toFixed(1)} s, ` +
            `${(bytes / MiB / (sample.transferMs / 1000)).toFixed(0)} MiB/s`
          : '—',
      ],
      ['process wall (incl. verification)', `${(sample.processMs / 1000).toFixed(1)} s`],
      ['coordinator peak RSS', procs.length ? mib(coordinator) : '—'],
      ...workers.map((w, i) => [`worker ${i} peak RSS`, mib(w.maxRssBytes)] as const),
      ['results file workers[].peakRssBytes', reportedWorkers.map(mib).join(', ') || '—'],
      [
        'sum of the per-process peaks (upper bound)',
        procs.length
          ? `${mib(total)} (budget ${mib(BUDGET_BYTES)}: ${total <= BUDGET_BYTES ? 'within' : 'over'})`
          : '—',
      ],
      [
        'all processes together, highest at one moment (sampled)',
        together
          ? `${mib(together)} (budget ${mib(BUDGET_BYTES)}: ${together <= BUDGET_BYTES ? 'within' : 'over'})`
          : '—',
      ],
    ]),
  );
  s.commands.push(contender.command);
  s.goals.push({
    what: `${bytes / GiB} GiB download peak RSS, all processes`,
    ours: contender.label,
    peer: '—',
    ratio: NaN,
    reached: procs.length && sample.ok ? total <= BUDGET_BYTES : undefined,
    note: procs.length ? '' : 'not measured',
    valueText: procs.length ? `${mib(total)} summed peaks; ${mib(together)} at once` : '—',
    targetText: `<= ${mib(BUDGET_BYTES)}`,
  });
  return s;
}
