// Case 13: what --metrics costs a request. Steady runs of 16 KiB GETs from nginx with and without live
// metrics (a line-protocol file and an Influx stand-in in this process), alternating, so each round
// is a pair. The points are made by the coordinator from messages the workers send anyway: the
// workers' CPU per request should not move, and the pairs' ratio says whether it did.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { alternate } from '../lib/alternate.ts';
import { section, type BenchContext } from '../lib/context.ts';
import { ours, writeFixtureFile } from '../lib/ours.ts';
import { pairedRatios, quartiles } from '../lib/paired.ts';
import { keyValueTable, rowsTable } from '../lib/report.ts';
import { median } from '../../src/analysis/stats.ts';
import type { Sample } from '../lib/sample.ts';

/** A paired median above this, with quartiles that exclude 1, is a cost. */
const CPU_BUDGET = 0.03;
const SMALL_NAME = 'live-metrics-16k.bin';

/** Worker CPU (user + system) per request, in µs, of one of our runs. */
function cpuPerRequestUs(s: Sample): number | undefined {
  if (!s.ok || !s.run || s.run.requests === 0) return undefined;
  return (s.run.workers.reduce((t, w) => t + w.cpuUserMs + w.cpuSystemMs, 0) * 1000) / s.run.requests;
}

const pct = (v: number) => (Number.isFinite(v) ? `${(v * 100).toFixed(1)}%` : '—');

export async function liveMetrics(ctx: BenchContext, pairedRuns: number) {
  const s = section('live-metrics', '13. Live metrics cost');
  if (!ctx.nginx) {
    s.notes.push(`Skipped: nginx ${ctx.nginxMissing}.`);
    return s;
  }
  await writeFixtureFile(join(ctx.nginx.rootDir, SMALL_NAME), 16 * 1024);
  // An Influx stand-in: takes each batch and answers 204, as InfluxDB's write endpoint does.
  let batches = 0;
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      batches++;
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', ok));
  const influx =
    `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/api/v2/write?org=` + `bench&bucket=bench`;
  try {
    const base = [
      '--url',
      ctx.nginx.url(SMALL_NAME),
      '--source-method',
      'single',
      '--processes',
      '1',
      '--duration',
      '5s',
      '--interval',
      '250ms',
      '--sink',
      'discard',
    ];
    const withMetrics = [
      '--metrics',
      `influx=${join(ctx.tmpDir, 'live-metrics.lp')}`,
      '--metrics',
      `influx=${influx}`,
    ];
    const contenders = [
      ours('16 KiB GETs, steady 5 s, --metrics file + URL', {
        command: 'download',
        tmpDir: ctx.tmpDir,
        warmup: 1,
        args: [...base, ...withMetrics],
      }),
      ours('16 KiB GETs, steady 5 s, no --metrics', {
        command: 'download',
        tmpDir: ctx.tmpDir,
        warmup: 1,
        args: base,
      }),
    ];
    ctx.log('case 13: live metrics on/off, steady 16 KiB GETs from nginx');
    const rows = await alternate(contenders, { runs: pairedRuns, log: ctx.log });
    s.tables.push(
      '**Steady 16 KiB GETs from nginx, 5 s, --interval 250ms**',
      rowsTable(rows, { ops: true, rss: false, cpu: true }),
    );
    s.rows.push(rows);
    for (const c of contenders) s.commands.push(c.command);
    const ratios = pairedRatios(rows[0], rows[1], cpuPerRequestUs);
    const cost = median(ratios) - 1;
    const [q1, q3] = quartiles(ratios).map((r) => r - 1) as [number, number];
    const perRequest = (i: number) =>
      median((rows[i]?.samples ?? []).map(cpuPerRequestUs).filter((v): v is number => v !== undefined));
    s.tables.push(
      keyValueTable([
        [
          'worker CPU per request',
          `with --metrics ${perRequest(0).toFixed(2)} µs, without ${perRequest(1).toFixed(2)} µs`,
        ],
        [
          'paired cost (with / without − 1)',
          `${pct(cost)} (pairs' quartiles ${pct(q1)} to ${pct(q3)}, ${ratios.length} pairs)`,
        ],
        ['batches the stand-in received', String(batches)],
      ]),
    );
    s.notes.push(
      "Each round runs both back to back (a warm-up run first), so a pair shares the machine's " +
        'state. The figure is the ' +
        "workers' own CPU (user + system, from the results file) per request: live metrics add " +
        'nothing to a worker, so a ' +
        'cost shows as a paired median above the budget with quartiles that exclude no cost.',
    );
    s.goals.push({
      what: `--metrics adds <= ${CPU_BUDGET * 100}% worker CPU per request`,
      ours: rows[0]?.label ?? '—',
      peer: rows[1]?.label ?? '—',
      ratio: NaN,
      reached: Number.isFinite(cost) ? !(cost > CPU_BUDGET && q1 > 0) : undefined,
      note: '',
      valueText: `paired ${pct(cost)} (quartiles ${pct(q1)} to ${pct(q3)})`,
      targetText: `<= ${CPU_BUDGET * 100}% or not significant`,
    });
  } finally {
    receiver.closeAllConnections();
    await new Promise<void>((ok) => receiver.close(() => ok()));
  }
  return s;
}
