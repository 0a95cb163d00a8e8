// Case 4: what per-phase tracing costs: the same chunked download from nginx with --trace true and
// --trace false, alternating; and, where per-request costs add up, the 2400 small-file uploads.
import { alternate } from '../lib/alternate.ts';
import { section, type BenchContext } from '../lib/context.ts';
import { ours } from '../lib/ours.ts';
import { keyValueTable, rowsTable } from '../lib/report.ts';
import { median, MiB, type Row, type Sample } from '../lib/sample.ts';
import { smallFiles } from './uploads.ts';

const TRACING_BUDGET = 0.03;

/** Worker CPU (user + system) of one of our runs, from its results file. */
function workerCpuMs(sample: Sample): number | undefined {
  return sample.ok && sample.run ? sample.run.workers.reduce((t, w) => t + w.cpuUserMs + w.cpuSystemMs, 0) : undefined;
}

/**
 * Paired costs: round i ran tracing on and off back to back, so on_i / off_i − 1 cancels the drift a
 * shared machine has from minute to minute; the median over rounds is the cost.
 */
function pairedCost(on: Row | undefined, off: Row | undefined, measure: (s: Sample) => number | undefined): number {
  if (!on || !off) return NaN;
  const ratios: number[] = [];
  for (let i = 0; i < Math.min(on.samples.length, off.samples.length); i++) {
    const a = measure(on.samples[i]!);
    const b = measure(off.samples[i]!);
    if (a !== undefined && b !== undefined && b > 0) ratios.push(a / b - 1);
  }
  return median(ratios);
}

const wallMs = (s: Sample) => (s.ok ? s.transferMs : undefined);

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
    `Runs alternate on/off, so each round is a pair run back to back. Cost = the median over rounds of (with tracing / without − 1), ` +
    'for the worker CPU time (user + system, from the results files) and for the wall time. Budget: <= ' + `${TRACING_BUDGET * 100}%, judged on CPU: ` +
    'tracing is CPU work in the client, the CPU time of a run varies little, and on this shared 2-core machine the wall time of the same run varies by ' +
    '15–80% from one minute to the next (spread shown), more than any 3% could be told from. A negative cost is noise. ' +
    'The download has only 16 requests, so per-request tracing is a small share of it by construction; the upload, with 2400 requests, is the stricter test.',
  );
  const costs = pairs.map(([what, rows]) => ({
    what, rows,
    cpu: pairedCost(rows[0], rows[1], workerCpuMs),
    wall: pairedCost(rows[0], rows[1], wallMs),
    spread: rows[1] ? (rows[1].maxMs - rows[1].minMs) / rows[1].medianMs : NaN,
  }));
  s.tables.push(keyValueTable(costs.map((c) => [c.what, `worker CPU ${pct(c.cpu)}, wall ${pct(c.wall)} (wall spread without tracing, min to max: ${pct(c.spread)})`] as const)));
  for (const c of costs) {
    s.goals.push({
      what: `tracing cost <= 3%: ${c.what}`, ours: c.rows[0]?.label ?? '—', peer: c.rows[1]?.label ?? '—', ratio: NaN,
      reached: Number.isFinite(c.cpu) ? c.cpu <= TRACING_BUDGET : undefined, note: '',
      valueText: `CPU ${pct(c.cpu)}, wall ${pct(c.wall)} (paired medians)`, targetText: `<= ${TRACING_BUDGET * 100}% CPU`,
    });
  }
  return s;
}
