// Case 8: start-up. The process wall of `blob-cacher --help`, of a command's --help, and of a whole
// 1-byte download from the suite's nginx: repeated spawns, every command once per round (and
// hyperfine's own repeats beside them where it is installed). Then where the time goes: what each
// module costs to import, alone and in the order the CLI imports them.
import { spawn } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { section, tool, type BenchContext } from '../lib/context.ts';
import { DIST_DIR } from '../lib/ours.ts';
import { pairedRatios, ratioText } from '../lib/paired.ts';
import { runProcess, tail } from '../lib/proc.ts';
import { keyValueTable } from '../lib/report.ts';
import { median, medianIntervalSignTestExact } from '../../src/analysis/stats.ts';
import type { Row, Sample } from '../lib/sample.ts';

const HELP_TARGET_MS = 60;
const DOWNLOAD_TARGET_MS = 150;
/** A cold 1-byte download within this many bare Node starts (`node -e 0`), paired by round. */
const DOWNLOAD_TARGET_RATIO = 4.3;
/**
 * `node dist/download.js` (the card's own command line) within this ratio of `blob-cacher download`, paired
 * by round.
 */
const ENTRY_TARGET_RATIO = 1.1;
const IMPORT_TIME = join(fileURLToPath(new URL('../peers/', import.meta.url)), 'import-time.ts');

/** Packages the CLI uses, loaded alone in a fresh process (azurite: the deep path it loads). */
const PACKAGES = [
  'commander',
  'dotenv',
  'p-limit',
  'cli-progress',
  'hdr-histogram-js',
  'winston',
  '@azure/storage-blob',
  'require:azurite/dist/src/blob/BlobServer.js',
  'node:http',
  'node:https',
  'node:child_process',
];

interface Cmd {
  label: string;
  args: string[];
}

/** Spawn to exit on the monotonic clock, output dropped: nothing else runs in this process meanwhile. */
function timeSpawn(args: readonly string[]): Promise<{ ms: number; code: number | null }> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { stdio: 'ignore' });
    child.on('error', () => resolve({ ms: NaN, code: -1 }));
    child.on('exit', (code) => resolve({ ms: performance.now() - t0, code }));
  });
}

/** Median absolute deviation from the median. */
function mad(values: readonly number[]): number {
  const m = median(values);
  return median(values.map((v) => Math.abs(v - m)));
}

const ms = (v: number) => (Number.isFinite(v) ? `${v.toFixed(1)} ms` : '—');

/** Every command once per round, `rounds` rounds after `warmup` unrecorded ones; spawn walls per command. */
async function interleaved(
  cmds: readonly Cmd[],
  rounds: number,
  warmup: number,
  log: (l: string) => void,
): Promise<Map<Cmd, number[]>> {
  const out = new Map<Cmd, number[]>(cmds.map((c) => [c, []]));
  for (let r = 0; r < warmup + rounds; r++) {
    for (const c of cmds) {
      const t = await timeSpawn(c.args);
      if (t.code !== 0) throw new Error(`${c.label}: exit ${t.code}`);
      if (r >= warmup) out.get(c)!.push(t.ms);
    }
  }
  log(`  ${rounds} rounds of ${cmds.length} commands done`);
  return out;
}

/** hyperfine's repeats of the same commands (each command's runs back to back, as it does). */
async function hyperfine(
  path: string,
  cmds: readonly Cmd[],
  runs: number,
  tmpDir: string,
): Promise<Map<string, { median: number; mean: number; stddev: number }> | string> {
  const json = join(tmpDir, 'hyperfine.json');
  const shell = (a: string) => (/^[\w./:=@,+-]+$/.test(a) ? a : `'${a.replace(/'/g, "'\\''")}'`);
  const r = await runProcess(
    path,
    [
      '-N',
      '--warmup',
      '3',
      '--runs',
      String(runs),
      '--export-json',
      json,
      '--style',
      'none',
      ...cmds.flatMap((c) => ['-n', c.label, [process.execPath, ...c.args].map(shell).join(' ')]),
    ],
    { timeoutMs: 10 * 60_000 },
  );
  if (r.code !== 0) return `failed: ${tail(r, 1)}`;
  const doc = JSON.parse(readFileSync(json, 'utf8')) as {
    results: { command: string; median: number; mean: number; stddev: number }[];
  };
  return new Map(
    doc.results.map((x) => [
      x.command,
      { median: x.median * 1000, mean: x.mean * 1000, stddev: x.stddev * 1000 },
    ]),
  );
}

/** Median ms of each import over `rounds` fresh processes (alone: one module per process; else in order). */
async function importCosts(specs: readonly string[], rounds: number, alone: boolean): Promise<number[]> {
  const per: number[][] = specs.map(() => []);
  for (let r = 0; r < rounds; r++) {
    const groups = alone ? specs.map((s) => [s]) : [specs];
    let k = 0;
    for (const g of groups) {
      const res = await runProcess(process.execPath, [IMPORT_TIME, ...g], { timeoutMs: 60_000 });
      if (res.code !== 0) throw new Error(`import-time ${g.join(' ')}: ${tail(res, 2)}`);
      for (const v of JSON.parse(res.stdout.trim().split('\n').pop()!) as number[]) per[k++]!.push(v);
    }
  }
  return per.map(median);
}

/** The static imports of a built module, in order (type-only imports are gone from the build). */
function staticImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/^import\s[^'"]*?from\s+'(\.{1,2}\/[^']+)'/gm)].map((m) =>
    join(file, '..', m[1]!),
  );
}

export async function startup(ctx: BenchContext, rounds: number) {
  const s = section('startup', '8. Start-up');
  if (!ctx.nginx) s.notes.push(`The 1-byte download is skipped: nginx ${ctx.nginxMissing}.`);
  const oneByte = 'one-byte.bin';
  if (ctx.nginx) writeFileSync(join(ctx.nginx.rootDir, oneByte), Buffer.from([0x2a]));
  const results = join(ctx.tmpDir, 'startup-results.json');
  // BENCH_BASELINE_DIST=<dir>: the same commands through another build, in the same rounds.
  const builds = [
    ['', DIST_DIR],
    ...(process.env.BENCH_BASELINE_DIST ? [[' (baseline build)', process.env.BENCH_BASELINE_DIST]] : []),
  ] as const;
  const cmds: Cmd[] = [{ label: 'node -e 0 (Node itself)', args: ['-e', '0'] }];
  const help: Cmd[] = [];
  const download: Cmd[] = [];
  let entry: Cmd | undefined;
  for (const [tag, dist] of builds) {
    const cli = join(dist, 'cli.js');
    help.push({ label: `blob-cacher --help${tag}`, args: [cli, '--help'] });
    cmds.push(help.at(-1)!, {
      label: `blob-cacher download --help${tag}`,
      args: [cli, 'download', '--help'],
    });
    if (ctx.nginx) {
      // One measured run and no warm-up: a cold start, not a session's stopping rule (which runs a 1-byte
      // object ~100 times).
      const options = [
        '--url',
        ctx.nginx.url(oneByte),
        '--source-method',
        'single',
        '--runs',
        '1',
        '--warmup',
        '0',
        '--results',
        results,
      ];
      download.push({ label: `1-byte download${tag}`, args: [cli, 'download', ...options] });
      cmds.push(download.at(-1)!);
      // The card's own command line for the same download, this build only.
      if (!tag) {
        entry = {
          label: '1-byte download, node dist/download.js',
          args: [join(dist, 'download.js'), ...options],
        };
        cmds.push(entry);
      }
    }
  }
  ctx.log(`case 8a: start-up, ${rounds} interleaved rounds of ${cmds.length} commands`);
  const walls = await interleaved(cmds, rounds, 2, ctx.log);
  rmSync(results, { force: true });
  const hf = tool(ctx, 'hyperfine');
  const hyper = hf.path
    ? await hyperfine(hf.path, cmds, rounds, ctx.tmpDir)
    : `not installed (${hf.missing})`;
  rmSync(results, { force: true });

  const target = (c: Cmd) =>
    help.includes(c) ? HELP_TARGET_MS : download.includes(c) ? DOWNLOAD_TARGET_MS : undefined;
  s.tables.push(
    [
      `| command | runs | median (MAD), interleaved | min–max | over \`node -e 0\`, paired | ` +
        `hyperfine median (mean ± σ) | target |`,
      '| --- | --- | --- | --- | --- | --- | --- |',
      ...cmds.map((c) => {
        const v = walls.get(c)!;
        const h = typeof hyper === 'string' ? undefined : hyper.get(c.label);
        const t = target(c);
        const node = walls.get(cmds[0]!)!;
        const over = c === cmds[0] ? '' : ms(median(v.map((x, i) => x - node[i]!)));
        return (
          `| ${c.label} | ${v.length} | ${ms(median(v))} (${ms(mad(v))}) | ` +
          `${ms(Math.min(...v))}–${ms(Math.max(...v))} | ${over} | ${
            h
              ? `${ms(h.median)} (${h.mean.toFixed(1)} ± ${h.stddev.toFixed(1)} ms)`
              : typeof hyper === 'string'
                ? hyper
                : '—'
          } | ${t ? `<= ${t} ms` : ''} |`
        );
      }),
    ].join('\n'),
  );
  for (const c of [...help, ...download].filter((c) => !c.label.includes('baseline'))) {
    const v = median(walls.get(c)!);
    const t = target(c)!;
    s.goals.push({
      what: `start-up: ${c.label}, process wall`,
      ours: c.label,
      peer: '—',
      ratio: NaN,
      reached: v <= t,
      note: '',
      valueText:
        `${ms(v)} median of ${walls.get(c)!.length} (Node itself: ` + `${ms(median(walls.get(cmds[0]!)!))})`,
      targetText: `<= ${t} ms`,
    });
    if (download.includes(c)) {
      // Over Node's own start, round by round (the same round's `node -e 0`), as a ratio: a loaded machine
      // slows both.
      const node = walls.get(cmds[0]!)!;
      const over = median(walls.get(c)!.map((x, i) => x / node[i]!));
      s.goals.push({
        what: `start-up: ${c.label} over \`node -e 0\``,
        ours: c.label,
        peer: 'node -e 0',
        ratio: NaN,
        reached: over <= DOWNLOAD_TARGET_RATIO,
        note: 'median of per-round ratios',
        valueText: `${over.toFixed(2)}x`,
        targetText: `<= ${DOWNLOAD_TARGET_RATIO}x`,
      });
    }
  }
  if (entry) {
    const ratio = median(walls.get(entry)!.map((x, i) => x / walls.get(download[0]!)![i]!));
    s.goals.push({
      what: 'start-up: `node dist/download.js` over `blob-cacher download`, 1-byte download',
      ours: entry.label,
      peer: download[0]!.label,
      ratio: NaN,
      reached: ratio <= ENTRY_TARGET_RATIO,
      note: 'median of per-round ratios',
      valueText: `${ratio.toFixed(2)}x`,
      targetText: `<= ${ENTRY_TARGET_RATIO}x`,
    });
  }
  if (builds.length > 1) {
    // Paired by round: baseline wall / this build's wall (> 1: this build starts faster).
    const asRow = (c: Cmd): Row =>
      ({ samples: walls.get(c)!.map((v) => ({ ok: true, transferMs: v }) as Sample) }) as Row;
    const pairs = [
      [help[0], help[1]],
      [download[0], download[1]],
    ].filter((p): p is [Cmd, Cmd] => !!p[0] && !!p[1]);
    s.tables.push(
      keyValueTable(
        pairs.map(
          ([now, base]) =>
            [
              `${now.label}: baseline build / this build`,
              ratioText(
                medianIntervalSignTestExact(pairedRatios(asRow(base), asRow(now), (x) => x.transferMs)),
              ),
            ] as const,
        ),
      ),
    );
  }

  ctx.log('case 8b: import costs');
  const importRounds = Math.max(5, Math.min(rounds, 9));
  const pkgAlone = await importCosts(PACKAGES, importRounds, true);
  const floor = (await importCosts(['node:path'], importRounds, true))[0]!;
  const rel = (p: string) => p.slice(DIST_DIR.length + 1);
  s.tables.push(
    `**Packages, each alone in a fresh process** (median of ${importRounds}; an import of an ` +
      `already-loaded builtin takes ${ms(floor)})`,
    keyValueTable(
      PACKAGES.map((p, i) => [p.replace(/^require:/, 'require '), ms(pkgAlone[i]!)] as const).sort(
        (a, b) => parseFloat(b[1]) - parseFloat(a[1]),
      ),
    ),
  );
  // The download command's module, what it loads for a download, and what every forked worker loads.
  for (const file of ['cli/commands/download.js', 'engine/download.js', 'workers/worker.js'].map((f) =>
    join(DIST_DIR, f),
  )) {
    const imports = staticImports(file);
    const alone = await importCosts([file, ...imports], importRounds, true);
    const ordered = await importCosts(imports, importRounds, false);
    s.tables.push(
      `**dist/${rel(file)} and its static imports**: alone (each in a fresh process, with ` +
        `everything it imports) and in order ` +
        `(each after the ones before it, as it loads them: these add up to the whole); median of ` +
        `${importRounds}`,
      [
        '| module | alone | in order |',
        '| --- | --- | --- |',
        `| ${rel(file)} (all of it) | ${ms(alone[0]!)} | ${ms(ordered.reduce((a, b) => a + b, 0))} (sum) |`,
        ...imports.map((p, i) => `| ${rel(p)} | ${ms(alone[i + 1]!)} | ${ms(ordered[i]!)} |`),
      ].join('\n'),
    );
  }
  s.notes.push(
    `Process wall from spawn to exit, measured here with every command once per round (2 ` +
      `unrecorded rounds, then ${rounds}), output dropped; ` +
      'median and median absolute deviation. hyperfine (`-N`, 3 warm-ups) runs the same commands, ' +
      "each one's runs back to back. " +
      `The 1-byte download is \`blob-cacher download --url <nginx>/${oneByte} --source-method ` +
      `single --runs 1 --warmup 0 --results <tmp>\`, a cold start: ` +
      'the coordinator, one forked worker, the GET, verification and the console report. ' +
      (builds.length > 1
        ? `The baseline build is ${process.env.BENCH_BASELINE_DIST} (BENCH_BASELINE_DIST), in the ` +
          `same rounds. `
        : ''),
  );
  return s;
}
