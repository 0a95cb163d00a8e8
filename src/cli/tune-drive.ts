// A tune as a session: the search's cells run as the session's parts, its path, where it stopped
// and its best recorded beside the runs.
import { ConfigError } from '../vocabulary/errors.js';
import type { DownloadConfig, UploadConfig } from '../config/load.js';
import { isCheckpointConfig } from '../config/checkpoint.js';
import { log } from '../log/logger.js';
import type { Cell, TuneRecord } from '../results/schema.js';
import { tuneSearch, type TuneAxis } from '../tune/search.js';
import { cellOf } from './command-kit.js';
import type { Measurement } from './measure.js';
import { cellMeasure, fixedSettings, type Given } from './tune-plan.js';
type Config = DownloadConfig | UploadConfig;

export interface TuneSetup {
  mode: 'download' | 'upload';
  axes: TuneAxis[];
  budgetMs: number;
  base: Config;
  searched: ReadonlySet<string>;
  origin: Given;
  configOf: (cell: Cell) => Config;
  /** What a deployment keeps that the search did not choose, where the command's own (a checkpoint's). */
  fixed?: Cell;
}

/** The command searched where it is not its direction's own: a checkpoint (an upload), a training run. */
function searchedCommand(base: Config): Pick<TuneRecord, 'command'> {
  if (isCheckpointConfig(base)) return { command: 'checkpoint' };
  return 'train' in base && base.train ? { command: 'train' } : {};
}

/** Runs the search's cells as the session's parts, recording its path, where it stopped and its best. */
export function tuneDrive({
  mode,
  axes,
  budgetMs,
  base,
  searched,
  origin,
  configOf,
  fixed,
}: TuneSetup): NonNullable<Measurement['drive']> {
  return async (run, doc, signal) => {
    let last: Awaited<ReturnType<typeof run>> | undefined;
    const record: TuneRecord = {
      direction: mode,
      ...searchedCommand(base),
      axes: axes.map(({ flag, values, ordered }) => ({ flag, values: [...values], ordered })),
      budgetMs,
      fixed: fixed ?? fixedSettings(base, searched, origin),
      stopped: 'converged',
      path: [],
      throttling: [],
    };
    doc.tune = record;
    const outcome = await tuneSearch({
      axes,
      budgetMs,
      signal,
      throttling: record.throttling,
      measure: async (cell, why, decided) => {
        log.info(
          `tune step ${why.step + 1} (${why.reason}${why.axis ? ` ${why.axis}` : ''}): ${Object.entries(cell)
            .map(([k, v]) => `${k} ${v}`)
            .join(' ')}`,
        );
        const sessionCell = await cellOf(configOf(cell), cell);
        // A race: a cell already significantly slower than the fastest one stops at that run.
        last = await run([
          decided ? { ...sessionCell, decided: (_strategy, runMs) => decided(runMs) } : sessionCell,
        ]);
        const measured = cellMeasure(last.runs);
        record.path.push({
          cell,
          reason: why.reason,
          ...(why.axis ? { axis: why.axis } : {}),
          spentMs: measured.spentMs,
          throttled: measured.throttled,
          ...(measured.throttleClass ? { throttleClass: measured.throttleClass } : {}),
        });
        return measured;
      },
    });
    // No best where no cell was measured: a failed or unmeasured cell is never the answer.
    record.stopped = outcome.stopped;
    if (outcome.best) record.best = outcome.best.cell;
    if (!last) throw new ConfigError('tune: no cell was measured');
    return last;
  };
}
