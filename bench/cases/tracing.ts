// Case 4: what per-phase tracing costs: the same chunked download from nginx with --trace true and
// --trace false, alternating; and, where per-request costs add up, the 2400 small-file uploads.
import { alternate } from '../lib/alternate.ts';
import { section, type BenchContext } from '../lib/context.ts';
import { ours } from '../lib/ours.ts';
import { keyValueTable, rowsTable } from '../lib/report.ts';
import { MiB, type Row } from '../lib/sample.ts';
import { smallFiles } from './uploads.ts';

const TRACING_BUDGET = 0.03;

function cost(on: Row | undefined, off: Row | undefined): number {
  return on && off ? on.medianMs / off.medianMs - 1 : NaN;
}

function cpuCost(on: Row | undefined, off: Row | undefined): number {
  return on?.cpuMsPerRun !== undefined && off?.cpuMsPerRun ? on.cpuMsPerRun / off.cpuMsPerRun - 1 : NaN;
}

const pct = (v: number) => (Number.isFinite(v) ? `${(v * 100).toFixed(1)}%` : '—');

export async function tracing(ctx: BenchContext, pairedRuns: number) {
  const s = section('tracing', '4. Tracing cost');
  const pairs: [string, Row[]][] = [];
  if (ctx.nginx) {
    const url = ctx.nginx.url(ctx.largeName);
    const dl = (trace: boolean) => ours(`chunked 16, discard, --trace ${trace}`, {
      command: 'download', tmpDir: ctx.tmpDir,
      args: ['--url', url, '--source-method', 'chunked', '--concurrency', '16', '--max-sockets', '16', '--sink', 'discard', '--trace', String(trace)],
    });
    const contenders = [dl(true), dl(false)];
    for (const c of contenders) c.clock = { clock: ctx.nginx.clock, method: 'GET' };
    ctx.log(`case 4a: tracing on/off, ${ctx.largeSizeBytes / MiB} MiB chunked download`);
    const rows = await alternate(contenders, { runs: pairedRuns, log: ctx.log });
    pairs.push([`download ${ctx.largeSizeBytes / MiB} MiB from nginx (16 requests)`, rows]);
    s.tables.push(`**Download ${ctx.largeSizeBytes / MiB} MiB from nginx, chunked 16, discard**`, rowsTable(rows, { rss: false, cpu: true }));
    s.rows.push(rows);
    for (const c of contenders) s.commands.push(c.command);
  } else {
    s.notes.push(`Download part skipped: nginx ${ctx.nginxMissing}.`);
  }
  const up = [
    ctx.azurite.fresh(smallFiles(ctx, 'small-files 1x64, --trace true', 'small-files', 1, 64, ['--trace', 'true'])),
    ctx.azurite.fresh(smallFiles(ctx, 'small-files 1x64, --trace false', 'small-files', 1, 64, ['--trace', 'false'])),
  ];
  for (const c of up) c.clock = { clock: ctx.azurite.clock, method: 'PUT' };
  ctx.log('case 4b: tracing on/off, 2400 small-file uploads');
  const upRows = await alternate(up, { runs: pairedRuns, log: ctx.log });
  pairs.push(['2400 x 100 KiB uploads to Azurite (2400 requests)', upRows]);
  s.tables.push('**2400 x 100 KiB small-file uploads to Azurite, 1x64**', rowsTable(upRows, { ops: true, rss: false, cpu: true }));
  s.rows.push(upRows);
  for (const c of up) s.commands.push(`STORAGE_CONNECTION_STRING="<azurite>" ${c.command}`);

  s.notes.push(
    `Cost = median with tracing / median without − 1 (negative: tracing measured faster, i.e. noise). Budget: <= ${TRACING_BUDGET * 100}%. ` +
    'Runs alternate on/off. The same ratio of worker CPU time per run (user + system, from the results files) is steadier than wall time on a shared machine, so it is shown too. ' +
    'The download has only 16 requests, so per-request tracing is a small share of it by construction; the upload, with 2400 requests, is the stricter test.',
  );
  s.tables.push(keyValueTable(pairs.map(([what, rows]) => {
    const c = cost(rows[0], rows[1]);
    const spreadPct = rows[1] ? (rows[1].maxMs - rows[1].minMs) / rows[1].medianMs : NaN;
    return [what, `wall ${pct(c)}, worker CPU ${pct(cpuCost(rows[0], rows[1]))} (wall spread without tracing, min to max: ${pct(spreadPct)})`] as const;
  })));
  for (const [what, rows] of pairs) {
    const c = cost(rows[0], rows[1]);
    s.goals.push({
      what: `tracing cost <= 3%: ${what}`, ours: rows[0]?.label ?? '—', peer: rows[1]?.label ?? '—', ratio: NaN,
      reached: Number.isFinite(c) ? c <= TRACING_BUDGET : undefined, note: '',
      valueText: `wall ${pct(c)}, CPU ${pct(cpuCost(rows[0], rows[1]))}`, targetText: `<= ${TRACING_BUDGET * 100}%`,
    });
  }
  return s;
}
