// A measuring command's session, from its preamble to its exit code: runs the cells, keeps the
// results file current, and stops on a signal or the --deadline with what finished written.
import { basename } from 'node:path';
import type { DownloadConfig, UploadConfig } from '../config/load.js';
import type { Output } from './output.js';
import type { SessionCell, SessionOutcome } from '../engine/session.js';
import { log } from '../log/logger.js';
import { measuredRunAtMost, RecordBudget, runRecordAtMost } from '../results/record-budget.js';
import type { ResultsFile, SweepAxis } from '../results/schema.js';
import { preamble, resultsPathOf } from './preamble.js';
import type { LiveMetrics } from './live-metrics.js';
import { ResultsWriter } from './results-writer.js';
import { sessionEnd, type Ended } from './session-end.js';
import { StopController } from './stop-controller.js';

type Config = DownloadConfig | UploadConfig;

/** Runs cells as one session part: the runs go to the results file and the progress view as they end. */
export type RunCells = (cells: SessionCell[]) => Promise<SessionOutcome>;

/** What one measuring command asks for: its cells (one, or a sweep's grid), how to title it. */
export interface Measurement {
  command: ResultsFile['command'];
  /** The first cell's config: where results go, the format, the credentials. */
  config: Config;
  cells: SessionCell[];
  docConfig: Record<string, unknown>;
  sweep?: SweepAxis[];
  title: string;
  /** Default results name stem, e.g. download or sweep-upload. */
  stem: string;
  output: Output;
  /**
   * Chooses the cells as it goes (tune), instead of running `cells` at once: it runs them through
   * `run`, may record in `doc`, and returns the last outcome.
   */
  drive?: (run: RunCells, doc: ResultsFile, signal: AbortSignal) => Promise<SessionOutcome>;
}

/** The engine, the progress view and the reports: loaded once the preamble has passed. */
const loadParts = async () => {
  const [{ runSession }, { showProgress }, { toRunRecord }, { renderReport }, { buildReport }] =
    await Promise.all([
      import('../engine/session.js'),
      import('../report/progress.js'),
      import('../results/record.js'),
      import('../report/render.js'),
      import('../analysis/report-model.js'),
    ]);
  return { runSession, showProgress, toRunRecord, renderReport, buildReport };
};
type SessionParts = Awaited<ReturnType<typeof loadParts>>;

/**
 * Runs a session and keeps its results file current (to within a second), so that a run that fails or
 * is stopped part-way still leaves what it measured (marked incomplete).
 */
export async function measure(m: Measurement): Promise<number> {
  const path = resultsPathOf(m);
  const doc = await preamble(m, path);
  const metrics = await startMetrics(m, path, doc);
  const results = new ResultsWriter(path, doc);
  const stop = new StopController(m.config.deadlineMs);
  // A stop writes what finished at once: its cleanup may outlast a container's grace.
  stop.signal.addEventListener('abort', () => results.stopped(stop.reason!), { once: true });
  const parts = await loadParts();
  const ended = await runAll(m, parts, results, stop, metrics);
  return sessionEnd(m, parts, results, stop, ended);
}

/** --metrics: live points, a listener like progress; a bad file path exits 2 here, before any work. */
async function startMetrics(
  m: Measurement,
  path: string,
  doc: ResultsFile,
): Promise<LiveMetrics | undefined> {
  if (!m.config.metrics?.length) return undefined;
  return (await import('./live-metrics.js')).startLiveMetrics(m.config.metrics, {
    intervalMs: m.config.metricsIntervalMs ?? 1_000,
    token: m.config.metricsToken,
    runId: basename(path, '.json'),
    command: m.command,
    targetKind: doc.environment.targetKind,
    version: doc.environment.packageVersion,
  });
}

/** Runs the cells (or lets the command drive them); a failure that is no stop throws once written. */
async function runAll(
  m: Measurement,
  parts: SessionParts,
  results: ResultsWriter,
  stop: StopController,
  metrics?: LiveMetrics,
): Promise<Ended> {
  const { doc, path } = results;
  // The results file keeps what the session keeps: raw records within one run's worth, all runs together.
  const stored = new RecordBudget(doc.runs, runRecordAtMost);
  // Plain progress lines go with the info level: --log-level warn or error keeps stderr for problems.
  const progress = await parts.showProgress({
    lines: !['error', 'warn'].includes(m.config.logLevel),
    intervalMs: m.config.progressIntervalMs,
  });
  // One client of a scale-out run: its workers wait at the start gate for the others, and its
  // results go to the storage account too.
  const scaleout =
    m.config.scaleout &&
    (await import('../scaleout/client.js')).scaleoutClient(m.config.scaleout, m.config.container);
  let target = doc.environment.target;
  try {
    const run: RunCells = (cells) =>
      parts.runSession(cells, {
        signal: stop.signal,
        startGate: scaleout?.gate,
        stopGraceMs: m.config.stopGraceMs,
        onEvent: (e) => {
          progress.onEvent(e);
          metrics?.onEvent(e);
          if (e.type !== 'run') return;
          stored.push(parts.toRunRecord(measuredRunAtMost(e.run, stored.room(e.run.records.length))));
          results.saveSoon();
        },
      });
    const outcome = m.drive ? await m.drive(run, doc, stop.signal) : await run(m.cells);
    target = outcome.target;
  } catch (err) {
    // Stopped (a signal, --deadline) while setting up or running: an interrupt, whatever the step in
    // flight made of it (a preflight's "cannot reach … (cancelled)"); what finished is written below.
    if (!stop.signal.aborted) {
      await results.save().catch(() => {});
      if (doc.runs.length) log.error(`partial results (${doc.runs.length} run(s)) written to ${path}`);
      await scaleout
        ?.publish({ results: doc.runs.length ? doc : undefined, error: err })
        .catch((e: Error) => log.error(`scale-out results not stored: ${e.message}`));
      throw err;
    }
    log.debug(`stopped: ${(err as Error).message}`);
  } finally {
    progress.close();
    stop.close();
    await metrics?.finish();
  }
  return { target, scaleout };
}
