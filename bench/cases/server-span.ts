// Case 11: the ranked span against the server's own. blob-cacher's zero-config download
// (its embedded Azurite, which records the span of the data requests it served) with warm
// connections, `single`, `chunked` and the SDK's downloadToBuffer, at three sizes: how far each
// contender's ranked time (first request's start to last response's end) lies above the server's.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ResultsFile } from '../../dist/results/schema.js';
import { section, type BenchContext } from '../lib/context.ts';
import { DIST_DIR } from '../lib/ours.ts';
import { runProcess, tail } from '../lib/proc.ts';
import { median } from '../../src/analysis/stats.ts';

const SIZES_MIB = [16, 80, 320];
const STRATEGIES = ['single', 'chunked', 'sdk'];
const WITHIN = 0.03;

export async function serverSpan(ctx: BenchContext, runs: number) {
  const s = section(
    'server-span',
    "11. Ranked span against the server's own (embedded Azurite, warm connections)",
  );
  const rows: string[] = [];
  const n = Math.max(runs, 5);
  for (const sizeMiB of SIZES_MIB) {
    const results = join(ctx.tmpDir, `server-span-${sizeMiB}.json`);
    rmSync(results, { force: true });
    const args = [
      join(DIST_DIR, 'cli.js'),
      'download',
      '--source-method',
      STRATEGIES.join(','),
      '--file-size',
      `${sizeMiB}MiB`,
      '--connections',
      'warm',
      '--runs',
      String(n),
      '--warmup',
      '1',
      '--results',
      results,
      '--format',
      'json',
      '--log-level',
      'warn',
    ];
    ctx.log(`case 11: ${sizeMiB} MiB, ${STRATEGIES.join(', ')}, ${n} runs each`);
    // No credentials: the zero-config embedded Azurite, whose clock the results carry.
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !/^(STORAGE_|AZURE_|URL$|BLOB_CACHER_)/.test(k)),
    );
    const r = await runProcess(process.execPath, args, { env, timeoutMs: 10 * 60_000 });
    let doc: ResultsFile;
    try {
      doc = JSON.parse(readFileSync(results, 'utf8')) as ResultsFile;
    } catch {
      s.notes.push(`${sizeMiB} MiB: no results (exit ${r.code}): ${tail(r)}`);
      continue;
    }
    for (const strategy of STRATEGIES) {
      const measured = doc.runs.filter(
        (x) => x.strategy === strategy && !x.warmup && x.verified && x.serverSpanMs,
      );
      if (!measured.length) continue;
      const client = median(measured.map((x) => x.wallMs));
      const server = median(measured.map((x) => x.serverSpanMs!));
      const gapMs = median(measured.map((x) => x.wallMs - x.serverSpanMs!));
      const gap = median(measured.map((x) => x.wallMs / x.serverSpanMs! - 1));
      rows.push(
        `| ${sizeMiB} MiB | ${strategy} | ${measured.length} | ${client.toFixed(1)} | ` +
          `${server.toFixed(1)} | ${gapMs.toFixed(1)} | ${(gap * 100).toFixed(1)}% | ` +
          `${(sizeMiB / (client / 1000)).toFixed(0)} |`,
      );
      s.goals.push({
        what: `${sizeMiB} MiB ${strategy}: ranked span within 3% of the server's`,
        ours: strategy,
        peer: '—',
        ratio: NaN,
        reached: gap <= WITHIN,
        note: '',
        valueText: `+${(gap * 100).toFixed(1)}% (+${gapMs.toFixed(1)} ms)`,
        targetText: '<= 3%',
      });
    }
    s.commands.push(`node dist/cli.js ${args.slice(1, -6).join(' ')}`);
  }
  s.commandsNote =
    'as shown, each call all the runs of one size, plus `--results <tmp> --format json --log-level ' +
    'warn`, without credentials';
  s.tables.push(
    [
      '| size | contender | runs | client ms (median) | server ms (median) | gap ms (median) | gap ' +
        '% (median) | MiB/s |',
      '| --- | --- | --- | --- | --- | --- | --- | --- |',
      ...rows,
    ].join('\n'),
  );
  s.notes.push(
    "The server's span runs from the first data request's arrival to the moment its last response " +
      "was handed to the kernel; the client's " +
      "ends when it has read that response, so the bytes still in the sockets' buffers at that " +
      'moment (a few MiB on loopback) are the gap, ' +
      "read at the client's own rate: a roughly fixed number of milliseconds (more for a slower " +
      'reader), a large share of a short transfer ' +
      'and a small one of a long transfer.',
  );
  return s;
}
