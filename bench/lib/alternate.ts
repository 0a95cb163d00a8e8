// Runs contenders in turn (A B C, A B C, …) so that drift and neighbours' load hit all alike, then
// reduces each to medians. Ours go through blob-cacher's own analyze() over its results-file runs.
import type { analyze as analyzeFn } from '../../dist/analysis/analyze.js';
import { distImport } from './ours.ts';
import { summarize, type Contender, type Row, type Sample } from './sample.ts';

export interface AlternateOptions {
  runs: number;
  /** Unrecorded first round (fixtures, page cache, JIT). */
  warmup?: boolean;
  /** Called between two runs, e.g. to delete an output file. */
  between?: () => Promise<void> | void;
  log: (line: string) => void;
}

const fmtS = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : '—');

export async function alternate(contenders: readonly Contender[], opts: AlternateOptions): Promise<Row[]> {
  const active = contenders.filter((c) => !c.skipped);
  const samples = new Map<Contender, Sample[]>(contenders.map((c) => [c, []]));
  const rounds = opts.runs + (opts.warmup ? 1 : 0);
  for (let round = 0; round < rounds; round++) {
    const warm = opts.warmup && round === 0;
    for (const c of active) {
      await opts.between?.();
      const mark = c.clock?.clock.mark();
      const s = await c.run(round);
      if (c.clock && s.ok) s.serverSpanMs = c.clock.clock.span(mark!, c.clock.method);
      const server = s.serverSpanMs === undefined ? '' : ` (server ${fmtS(s.serverSpanMs)})`;
      opts.log(
        `  ${warm ? 'warm-up' : `run ${round + (opts.warmup ? 0 : 1)}/${opts.runs}`} ${c.label}: ` +
          `${s.ok ? fmtS(s.transferMs) : `FAILED ${s.error}`}${server}`,
      );
      if (!warm) samples.get(c)!.push(s);
    }
  }
  await opts.between?.();
  const { analyze } = await distImport<{ analyze: typeof analyzeFn }>('analysis/analyze.js');
  return contenders.map((c) => {
    const row = summarize(c, samples.get(c)!);
    const runs = row.samples.filter((s) => s.ok && s.run).map((s) => s.run!);
    if (c.ours && runs.length) {
      // blob-cacher's own statistics over the runs from its results files: the same medians its reports show.
      const stats = analyze(runs)[0];
      if (stats) {
        row.medianMs = stats.wallMs.median;
        row.medianMiBps = stats.throughputMiBps.median;
        row.medianOpsPerSecond = stats.opsPerSecond.median;
        row.cpuMsPerRun = stats.cpuMsPerRun;
      }
    }
    return row;
  });
}
