// Case 10: many small files at scale. Uploads: 100,000 x 100 KiB PUT to the
// suite's nginx, once at 2 x 32 and once at 1 x 64, and ten times as many files of 1 KiB
// (1,000,000) at 2 x 32. Downloads: the same counts of 1 KiB read back as a many-blob set
// (small-files, --sink discard) at 2 x 32, from a set written into nginx's folder beforehand with
// its completion marker, as a first session leaves it. Per configuration: the peak RSS of every
// process (the coordinator's and each worker's VmHWM, and the highest sum at one moment), the timed
// section, the process wall, and where the rest of the wall went (setup, collect, verify, cleanup).
// Goals: all processes together <= 512 MiB, and process wall <= 2 x timed + 1 s (verification and
// cleanup in it).
import { rmSync, statfsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type * as UrlFixtures from '../../dist/fixture-setup/url-fixtures.js';
import type * as ManyBlobs from '../../dist/strategies/many-blobs.js';
import { section, type BenchContext } from '../lib/context.ts';
import { distImport, ours, rssBreakdown } from '../lib/ours.ts';
import { keyValueTable } from '../lib/report.ts';
import { MiB } from '../lib/sample.ts';
import { writeSetFiles } from './many-blobs.ts';

const BUDGET_BYTES = 512 * MiB;

interface Configuration {
  files: number;
  size: string;
  sizeBytes: number;
  processes: number;
  sockets: number;
}

/** Uploads: `fileCount` of 100 KiB twice, then ten times as many of 1 KiB. */
const uploadConfigurations = (fileCount: number): Configuration[] => [
  { files: fileCount, size: '100KiB', sizeBytes: 100 * 1024, processes: 2, sockets: 32 },
  { files: fileCount, size: '100KiB', sizeBytes: 100 * 1024, processes: 1, sockets: 64 },
  { files: 10 * fileCount, size: '1KiB', sizeBytes: 1024, processes: 2, sockets: 32 },
];
/** Many-blob downloads: the same counts, 1 KiB each, at 2 x 32. */
const downloadConfigurations = (fileCount: number): Configuration[] => [
  { files: fileCount, size: '1KiB', sizeBytes: 1024, processes: 2, sockets: 32 },
  { files: 10 * fileCount, size: '1KiB', sizeBytes: 1024, processes: 2, sockets: 32 },
];
/** What a file takes where nginx stores them (tmpfs or a disk): at least a page. */
const stored = (c: { files: number; sizeBytes: number }) => c.files * Math.max(4096, c.sizeBytes);

/**
 * A set as a first session leaves it on a plain server: every file, then the marker that says it is complete.
 */
async function writeMarkedSet(folder: string, files: number, sizeBytes: number): Promise<void> {
  await writeSetFiles(folder, files, sizeBytes);
  const { setFixtures } = await distImport<typeof ManyBlobs>('strategies/many-blobs.js');
  const { markerText, SET_MARKER } = await distImport<typeof UrlFixtures>('fixture-setup/url-fixtures.js');
  const set = setFixtures({ sizeBytes, concurrency: 1, fileCount: files });
  writeFileSync(join(folder, set.prefix, SET_MARKER), markerText(set));
}

export async function scale(ctx: BenchContext, fileCount: number) {
  const s = section(
    'scale',
    `10. Many small files at scale: ${fileCount.toLocaleString('en')} x 100KiB and ` +
      `${(10 * fileCount).toLocaleString('en')} x 1KiB to nginx; ${fileCount.toLocaleString('en')} ` +
      `and ${(10 * fileCount).toLocaleString('en')} x 1KiB back`,
  );
  if (!ctx.nginx) {
    s.notes.push(`Skipped: nginx ${ctx.nginxMissing}.`);
    return s;
  }
  const nginx = ctx.nginx;
  // Each configuration holds its files until it deletes them: room for the largest set and a margin.
  const setBytes = Math.max(
    ...[...uploadConfigurations(fileCount), ...downloadConfigurations(fileCount)].map(stored),
  );
  const st = statfsSync(nginx.davDir);
  if (st.bavail * st.bsize < setBytes + 2 * 1024 * MiB) {
    s.notes.push(
      `Skipped: ${((st.bavail * st.bsize) / 1024 / MiB).toFixed(1)} GiB free where nginx stores ` +
        `its DAV files (${nginx.davStorage}); ${fileCount} files take ` +
        `${(setBytes / 1024 / MiB).toFixed(1)} GiB and a 2 GiB margin (--scale-files N for fewer).`,
    );
    return s;
  }
  const mib = (b: number) => `${(b / MiB).toFixed(0)} MiB`;
  const sec = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  const measure = async (
    what: 'upload' | 'download',
    { files, size, processes, sockets }: Configuration,
    label: string,
    contender: ReturnType<typeof ours>,
  ) => {
    ctx.log(`case 10: ${label}, ${files} files (one run)`);
    const sample = await contender.run(0);
    const procs = rssBreakdown(ctx.tmpDir, contender.tagOf(0));
    const total = procs.reduce((t, p) => t + p.maxRssBytes, 0);
    const together = sample.peakTreeRssBytes;
    const run = sample.run;
    const timedMs = run?.wallMs ?? NaN;
    const untimed = run?.untimedMs;
    const wallTarget = 2 * timedMs + 1000;
    s.tables.push(
      keyValueTable([
        ['configuration', label],
        [
          'outcome',
          sample.ok
            ? run?.verified
              ? `verified (${run.verification})`
              : (run?.verification ?? 'measured')
            : `FAILED: ${sample.error}`,
        ],
        [
          'timed section',
          sample.ok ? `${sec(timedMs)}, ${Math.round(files / (timedMs / 1000))} files/s` : '—',
        ],
        ['process wall', sec(sample.processMs)],
        [
          'untimed: setup, collect, verify, cleanup',
          untimed
            ? [untimed.setup, untimed.collect, untimed.verify, untimed.cleanup].map(sec).join(', ')
            : '—',
        ],
        [
          'peak RSS per process',
          [...procs]
            .sort((a, b) => (a.role === 'coordinator' ? -1 : 0) - (b.role === 'coordinator' ? -1 : 0))
            .map((p) => `${p.role} ${mib(p.maxRssBytes)}`)
            .join(', ') || '—',
        ],
        ['sum of the per-process peaks', procs.length ? mib(total) : '—'],
        ['all processes together, highest at one moment (sampled)', together ? mib(together) : '—'],
      ]),
    );
    s.commands.push(contender.command);
    s.goals.push({
      what:
        `${files.toLocaleString('en')} x ${size} ${what}, peak RSS of all processes ` +
        `(${processes}x${sockets})`,
      ours: label,
      peer: '—',
      ratio: NaN,
      reached: together && sample.ok ? together <= BUDGET_BYTES : undefined,
      note: together ? '' : 'not measured',
      valueText: together ? `${mib(together)} at once; ${mib(total)} summed peaks` : '—',
      targetText: `<= ${mib(BUDGET_BYTES)}`,
    });
    s.goals.push({
      what: `${files.toLocaleString('en')} x ${size} ${what}, process wall (${processes}x${sockets})`,
      ours: label,
      peer: '—',
      ratio: NaN,
      reached: sample.ok ? sample.processMs <= wallTarget : undefined,
      note: '',
      valueText: sample.ok ? `${sec(sample.processMs)} for a ${sec(timedMs)} timed section` : '—',
      targetText: sample.ok ? `<= 2 x timed + 1 s = ${sec(wallTarget)}` : '<= 2 x timed + 1 s',
    });
  };
  for (const c of uploadConfigurations(fileCount)) {
    const { files, size, processes, sockets } = c;
    const label = `ours small-files ${size} ${processes}x${sockets}`;
    // Without --keep: the run deletes its own files (one DELETE of its folder: nginx is WebDAV), and that
    // time is in its wall.
    await measure(
      'upload',
      c,
      label,
      ours(label, {
        command: 'upload',
        tmpDir: ctx.tmpDir,
        args: [
          '--url',
          nginx.url(`dav/scale-${size}-${processes}x${sockets}/`),
          '--upload-method',
          'small-files',
          '--file-count',
          String(files),
          '--file-size',
          size,
          '--processes',
          String(processes),
          '--max-sockets',
          String(sockets),
        ],
      }),
    );
  }
  for (const c of downloadConfigurations(fileCount)) {
    const { files, size, sizeBytes, processes, sockets } = c;
    const folder = join(nginx.davDir, 'scale-download');
    ctx.log(`case 10: writing the set of ${files} x ${size} into nginx's folder for the download`);
    await writeMarkedSet(folder, files, sizeBytes);
    const label = `ours small-files download ${size} ${processes}x${sockets} (discard)`;
    try {
      await measure(
        'download',
        c,
        label,
        ours(label, {
          command: 'download',
          tmpDir: ctx.tmpDir,
          args: [
            '--url',
            nginx.url('dav/scale-download/'),
            '--source-method',
            'small-files',
            '--file-count',
            String(files),
            '--file-size',
            size,
            '--sink',
            'discard',
            '--processes',
            String(processes),
            '--max-sockets',
            String(sockets),
          ],
        }),
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }
  s.notes.push(
    'One run per configuration (each upload writes its files through nginx to its DAV folder and ' +
      "reads them all back: 10 GB at 100,000 x 100 KiB). Each process's peak is its VmHWM at exit " +
      '(a preload in the coordinator, inherited by the forked workers); "all processes together" ' +
      'is the highest sum of their VmRSS at one moment, ' +
      'sampled every 20 ms, and decides the memory goal. The process wall is spawn to exit: ' +
      'start-up, setup, the timed section, collecting the ' +
      "workers' results, reading every file back and comparing it with what was sent, and deleting " +
      "the run's folder.",
    'Downloads read a set written beforehand with its marker (the session asks for the marker and ' +
      '32 files, not a HEAD per file) and use `--sink discard`: ' +
      'each file is hashed as it comes and only its 16-byte MD5 is kept, so memory stays flat in ' +
      'the file count. The default memory sink keeps every byte ' +
      'delivered (1,000,000 x 1 KiB: 1 GB more), which is what that sink means, not per-file state.',
  );
  return s;
}
