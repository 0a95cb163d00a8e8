// Case 14: open-loop load against a closed-loop bar. wrk's closed-loop maximum rate of 1 KiB GETs
// from the suite's nginx (one thread, 32 connections), then ours with `--rate` at rising shares of
// that rate (one process, 32 in flight), each step's offered and achieved rate, skipped sends and
// send lateness (send time minus intended start) from its results file. The highest rate ours holds
// (under 1% skipped, no failed request, its schedule kept) is the answer, as a ratio to wrk's maximum.
import { writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type * as OpenLoop from '../../dist/analysis/open-loop.js';
import type { OpenLoopRecord } from '../../dist/results/schema.js';
import { median } from '../../src/analysis/stats.ts';
import { section, tool, type BenchContext } from '../lib/context.ts';
import { commandLine, distImport, runOurs } from '../lib/ours.ts';
import { runProcess, tail } from '../lib/proc.ts';
import { markdownTable, type GoalResult } from '../lib/report.ts';

const FILE_NAME = 'open-loop/1k';
const FILE_BYTES = 1024;
/** wrk's connections, ours' --max-in-flight and --max-sockets: the same number of requests at once. */
const CONNECTIONS = 32;
const DURATION_S = 5;
/**
 * The rates tried, as shares of wrk's maximum: from 1/256 up by a factor of sqrt(2) until
 * MISSES_TO_STOP steps in a row are not held, then BISECTIONS geometric midpoints between the highest
 * rate held and the step above it, so the answer is within about 9% of the highest rate held.
 */
const FIRST_SHARE = 1 / 256;
const STEP_FACTOR = Math.SQRT2;
const BISECTIONS = 2;
const MISSES_TO_STOP = 2;
/** Ours holds a rate when fewer than this share of its offered sends were skipped (and none failed). */
const MAX_SKIPPED_SHARE = 0.01;
/**
 * ...and it kept its schedule: half its sends no later than this. A client slower than the rate does
 * not skip (its lanes are free) but sends ever later, catching up after the schedule's end, and its
 * achieved rate, counted over the schedule, looks like the offered one.
 */
const MAX_LATENESS_P50_MS = 5;
const GOAL_RATIO = 0.5;
const GOAL_LATENESS_P99_MS = 1;

interface WrkRun {
  ok: boolean;
  perSecond: number;
  error?: string;
}

/** wrk -t1 -c32 -d5s: its own Requests/sec; a non-2xx answer fails the run. */
async function wrkMax(wrkPath: string, url: string): Promise<WrkRun> {
  const r = await runProcess(wrkPath, ['-t1', `-c${CONNECTIONS}`, `-d${DURATION_S}s`, url]);
  if (r.code !== 0) return { ok: false, perSecond: NaN, error: `wrk exit ${r.code}: ${tail(r, 1)}` };
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(r.stdout);
  if (!rps) return { ok: false, perSecond: NaN, error: `wrk printed no Requests/sec: ${tail(r, 2)}` };
  const non2xx = /Non-2xx or 3xx responses: \d+/.exec(r.stdout);
  if (non2xx) return { ok: false, perSecond: NaN, error: `wrk: ${non2xx[0]}` };
  return { ok: true, perSecond: Number(rps[1]) };
}

interface Step {
  share: number;
  ratePerSecond: number;
  summary?: OpenLoop.OpenLoopSummary;
  failed?: string;
  held: boolean;
}

const ms = (v: number | undefined) => (v === undefined ? '—' : v.toFixed(2));
const perS = (v: number) => (Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : '—');

export async function openLoop(ctx: BenchContext) {
  const title = "14. Open loop: 1 KiB GETs from nginx at rising --rate, beside wrk's closed-loop maximum";
  const s = section('open-loop', title);
  const wrk = tool(ctx, 'wrk');
  if (!ctx.nginx || !wrk.path) {
    const why = ctx.nginx ? `wrk ${wrk.missing ?? 'not installed'}` : `nginx ${ctx.nginxMissing}`;
    s.notes.push(`Skipped: ${why}.`);
    return s;
  }
  const path = join(ctx.nginx.rootDir, FILE_NAME);
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, Buffer.alloc(FILE_BYTES, 0x5a));
  const url = ctx.nginx.url(FILE_NAME);
  const { openLoopSummary } = await distImport<typeof OpenLoop>('analysis/open-loop.js');

  // wrk before and after the ladder, ctx.runs times each: the bar is their median, and the spread
  // between them shows how much the machine's load moved while ours ran.
  const wrkRuns: WrkRun[] = [];
  const measureWrk = async (when: string) => {
    for (let run = 0; run < ctx.runs; run++) {
      const w = await wrkMax(wrk.path!, url);
      ctx.log(`case 14: wrk ${when} ${w.ok ? `${Math.round(w.perSecond)}/s` : w.error}`);
      wrkRuns.push(w);
    }
  };
  await measureWrk('before');
  const firstWrk = wrkRuns.filter((w) => w.ok).map((w) => w.perSecond);
  if (!firstWrk.length) {
    s.notes.push(`wrk failed (${wrkRuns[0]?.error ?? '?'}): no bar to set the rates from.`);
    return s;
  }
  const bar0 = median(firstWrk);

  const common = [
    '--url',
    url,
    '--source-method',
    'single',
    '--duration',
    `${DURATION_S}s`,
    '--processes',
    '1',
  ];
  const sockets = ['--max-sockets', String(CONNECTIONS)];
  const argsAt = (ratePerSecond: number) => [
    ...common,
    '--rate',
    `${ratePerSecond}/s`,
    '--max-in-flight',
    String(CONNECTIONS),
    ...sockets,
  ];
  const steps: Step[] = [];
  const measureRate = async (share: number): Promise<Step> => {
    // Whole rates, from the first wrk runs' median: the ladder is fixed by them, before ours runs.
    const ratePerSecond = Math.max(1, Math.round(bar0 * share));
    const records: OpenLoopRecord[] = [];
    let failed: string | undefined;
    for (let run = 0; run < ctx.runs; run++) {
      const tag = `open-loop-${ratePerSecond}-${run}`;
      const args = argsAt(ratePerSecond);
      const sample = await runOurs({ command: 'download', args, tmpDir: ctx.tmpDir, tag });
      if (!sample.ok) failed ??= sample.error ?? 'failed';
      if (sample.run?.openLoop) records.push(sample.run.openLoop);
      else failed ??= 'no open-loop record in the results file';
    }
    const summary = openLoopSummary(records.map((openLoop) => ({ warmup: false, openLoop })));
    const held =
      !failed &&
      summary !== undefined &&
      summary.skippedShare < MAX_SKIPPED_SHARE &&
      (summary.latenessMs?.p50 ?? Infinity) <= MAX_LATENESS_P50_MS;
    const step: Step = {
      share,
      ratePerSecond,
      held,
      ...(summary ? { summary } : {}),
      ...(failed ? { failed } : {}),
    };
    steps.push(step);
    const skipped = ((summary?.skippedShare ?? NaN) * 100).toFixed(2);
    ctx.log(
      `case 14: --rate ${ratePerSecond}/s: achieved ${perS(summary?.achievedPerSecond ?? NaN)}/s, ` +
        `skipped ${skipped}%, lateness p99 ${ms(summary?.latenessMs?.p99)} ms` +
        `${failed ? `, failed: ${failed}` : ''}`,
    );
    return step;
  };
  // On a shared machine one stall of 32/rate seconds (50 ms at 640/s) fills every lane and can skip
  // 1% of a low rate's sends, so one rate not held does not end the ladder: two in a row do.
  let heldShare = 0;
  let notHeldShare: number | undefined;
  let missesInRow = 0;
  for (let share = FIRST_SHARE; share <= 1 + 1e-9 && missesInRow < MISSES_TO_STOP; share *= STEP_FACTOR) {
    if ((await measureRate(share)).held) {
      heldShare = share;
      notHeldShare = undefined;
      missesInRow = 0;
    } else {
      notHeldShare ??= share;
      missesInRow++;
    }
  }
  // Between the highest rate held and the step above it; none where nothing was held.
  for (let i = 0; i < BISECTIONS && heldShare > 0 && notHeldShare !== undefined; i++) {
    const mid = Math.sqrt(heldShare * notHeldShare);
    if ((await measureRate(mid)).held) heldShare = mid;
    else notHeldShare = mid;
  }
  steps.sort((a, b) => a.ratePerSecond - b.ratePerSecond);

  // Ours closed-loop, the same sockets and time: the client's own ceiling for this request, so that
  // the report shows whether the open loop's limit is its scheduling or the client.
  const closedArgs = [...common, ...sockets];
  const closedRates: number[] = [];
  for (let run = 0; run < ctx.runs; run++) {
    const tag = `closed-loop-${run}`;
    const c = await runOurs({ command: 'download', args: closedArgs, tmpDir: ctx.tmpDir, tag });
    if (c.ok && c.transferMs > 0) closedRates.push((c.requests / c.transferMs) * 1000);
    const got = c.ok ? `${perS(closedRates.at(-1)!)}/s` : `failed: ${c.error ?? ''}`;
    ctx.log(`case 14: ours closed loop ${got}`);
  }
  const closed = closedRates.length ? median(closedRates) : NaN;
  await measureWrk('after');
  const bar = median(wrkRuns.filter((w) => w.ok).map((w) => w.perSecond));

  const wrkRows = wrkRuns.map((w, i) => [
    `${i < ctx.runs ? 'before' : 'after'} the ladder, run ${(i % ctx.runs) + 1}`,
    w.ok ? perS(w.perSecond) : `failed: ${w.error ?? ''}`,
  ]);
  const stepRows = steps.map((st) => {
    const o = st.summary;
    return [
      `${st.ratePerSecond}/s`,
      st.share.toFixed(3),
      perS(o?.offeredPerSecond ?? NaN),
      perS(o?.achievedPerSecond ?? NaN),
      o ? `${o.skippedSends} (${(o.skippedShare * 100).toFixed(2)}%)` : '—',
      ms(o?.latenessMs?.p50),
      ms(o?.latenessMs?.p99),
      ms(o?.fromSendMs?.p99),
      ms(o?.fromIntendedMs?.p99),
      st.held ? 'yes' : `no${st.failed ? ` (failed: ${st.failed.slice(0, 120)})` : ''}`,
    ];
  });
  s.tables.push(
    markdownTable([`wrk -t1 -c${CONNECTIONS} -d${DURATION_S}s`, 'Requests/sec'], wrkRows),
    markdownTable(
      [
        '--rate',
        'x wrk',
        'offered/s',
        'achieved/s',
        'skipped',
        'lateness p50 ms',
        'lateness p99 ms',
        'from send p99 ms',
        'from intended p99 ms',
        'held',
      ],
      stepRows,
    ),
  );

  // The highest rate held, whatever lower rates a stall made skip.
  const top = steps.filter((st) => st.held).at(-1);
  const achieved = top?.summary?.achievedPerSecond ?? 0;
  const ratio = achieved / bar;
  const lateness = top?.summary?.latenessMs?.p99;
  const oursText = top ? `--rate ${top.ratePerSecond}/s` : 'no rate held';
  const peer = `wrk -t1 -c${CONNECTIONS}`;
  const goals: GoalResult[] = [
    {
      what:
        `open-loop rate held (< 1% skipped, on schedule) >= ${GOAL_RATIO}x wrk's closed-loop max ` +
        `(1 KiB GETs, nginx, ${CONNECTIONS} at once)`,
      ours: oursText,
      peer,
      ratio,
      reached: top !== undefined && ratio >= GOAL_RATIO,
      note: '',
      valueText: `${ratio.toFixed(2)}x (${perS(achieved)}/s of ${perS(bar)}/s)`,
      targetText: `>= ${GOAL_RATIO}x`,
    },
    {
      what: 'send lateness p99 (send time minus intended start) at that rate',
      ours: oursText,
      peer: '—',
      ratio: NaN,
      reached: lateness === undefined ? false : lateness < GOAL_LATENESS_P99_MS,
      note: lateness === undefined ? 'no rate held' : '',
      valueText: lateness === undefined ? '—' : `${ms(lateness)} ms`,
      targetText: `< ${GOAL_LATENESS_P99_MS} ms`,
    },
    {
      what: `info: ours closed-loop (no --rate, ${CONNECTIONS} sockets, ${DURATION_S} s) vs wrk`,
      ours: 'ours closed loop',
      peer,
      ratio: closed / bar,
      reached: undefined,
      note: '',
      valueText: `${(closed / bar).toFixed(2)}x (${perS(closed)}/s of ${perS(bar)}/s)`,
      targetText: '(info)',
    },
  ];
  s.goals.push(...goals);

  s.notes.push(
    `wrk GETs \`/${FILE_NAME}\` (${FILE_BYTES} B) from the suite's nginx in one thread over ` +
      `${CONNECTIONS} connections for ${DURATION_S} s, ${ctx.runs} run(s) before and ${ctx.runs} ` +
      `after ours: ` +
      "a closed loop, its Requests/sec the machine's maximum for this request. The bar is the median of " +
      `all of them; the ladder's rates are shares of the runs before (${perS(bar0)}/s).`,
    `Ours is one process (\`--processes 1\`, as wrk's one thread), \`--max-in-flight ${CONNECTIONS} ` +
      `--max-sockets ${CONNECTIONS}\`, uniform arrivals, ${DURATION_S} s per rate (\`--duration\`), ` +
      `${ctx.runs} run(s) per rate, counts and histograms added over runs; its figures are the results ` +
      "file's `openLoop` record. A rate is held with under " +
      `${MAX_SKIPPED_SHARE * 100}% of its offered sends skipped, no failed request and send ` +
      `lateness p50 at most ${MAX_LATENESS_P50_MS} ms (the client kept its schedule). ` +
      `The ladder rises from 1/256 of wrk's rate by sqrt(2) until ${MISSES_TO_STOP} rates in a row are ` +
      `not held, then tries ${BISECTIONS} geometric midpoints between the highest rate held and the step ` +
      "above it. The ratio is the highest held rate's achieved rate over wrk's.",
    'Lateness is send time minus intended start (this client\'s own scheduling error); "from send" and ' +
      '"from intended" are the request latencies timed from each. Each run is a fresh process with no ' +
      'warm-up run (the default with `--duration`): its first second includes compiling the hot path. ' +
      `Ours closed-loop (no \`--rate\`, the same ${CONNECTIONS} sockets and ${DURATION_S} s, its rate over ` +
      `the active window) ran after the ladder: ${perS(closed)}/s, the client's own ceiling for ` +
      `this request.`,
  );
  s.commands.push(
    `wrk -t1 -c${CONNECTIONS} -d${DURATION_S}s ${url}`,
    ...steps.map((st) => commandLine({ command: 'download', args: argsAt(st.ratePerSecond) })),
    commandLine({ command: 'download', args: closedArgs }),
  );
  return s;
}
