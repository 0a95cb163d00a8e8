// Case 12: stragglers and hedging (issue 29). The emulated target (src/emulate/server.ts), hosted
// in this process, stalls one GET in 50 for 500 ms before its first byte; blob-cacher downloads
// from it with and without `--hedge p90`: chunked x16 (one object per run) and many small files
// (each file an object). Object completion p99 and max, the straggler share, and what the
// duplicates cost. round-robin needs a blob service's copies, which the emulated target is not.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ResultsFile } from '../../dist/results/schema.js';
import { section, type BenchContext } from '../lib/context.ts';
import { DIST_DIR } from '../lib/ours.ts';
import { runProcess, tail } from '../lib/proc.ts';
import { median } from '../lib/sample.ts';

const MiB = 1024 * 1024;
const STALLS = { every: 50, stallMs: 500, at: 'first-byte' as const, seed: 29 };
const HEDGE = ['--hedge', 'p90'];

interface Config {
  name: string;
  args: string[];
  path: string;
}

export async function stragglers(ctx: BenchContext, runs: number) {
  const s = section('stragglers', '12. Stragglers and --hedge (emulated target: 1 GET in 50 stalls 500 ms before its first byte)');
  const { startEmulatedTarget } = await import(join(DIST_DIR, 'emulate/server.js')) as typeof import('../../dist/emulate/server.js');
  const { objectCompletion, hedgeSummary } = await import(join(DIST_DIR, 'analysis/completion.js')) as typeof import('../../dist/analysis/completion.js');
  const object = Buffer.alloc(16 * MiB, 7);
  const n = Math.max(runs, 30);
  const configs: Config[] = [
    { name: 'chunked x16, 16 MiB', args: ['--source-method', 'chunked', '--concurrency', '16', '--file-size', '16MiB', '--runs', String(n)], path: '/large.bin' },
    { name: 'small-files 2,000 x 4 KiB', args: ['--source-method', 'small-files', '--file-count', '2000', '--file-size', '4KiB', '--runs', String(Math.max(3, Math.ceil(runs / 2)))], path: '/' },
  ];
  const rows: string[] = [];
  for (const c of configs) {
    const p99: number[] = [];
    for (const hedged of [false, true]) {
      // A fresh server for each: the same seed, so the same requests of each 50 stall.
      const target = await startEmulatedTarget({ stragglers: STALLS, objects: new Map([['/large.bin', object]]) });
      const results = join(ctx.tmpDir, `stragglers-${p99.length}-${c.path === '/' ? 'files' : 'chunked'}.json`);
      rmSync(results, { force: true });
      const args = [join(DIST_DIR, 'cli.js'), 'download', '--url', `${target.url}${c.path}`, ...c.args, ...(hedged ? HEDGE : []),
        '--processes', '1', '--max-sockets', '16', '--warmup', '1', '--results', results, '--format', 'json', '--log-level', 'warn'];
      ctx.log(`case 12: ${c.name}${hedged ? ' --hedge p90' : ''}`);
      const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(STORAGE_|AZURE_|URL$|BLOB_CACHER_)/.test(k)));
      const r = await runProcess(process.execPath, args, { env, timeoutMs: 10 * 60_000 });
      const stalled = target.log.stalled;
      await target.close();
      let doc: ResultsFile;
      try {
        doc = JSON.parse(readFileSync(results, 'utf8')) as ResultsFile;
      } catch {
        s.notes.push(`${c.name}${hedged ? ' hedged' : ''}: no results (exit ${r.code}): ${tail(r)}`);
        continue;
      }
      const measured = doc.runs.filter((x) => !x.warmup);
      const done = objectCompletion(measured);
      const hedge = hedgeSummary(measured);
      if (!done) continue;
      p99.push(done.latencyMs.p99);
      const requests = measured.reduce((a, x) => a + x.requests, 0);
      rows.push(`| ${c.name} | ${hedged ? 'p90' : '—'} | ${measured.length} | ${done.latencyMs.count} | ${done.latencyMs.p50.toFixed(1)} | ${done.latencyMs.p99.toFixed(1)} | ${done.latencyMs.max.toFixed(1)} | ` +
        `${done.stragglerShare === undefined ? '—' : `${(done.stragglerShare * 100).toFixed(0)}%`} | ${median(measured.map((x) => x.wallMs)).toFixed(1)} | ${requests} | ` +
        `${hedge ? `${hedge.issued} (${(hedge.extraRequestShare * 100).toFixed(1)}%)` : '—'} | ${hedge ? hedge.won : '—'} | ${stalled} |`);
      s.commands.push(`node dist/cli.js ${args.slice(1, -6).join(' ').replace(target.url, '<emulated target>')}`);
    }
    if (p99.length === 2) {
      const ratio = p99[1]! / p99[0]!;
      s.goals.push({ what: `${c.name}: --hedge p90 object-completion p99 / unhedged`, ours: 'hedged', peer: 'unhedged', ratio, reached: ratio <= 0.3, note: '', valueText: `${ratio.toFixed(2)}x`, targetText: '<= 0.3x' });
    }
  }
  s.commandsNote = 'as shown, plus `--results <tmp> --format json --log-level warn`; the emulated target is hosted by the suite, a fresh one per line';
  s.tables.push([
    '| configuration | hedge | runs | objects | object p50 ms | object p99 ms | object max ms | straggler share | wall ms (median) | requests | duplicates (extra) | won by the duplicate | stalled by the server |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n'));
  s.notes.push('round-robin x4 is not in this case: it reads copies of a blob from a blob service, and the emulated target is a plain HTTP server.');
  return s;
}
