// The benchmark suite's entry (`npm run bench`): blob-cacher against its peers on this machine.
// It finds or installs the peers, starts its own nginx and Azurites, runs the cases, prints one table
// per measurement and writes them to results/bench-<time>.md and .json. Never part of the tests.
//
// node bench/run.ts [--cases 1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16] [--runs 3] [--large-size 1GiB]
// [--memory-size 10GiB] [--upload-size 256MiB] [--many-files 500] [--list-count 2000]
// [--scale-files 100000] [--shard-size 256MiB] [--no-install] [--keep-tmp] [--update BENCHMARKS.md]
// --update replaces what lies between the file's `<!-- bench:begin -->` and `<!-- bench:end -->`
// markers with this run's report, keeping the hand-written analysis around it.
// Cases: 1 nginx download, 2 uploads, 3 Azurite, 4 tracing, 5 memory, 6 machine, 7 HTTP clients
// (ours, node:http, undici), 8 start-up, 9 many blobs (small-file downloads and listings), 10 scale,
// 11 the server's span, 12 stragglers and --hedge (the emulated target), 13 what --metrics costs a request,
// 14 open-loop --rate against wrk's closed-loop maximum (1 KiB GETs from nginx), 15 the checkpoint
// pattern (4 ranks write a shard each, then read it back) against the SDK per rank, 16 training reads
// (`train`) beside a plain Node loop with the same prefetch (the emulated target).
// BLOB_CACHER_DIST=<dir> measures another build than ./dist; BENCH_BASELINE_DIST=<dir> adds that
// build's start-up beside this one's in case 8.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { azuriteCase } from './cases/azurite.ts';
import { checkpointCase } from './cases/checkpoint.ts';
import { clients } from './cases/clients.ts';
import { machine } from './cases/machine.ts';
import { MANY_BLOBS_DEFAULTS, manyBlobs } from './cases/many-blobs.ts';
import { memory } from './cases/memory.ts';
import { nginxDownload } from './cases/nginx-download.ts';
import { openLoop } from './cases/open-loop.ts';
import { startup } from './cases/startup.ts';
import { tracing } from './cases/tracing.ts';
import { uploads } from './cases/uploads.ts';
import { scale } from './cases/scale.ts';
import { serverSpan } from './cases/server-span.ts';
import { stragglers } from './cases/stragglers.ts';
import { liveMetrics } from './cases/live-metrics.ts';
import { train } from './cases/train.ts';
import { azuriteHost, type AzuriteHost } from './lib/azurite.ts';
import type { BenchContext } from './lib/context.ts';
import { startNginx, type Nginx } from './lib/nginx.ts';
import { killChildren } from './lib/proc.ts';
import { checkBuild, DIST_DIR, REPO_DIR, writeFixtureFile } from './lib/ours.ts';
import { goalsTable, renderSection, type Section } from './lib/report.ts';
import { GiB, MiB } from './lib/sample.ts';
import { findAzcopy, findDebianTools } from './lib/tools.ts';

const { values: flags } = parseArgs({
  options: {
    cases: { type: 'string', default: '1,2,3,4,5,6,7,8,9,10,11,12,13,14,15' },
    runs: { type: 'string', default: '3' },
    'large-size': { type: 'string', default: '1GiB' },
    'memory-size': { type: 'string', default: '10GiB' },
    'upload-size': { type: 'string', default: '256MiB' },
    'many-files': { type: 'string', default: String(MANY_BLOBS_DEFAULTS.fileCount) },
    'list-count': { type: 'string', default: String(MANY_BLOBS_DEFAULTS.listCount) },
    'scale-files': { type: 'string', default: '100000' },
    'shard-size': { type: 'string', default: '256MiB' },
    'no-install': { type: 'boolean', default: false },
    'keep-tmp': { type: 'boolean', default: false },
    update: { type: 'string' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

if (flags.help) {
  // The usage is this file's opening comment.
  const usage = readFileSync(new URL(import.meta.url), 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('//'))
    .map((l) => l.replace(/^\/\/ ?/, ''));
  process.stdout.write(`${usage.join('\n')}\n`);
  process.exit(0);
}

function bytesOf(raw: string): number {
  const m = /^(\d+)(KiB|MiB|GiB)$/i.exec(raw.trim());
  if (!m) throw new Error(`bad size "${raw}": use e.g. 512MiB or 1GiB`);
  return Number(m[1]) * { kib: 1024, mib: MiB, gib: GiB }[m[2]!.toLowerCase() as 'kib' | 'mib' | 'gib'];
}

const log = (line: string) =>
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
const selected = new Set(flags.cases.split(',').map((c) => c.trim()));
const runs = Number(flags.runs);
if (!Number.isInteger(runs) || runs < 1) throw new Error('--runs must be a whole number >= 1');
const largeSizeBytes = bytesOf(flags['large-size']);

const buildProblem = checkBuild();
if (buildProblem) {
  process.stderr.write(`bench: ${buildProblem}\n`);
  process.exit(2);
}

function git(args: string[]): string {
  try {
    return execFileSync('git', args, {
      cwd: REPO_DIR,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return '?';
  }
}

const started = new Date();
const stamp = started.toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
const tmpDir = mkdtempSync(join(tmpdir(), 'blob-cacher-bench-'));
const sections: Section[] = [];
let nginx: Nginx | undefined;
let azurite: AzuriteHost | undefined;

let cleaning: Promise<void> | undefined;
function cleanup(): Promise<void> {
  cleaning ??= (async () => {
    killChildren();
    await nginx?.stop().catch(() => {});
    await azurite?.stop().catch(() => {});
    if (!flags['keep-tmp']) rmSync(tmpDir, { recursive: true, force: true });
  })();
  return cleaning;
}
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    log(`${sig}: cleaning up`);
    void cleanup().then(() => process.exit(sig === 'SIGINT' ? 130 : 143));
  });
}

const environment = {
  date: started.toISOString(),
  cpuModel: cpus()[0]?.model ?? '?',
  cores: cpus().length,
  memoryGiB: +(totalmem() / GiB).toFixed(1),
  node: process.version,
  git:
    `${git(['rev-parse', '--short', 'HEAD'])}` +
    `${git(['status', '--porcelain', '--', 'src']) ? ' (src has uncommitted changes)' : ''}`,
  dist: DIST_DIR,
  runs,
};

function header(): string {
  return [
    `# blob-cacher benchmark, ${environment.date}`,
    '',
    `Machine: ${environment.cores} cores (${environment.cpuModel}), ${environment.memoryGiB} GiB; ` +
      `Node ${environment.node}; ` +
      `blob-cacher ${environment.git}, build ${environment.dist}; ${runs} measured runs per ` +
      `contender, alternating.`,
    '',
    'Reading the tables: **bold** rows are blob-cacher. "median s" is the transfer as each tool ' +
      'times it (column "timing"); ' +
      "\"server s\" is the same run on the server's clock (nginx's access log, or Azurite's http " +
      "server watched from the suite: first data request's arrival " +
      "to last data response's end), one clock for every contender, which the goals use wherever " +
      'it was read; ' +
      '"process s" is spawn to exit (start-up and verification included); "peak RSS MiB" is the ' +
      "highest RSS of all the contender's processes " +
      'together (blob-cacher: coordinator plus workers), sampled every 20 ms. Ratios are ours/peer ' +
      'throughput from medians (> 1: ours faster).',
    '',
  ].join('\n');
}

/**
 * The whole run's report. The saved report has each case's commands and every goal again in one
 * table; the document's part leaves both out (each case's section has its own goals), so that it
 * stays a page a reader can take in, and points at the saved report for the commands.
 */
function render({ forDocument = false } = {}): string {
  if (forDocument)
    return [header(), ...sections.map((s) => renderSection(s, { commands: false }))].join('\n');
  const goals = sections.flatMap((s) => s.goals);
  return [header(), ...sections.map((s) => renderSection(s)), '## Goals', '', goalsTable(goals), ''].join(
    '\n',
  );
}

const BEGIN = '<!-- bench:begin -->';
const END = '<!-- bench:end -->';

/** Puts the report between the markers of a hand-written document (once the whole suite has run). */
function updateDocument(path: string, report: string): void {
  const doc = readFileSync(path, 'utf8');
  const a = doc.indexOf(BEGIN);
  const b = doc.indexOf(END);
  if (a < 0 || b < a) throw new Error(`${path} has no ${BEGIN} … ${END} markers to put the report between`);
  // The report's own title becomes a subsection of the document.
  const body = report.replace(/^# /m, '## ').replace(/^## (?=\d|Goals)/gm, '### ');
  writeFileSync(path, `${doc.slice(0, a + BEGIN.length)}\n${body}\n${doc.slice(b)}`);
}

function save(): string {
  const dir = join(REPO_DIR, 'results');
  mkdirSync(dir, { recursive: true });
  const md = join(dir, `bench-${stamp}.md`);
  writeFileSync(md, render());
  writeFileSync(
    join(dir, `bench-${stamp}.json`),
    `${JSON.stringify(
      { environment, sections: sections.map((s) => ({ ...s, tables: undefined })) },
      null,
      2,
    )}\n`,
  );
  return md;
}

try {
  log(`temp dir ${tmpDir}; measuring ${DIST_DIR}`);
  const tools = await findDebianTools(
    ['curl', 'aria2c', 'nginx', 'wrk', 'iperf3', 'hyperfine', 'dd', 'fallocate'],
    { install: !flags['no-install'], log },
  );
  const azcopy = await findAzcopy(tmpDir, { install: !flags['no-install'], log });
  for (const t of [...tools.values(), azcopy]) log(`${t.name}: ${t.path ?? `skipped: ${t.missing}`}`);

  let nginxMissing: string | undefined;
  const nginxTool = tools.get('nginx')!;
  const largeName = 'large.bin';
  if (nginxTool.path) {
    try {
      nginx = await startNginx(nginxTool.path, join(tmpDir, 'nginx'));
      log(`nginx on 127.0.0.1:${nginx.port}`);
      if (['1', '4', '7'].some((c) => selected.has(c))) {
        log(`writing the ${largeSizeBytes / MiB} MiB source file`);
        await writeFixtureFile(join(nginx.rootDir, largeName), largeSizeBytes);
      }
    } catch (err) {
      nginxMissing = `failed to start: ${(err as Error).message}`;
    }
  } else {
    nginxMissing = nginxTool.missing;
  }

  azurite = await azuriteHost();
  const ctx: BenchContext = {
    tmpDir,
    runs,
    largeSizeBytes,
    largeName,
    tools,
    azcopy,
    nginx,
    nginxMissing,
    log,
    azurite,
  };

  const cases: [string, () => Promise<Section>][] = [
    ['1', () => nginxDownload(ctx)],
    ['2', () => uploads(ctx)],
    ['3', () => azuriteCase(ctx, bytesOf(flags['upload-size']))],
    // Tracing cost is a paired median: at least 9 pairs, whatever --runs says.
    ['4', () => tracing(ctx, Math.max(runs, 9))],
    ['5', () => memory(ctx, bytesOf(flags['memory-size']))],
    ['6', () => machine(ctx)],
    // Client ratios and start-up times are paired by round: at least 9 and 20 rounds.
    ['7', () => clients(ctx, Math.max(runs, 9))],
    ['8', () => startup(ctx, Math.max(runs, 20))],
    [
      '9',
      () =>
        manyBlobs(ctx, {
          ...MANY_BLOBS_DEFAULTS,
          fileCount: Number(flags['many-files']),
          listCount: Number(flags['list-count']),
        }),
    ],
    ['10', () => scale(ctx, Number(flags['scale-files']))],
    // Medians of at least 5 warm runs per size and contender, whatever --runs says.
    ['11', () => serverSpan(ctx, runs)],
    // At least 30 runs of the one-object case: one object completion per run.
    ['12', () => stragglers(ctx, runs)],
    // --metrics on/off is a paired median: at least 9 pairs, whatever --runs says.
    ['13', () => liveMetrics(ctx, Math.max(runs, 9))],
    // Rising --rate steps of 5 s each, until one skips 1% of its sends; wrk before and after.
    ['14', () => openLoop(ctx)],
    ['15', () => checkpointCase(ctx, bytesOf(flags['shard-size']))],
    // Alternating rounds of ours and a plain Node loop: at least 6, whatever --runs says.
    ['16', () => train(ctx, runs)],
  ];
  for (const [id, run] of cases) {
    if (!selected.has(id)) continue;
    const load0 = loadavg()[0]!;
    const t0 = performance.now();
    const s = await run();
    s.notes.push(
      `_Took ${((performance.now() - t0) / 1000).toFixed(0)} s; 1-minute load average ` +
        `${load0.toFixed(1)} before, ${loadavg()[0]!.toFixed(1)} after (${environment.cores} cores)._`,
    );
    sections.push(s);
    process.stdout.write(`\n${renderSection(s)}\n`);
    save();
  }
  process.stdout.write(`\n## Goals\n\n${goalsTable(sections.flatMap((s) => s.goals))}\n\n`);
  log(`written ${save()} (${((Date.now() - started.getTime()) / 60_000).toFixed(1)} min)`);
  if (flags.update) {
    updateDocument(flags.update, render({ forDocument: true }));
    log(`updated ${flags.update}`);
  }
} finally {
  await cleanup();
}
