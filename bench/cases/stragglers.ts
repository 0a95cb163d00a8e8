// Case 12: stragglers and hedging. The emulated target (src/emulate/server.ts), hosted
// in this process, stalls one GET in 50 for 500 ms before its first byte; blob-cacher downloads
// from it with and without `--hedge p90`: chunked x16 (one object per run) and many small files
// (each file an object); and round-robin x4, which reads copies from a blob service, from the
// embedded Azurite behind the straggler proxy (src/emulate/straggler-proxy.ts), stalling the same
// way. Object completion p99 and max, the straggler share, and what the duplicates cost.
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { ResultsFile } from '../../dist/results/schema.js';
import { section, type BenchContext } from '../lib/context.ts';
import { DIST_DIR } from '../lib/ours.ts';
import { runProcess, tail } from '../lib/proc.ts';
import { median } from '../../src/analysis/stats.ts';

const MiB = 1024 * 1024;
const STALLS = { every: 50, stallMs: 500, at: 'first-byte' as const, seed: 29 };
const HEDGE = ['--hedge', 'p90'];

interface Config {
  name: string;
  args: string[];
  path: string;
}

export async function stragglers(ctx: BenchContext, runs: number) {
  const s = section(
    'stragglers',
    '12. Stragglers and --hedge (emulated target: 1 GET in 50 stalls 500 ms before its first byte)',
  );
  const { startEmulatedTarget } = (await import(
    join(DIST_DIR, 'emulate/server.js')
  )) as typeof import('../../dist/emulate/server.js');
  completion = (await import(join(DIST_DIR, 'analysis/completion.js'))) as Completion;
  const object = Buffer.alloc(16 * MiB, 7);
  const n = Math.max(runs, 30);
  const configs: Config[] = [
    {
      name: 'chunked x16, 16 MiB',
      args: [
        '--source-method',
        'chunked',
        '--concurrency',
        '16',
        '--file-size',
        '16MiB',
        '--runs',
        String(n),
      ],
      path: '/large.bin',
    },
    {
      name: 'small-files 2,000 x 4 KiB',
      args: [
        '--source-method',
        'small-files',
        '--file-count',
        '2000',
        '--file-size',
        '4KiB',
        '--runs',
        String(Math.max(3, Math.ceil(runs / 2))),
      ],
      path: '/',
    },
  ];
  const rows: string[] = [];
  for (const c of configs) {
    const p99: number[] = [];
    for (const hedged of [false, true]) {
      // A fresh server for each: the same seed, so the same requests of each 50 stall.
      const target = await startEmulatedTarget({
        stragglers: STALLS,
        objects: new Map([['/large.bin', object]]),
      });
      const label = `${c.name}${hedged ? ' --hedge p90' : ''}`;
      const doc = await download(
        ctx,
        s,
        label,
        ['--url', `${target.url}${c.path}`, ...c.args, ...(hedged ? HEDGE : [])],
        {},
        [target.url, '<emulated target>'],
      );
      const stalled = target.log.stalled;
      await target.close();
      if (!doc) continue;
      const done = rowOf(c.name, hedged ? 'p90' : '—', doc, stalled);
      if (!done) continue;
      p99.push(done.p99);
      rows.push(done.row);
    }
    if (p99.length === 2) {
      const ratio = p99[1]! / p99[0]!;
      s.goals.push({
        what: `${c.name}: --hedge p90 object-completion p99 / unhedged`,
        ours: 'hedged',
        peer: 'unhedged',
        ratio,
        reached: ratio <= 0.3,
        note: '',
        valueText: `${ratio.toFixed(2)}x`,
        targetText: '<= 0.3x',
      });
    }
  }
  await roundRobin(ctx, s, rows, n);
  await withoutStragglers(ctx, s, startEmulatedTarget, Math.max(4, Math.ceil(runs / 3)));
  s.commandsNote =
    'as shown, plus `--results <tmp> --format json --log-level warn`; the emulated target is ' +
    'hosted by the suite, a fresh one per line';
  s.tables.push(
    [
      '| configuration | hedge | runs | objects | object p50 ms | object p99 ms | object max ms | ' +
        'straggler share | wall ms (median) | requests | duplicates (extra) | won by the duplicate | ' +
        'stalled by the server |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
      ...rows,
    ].join('\n'),
  );
  s.notes.push(
    'round-robin x4 runs four requests a run in one worker: `--hedge p90` needs at least 10 of ' +
      "them finished (the worker keeps them across the contender's runs), so its first runs are " +
      'never hedged and a stall has 120 requests to hide among; it is also shown with a fixed delay: ' +
      "twice the unhedged runs' p90 time to first byte (at least 10 ms).",
  );
  return s;
}

/**
 * One blob-cacher download (one process, 16 sockets, one warm-up) with `env` beside the caller's
 * own, minus any target settings; its results file, or a note saying why there is none.
 * `shown`: a URL to name by a placeholder in the command printed.
 */
async function download(
  ctx: BenchContext,
  s: ReturnType<typeof section>,
  label: string,
  args: string[],
  env: Record<string, string>,
  shown?: [string, string],
): Promise<ResultsFile | undefined> {
  const results = join(ctx.tmpDir, 'stragglers.json');
  rmSync(results, { force: true });
  const all = [
    join(DIST_DIR, 'cli.js'),
    'download',
    ...args,
    '--processes',
    '1',
    '--max-sockets',
    '16',
    '--warmup',
    '1',
    '--results',
    results,
    '--format',
    'json',
    '--log-level',
    'warn',
  ];
  ctx.log(`case 12: ${label}`);
  const own = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(STORAGE_|AZURE_|URL$|BLOB_CACHER_)/.test(k)),
  );
  const r = await runProcess(process.execPath, all, { env: { ...own, ...env }, timeoutMs: 10 * 60_000 });
  const command = `node dist/cli.js ${all.slice(1, -6).join(' ')}`;
  s.commands.push(
    `${env.STORAGE_CONNECTION_STRING ? 'STORAGE_CONNECTION_STRING="<azurite behind the proxy>" ' : ''}` +
      `${shown ? command.replace(shown[0], shown[1]) : command}`,
  );
  try {
    return JSON.parse(readFileSync(results, 'utf8')) as ResultsFile;
  } catch {
    s.notes.push(`${label}: no results (exit ${r.code}): ${tail(r)}`);
    return undefined;
  }
}

type Completion = typeof import('../../dist/analysis/completion.js');
let completion: Completion | undefined;

/** One table row from a results file, and its object-completion p99. */
/** Where a record row has its firstByte phase (RECORD_COLUMNS: 7 columns, then the phases). */
const RECORD_FIRST_BYTE =
  7 + ['retry', 'wait', 'dns', 'tcp', 'tls', 'send', 'firstByte'].indexOf('firstByte');

function rowOf(
  name: string,
  hedgeText: string,
  doc: ResultsFile,
  stalled: number,
): { row: string; p99: number; firstByteP90: number } | undefined {
  const { objectCompletion, hedgeSummary } = completion!;
  const measured = doc.runs.filter((x) => !x.warmup);
  const done = objectCompletion(measured);
  const hedge = hedgeSummary(measured);
  if (!done) return undefined;
  const requests = measured.reduce((a, x) => a + x.requests, 0);
  // Each request's time to its first byte (the phase after sending): what a first-byte hedge waits on.
  const column = RECORD_FIRST_BYTE;
  const totals = measured.flatMap((x) =>
    x.records.map((row) => row[column]).filter((v): v is number => typeof v === 'number'),
  );
  return {
    p99: done.latencyMs.p99,
    firstByteP90: totals.sort((a, b) => a - b)[Math.floor(totals.length * 0.9)] ?? 0,
    row:
      `| ${name} | ${hedgeText} | ${measured.length} | ${done.latencyMs.count} | ` +
      `${done.latencyMs.p50.toFixed(1)} | ${done.latencyMs.p99.toFixed(1)} | ` +
      `${done.latencyMs.max.toFixed(1)} | ` +
      `${done.stragglerShare === undefined ? '—' : `${(done.stragglerShare * 100).toFixed(0)}%`} | ` +
      `${median(measured.map((x) => x.wallMs)).toFixed(1)} | ${requests} | ` +
      `${hedge ? `${hedge.issued} (${(hedge.extraRequestShare * 100).toFixed(1)}%)` : '—'} | ` +
      `${hedge ? hedge.won : '—'} | ${stalled} |`,
  };
}

/**
 * Without stragglers, what hedging costs: 2,000 x 4 KiB from the emulated target with no stalls,
 * unhedged and `--hedge p90` alternating for `rounds` rounds of 10 runs each (one target for all, so
 * both meet the same server), their runs pooled. The goals: at most 2% extra requests, and no
 * significant slowdown by the verdict's own test (rank test and ratio interval).
 */
async function withoutStragglers(
  ctx: BenchContext,
  s: ReturnType<typeof section>,
  start: typeof import('../../dist/emulate/server.js').startEmulatedTarget,
  rounds: number,
): Promise<void> {
  const { significantlyFaster, ratioInterval } = (await import(
    join(DIST_DIR, 'analysis/significance.js')
  )) as typeof import('../../dist/analysis/significance.js');
  const target = await start({});
  const wall: Record<'none' | 'p90', number[]> = { none: [], p90: [] };
  const cpu: Record<'none' | 'p90', number[]> = { none: [], p90: [] };
  const counts = { requests: 0, issued: 0, won: 0 };
  try {
    for (let round = 0; round < rounds; round++) {
      for (const hedge of ['none', 'p90'] as const) {
        const args = [
          '--url',
          `${target.url}/`,
          '--source-method',
          'small-files',
          '--file-count',
          '2000',
          '--file-size',
          '4KiB',
          '--runs',
          '10',
          ...(hedge === 'p90' ? HEDGE : []),
        ];
        const doc = await download(
          ctx,
          s,
          `no stragglers, round ${round + 1}${hedge === 'p90' ? ' --hedge p90' : ''}`,
          args,
          {},
          [target.url, '<emulated target>'],
        );
        if (round > 0) s.commands.pop();
        if (!doc) continue;
        const measured = doc.runs.filter((x) => !x.warmup);
        wall[hedge].push(...measured.map((x) => x.wallMs));
        cpu[hedge].push(
          ...measured.map((x) => x.workers.reduce((a, w) => a + w.cpuUserMs + w.cpuSystemMs, 0)),
        );
        if (hedge === 'p90') {
          counts.requests += measured.reduce((a, x) => a + x.requests, 0);
          counts.issued += measured.reduce((a, x) => a + (x.hedge?.issued ?? 0), 0);
          counts.won += measured.reduce((a, x) => a + (x.hedge?.won ?? 0), 0);
        }
      }
    }
  } finally {
    await target.close();
  }
  if (!wall.none.length || !wall.p90.length) return;
  const extra = counts.requests ? counts.issued / counts.requests : 0;
  const slower = significantlyFaster(wall.none, wall.p90);
  const interval = ratioInterval(wall.none, wall.p90);
  const ratio = median(wall.p90) / median(wall.none);
  s.tables.push(
    [
      `Without stragglers (2,000 x 4 KiB, no stalls; ${rounds} rounds alternating, 10 runs each, pooled):`,
      '',
      '| hedge | runs | wall ms (median) | worker CPU ms a run (median) | duplicates (extra) | won ' +
        'by the duplicate |',
      '| --- | --- | --- | --- | --- | --- |',
      `| — | ${wall.none.length} | ${median(wall.none).toFixed(1)} | ` +
        `${median(cpu.none).toFixed(1)} | — | — |`,
      `| p90 | ${wall.p90.length} | ${median(wall.p90).toFixed(1)} | ${median(cpu.p90).toFixed(1)} ` +
        `| ${counts.issued} (${(extra * 100).toFixed(2)}%) | ${counts.won} |`,
    ].join('\n'),
  );
  s.goals.push({
    what: 'no stragglers: --hedge p90 extra requests',
    ours: 'hedged',
    peer: 'requests',
    ratio: extra,
    reached: extra <= 0.02,
    note: '',
    valueText: `${(extra * 100).toFixed(2)}%`,
    targetText: '<= 2%',
  });
  s.goals.push({
    what: 'no stragglers: --hedge p90 run time / unhedged',
    ours: 'hedged',
    peer: 'unhedged',
    ratio,
    reached: !slower,
    note: slower ? 'significantly slower' : 'no significant difference',
    valueText: `${ratio.toFixed(3)}x (95% CI ${interval.low.toFixed(3)}-${interval.high.toFixed(3)})`,
    targetText: 'no significant slowdown',
  });
}

/**
 * round-robin x4 of 4 MiB from the embedded Azurite behind the straggler proxy: unhedged, p90, and a fixed
 * delay.
 */
async function roundRobin(
  ctx: BenchContext,
  s: ReturnType<typeof section>,
  rows: string[],
  n: number,
): Promise<void> {
  const { startEmbeddedAzurite } = (await import(
    join(DIST_DIR, 'storage/azurite.js')
  )) as typeof import('../../dist/storage/azurite.js');
  const { startStragglerProxy } = (await import(
    join(DIST_DIR, 'emulate/straggler-proxy.js')
  )) as typeof import('../../dist/emulate/straggler-proxy.js');
  const azurite = await startEmbeddedAzurite();
  const p99: number[] = [];
  let firstByteP90 = 0;
  try {
    for (const hedge of ['none', 'p90', 'fixed']) {
      const proxy = await startStragglerProxy(new URL(azurite.endpoint), STALLS);
      const delay = hedge === 'fixed' ? `${Math.max(10, Math.round(2 * firstByteP90))}ms` : hedge;
      const connection =
        `DefaultEndpointsProtocol=http;AccountName=${azurite.account};AccountKey=${azurite.key};` +
        `BlobEndpoint=${proxy.url}/${azurite.account};`;
      const args = [
        '--source-method',
        'round-robin',
        '--concurrency',
        '4',
        '--file-size',
        '4MiB',
        '--runs',
        String(n),
        ...(hedge === 'none' ? [] : ['--hedge', delay]),
      ];
      const doc = await download(
        ctx,
        s,
        `round-robin x4${hedge === 'none' ? '' : ` --hedge ${delay}`}`,
        args,
        { STORAGE_CONNECTION_STRING: connection },
      );
      const stalled = proxy.log.stalled;
      await proxy.close();
      if (!doc) continue;
      const done = rowOf(
        'round-robin x4, 4 MiB (Azurite behind the proxy)',
        hedge === 'none' ? '—' : delay,
        doc,
        stalled,
      );
      if (!done) continue;
      if (hedge === 'none') firstByteP90 = done.firstByteP90;
      p99.push(done.p99);
      rows.push(done.row);
    }
  } finally {
    await azurite.stop();
  }
  if (p99.length === 3) {
    const ratio = p99[2]! / p99[0]!;
    s.goals.push({
      what: 'round-robin x4: --hedge (fixed) object-completion p99 / unhedged',
      ours: 'hedged',
      peer: 'unhedged',
      ratio,
      reached: ratio <= 0.3,
      note: '',
      valueText: `${ratio.toFixed(2)}x`,
      targetText: '<= 0.3x',
    });
  }
}
