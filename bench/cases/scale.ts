// Case 10: many small uploads at scale (issue 15's targets): 100,000 x 100 KiB PUT to the suite's
// nginx, once at 2 x 32 and once at 1 x 64, and ten times as many files of 1 KiB (1,000,000) at
// 2 x 32. Per configuration: the peak RSS of every process (the
// coordinator's and each worker's VmHWM, and the highest sum at one moment), the timed section, the
// process wall, and where the rest of the wall went (setup, collect, verify, cleanup). Goals: all
// processes together <= 512 MiB, and process wall <= 2 x timed + 1 s (verification and cleanup in it).
import { statfsSync } from 'node:fs';
import { section, type BenchContext } from '../lib/context.ts';
import { ours, rssBreakdown } from '../lib/ours.ts';
import { keyValueTable } from '../lib/report.ts';
import { MiB } from '../lib/sample.ts';

const BUDGET_BYTES = 512 * MiB;

/** Files, their size, processes x sockets: `fileCount` of 100 KiB twice, then ten times as many of 1 KiB. */
const configurations = (fileCount: number) => [
  { files: fileCount, size: '100KiB', sizeBytes: 100 * 1024, processes: 2, sockets: 32 },
  { files: fileCount, size: '100KiB', sizeBytes: 100 * 1024, processes: 1, sockets: 64 },
  { files: 10 * fileCount, size: '1KiB', sizeBytes: 1024, processes: 2, sockets: 32 },
];
/** What a file takes where nginx stores them (tmpfs or a disk): at least a page. */
const stored = (c: { files: number; sizeBytes: number }) => c.files * Math.max(4096, c.sizeBytes);

export async function scale(ctx: BenchContext, fileCount: number) {
  const s = section('scale', `10. Many small uploads at scale: ${fileCount.toLocaleString('en')} x 100KiB and ${(10 * fileCount).toLocaleString('en')} x 1KiB to nginx`);
  if (!ctx.nginx) {
    s.notes.push(`Skipped: nginx ${ctx.nginxMissing}.`);
    return s;
  }
  const nginx = ctx.nginx;
  // Each configuration holds its files until it deletes them: room for the largest set and a margin.
  const setBytes = Math.max(...configurations(fileCount).map(stored));
  const st = statfsSync(nginx.davDir);
  if (st.bavail * st.bsize < setBytes + 2 * 1024 * MiB) {
    s.notes.push(`Skipped: ${((st.bavail * st.bsize) / 1024 / MiB).toFixed(1)} GiB free where nginx stores its DAV files (${nginx.davStorage}); ${fileCount} files take ${(setBytes / 1024 / MiB).toFixed(1)} GiB and a 2 GiB margin (--scale-files N for fewer).`);
    return s;
  }
  const mib = (b: number) => `${(b / MiB).toFixed(0)} MiB`;
  const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  for (const { files, size, processes, sockets } of configurations(fileCount)) {
    const label = `ours small-files ${size} ${processes}x${sockets}`;
    // Without --keep: the run deletes its own files (one DELETE of its folder: nginx is WebDAV), and that time is in its wall.
    const contender = ours(label, {
      command: 'upload', tmpDir: ctx.tmpDir,
      args: ['--url', nginx.url(`dav/scale-${size}-${processes}x${sockets}/`), '--upload-method', 'small-files', '--file-count', String(files), '--file-size', size,
        '--processes', String(processes), '--max-sockets', String(sockets)],
    });
    ctx.log(`case 10: ${label}, ${files} files (one run)`);
    const sample = await contender.run(0);
    const procs = rssBreakdown(ctx.tmpDir, contender.tagOf(0));
    const total = procs.reduce((t, p) => t + p.maxRssBytes, 0);
    const together = sample.peakTreeRssBytes;
    const run = sample.run;
    const timedMs = run?.wallMs ?? NaN;
    const untimed = run?.untimedMs;
    const wallTarget = 2 * timedMs + 1000;
    s.tables.push(keyValueTable([
      ['configuration', label],
      ['outcome', sample.ok ? `verified (${run?.verification})` : `FAILED: ${sample.error}`],
      ['timed section', sample.ok ? `${sec(timedMs)}, ${Math.round(files / (timedMs / 1000))} files/s` : '—'],
      ['process wall', sec(sample.processMs)],
      ['untimed: setup, collect, verify, cleanup', untimed ? [untimed.setup, untimed.collect, untimed.verify, untimed.cleanup].map(sec).join(', ') : '—'],
      ['peak RSS per process', [...procs].sort((a, b) => (a.role === 'coordinator' ? -1 : 0) - (b.role === 'coordinator' ? -1 : 0)).map((p) => `${p.role} ${mib(p.maxRssBytes)}`).join(', ') || '—'],
      ['sum of the per-process peaks', procs.length ? mib(total) : '—'],
      ['all processes together, highest at one moment (sampled)', together ? mib(together) : '—'],
    ]));
    s.commands.push(contender.command);
    s.goals.push({
      what: `${files.toLocaleString('en')} x ${size} upload, peak RSS of all processes (${processes}x${sockets})`, ours: label, peer: '—', ratio: NaN,
      reached: together && sample.ok ? together <= BUDGET_BYTES : undefined, note: together ? '' : 'not measured',
      valueText: together ? `${mib(together)} at once; ${mib(total)} summed peaks` : '—', targetText: `<= ${mib(BUDGET_BYTES)}`,
    });
    s.goals.push({
      what: `${files.toLocaleString('en')} x ${size} upload, process wall (${processes}x${sockets})`, ours: label, peer: '—', ratio: NaN,
      reached: sample.ok ? sample.processMs <= wallTarget : undefined, note: '',
      valueText: sample.ok ? `${sec(sample.processMs)} for a ${sec(timedMs)} timed section` : '—', targetText: sample.ok ? `<= 2 x timed + 1 s = ${sec(wallTarget)}` : '<= 2 x timed + 1 s',
    });
  }
  s.notes.push(
    'One run per configuration (each writes its files through nginx to its DAV folder and reads them all back: 10 GB at 100,000 x 100 KiB). Each process\'s peak is its VmHWM at exit ' +
    '(a preload in the coordinator, inherited by the forked workers); "all processes together" is the highest sum of their VmRSS at one moment, ' +
    'sampled every 20 ms, and decides the memory goal. The process wall is spawn to exit: start-up, setup, the timed section, collecting the ' +
    'workers\' results, reading every file back and comparing it with what was sent, and deleting the run\'s folder.',
  );
  return s;
}
