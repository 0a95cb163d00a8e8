// What a measuring session leaves once it has run: the results file marked complete or partial and
// written, the report printed from it, a scale-out client's results published, and the exit code.
import { escapeControls } from '../vocabulary/errors.js';
import { log, redact } from '../log/logger.js';
import { runFailed, type ResultsFile } from '../results/schema.js';
import type { ScaleoutClient } from '../scaleout/client.js';
import { GATE_FAILED_EXIT } from '../analysis/thresholds.js';
import type { buildReport } from '../analysis/report-model.js';
import type { renderReport } from '../report/render.js';
import type { DownloadConfig, UploadConfig } from '../config/load.js';
import type { Output } from './output.js';
import type { ResultsWriter } from './results-writer.js';
import { exitCodeOf, stoppedBy, type StopController } from './stop-controller.js';

/** How the session's run ended: the target it ran against, and its scale-out client if one. */
export interface Ended {
  target: ResultsFile['environment']['target'];
  scaleout: ScaleoutClient | undefined;
}

/** What the end reads of a measurement (cli/measure.ts): its title, config and report options. */
interface Titled {
  title: string;
  config: DownloadConfig | UploadConfig;
  output: Output;
}

/** The report's two steps, loaded with the engine before the session (cli/measure.ts). */
interface Reporting {
  buildReport: typeof buildReport;
  renderReport: typeof renderReport;
}

/** Writes the results, prints the report and publishes; the exit code says what failed or stopped it. */
export async function sessionEnd(
  m: Titled,
  parts: Reporting,
  results: ResultsWriter,
  stop: StopController,
  { target, scaleout }: Ended,
): Promise<number> {
  const { doc, path } = results;
  const stopped = stop.reason;
  doc.complete = !stopped;
  if (stopped) doc.interrupted = stopped;
  doc.environment.target = target;
  // If the results cannot be written now, the report is still printed, and the exit says so.
  const notSaved = await results.final();
  if (!notSaved) log.info(`results: ${path}${stopped ? ` (partial: stopped ${stoppedBy(stopped)})` : ''}`);
  const title = stopped ? `${m.title} — STOPPED ${stoppedBy(stopped)}, partial` : m.title;
  let gateFailed = false;
  if (doc.runs.some((r) => !r.warmup)) {
    const thresholds = m.config.thresholds ?? [];
    const prices = m.output.prices ? { prices: m.output.prices } : {};
    const report = parts.buildReport(doc, { title, material: m.output.material, ...prices, thresholds });
    gateFailed = report.thresholds?.passed === false;
    const shown = await parts.renderReport(report, m.config.format, {
      details: m.output.details,
      color: m.output.color,
      ...(notSaved ? {} : { resultsPath: path }),
      config: doc.config,
    });
    process.stdout.write(`${redact(shown)}\n`);
  }
  if (notSaved) process.stderr.write(`blob-cacher: ${escapeControls(redact(notSaved))}\n`);
  const notPublished =
    scaleout &&
    (await scaleout.publish({ results: doc }).then(
      () => undefined,
      (e: Error) => `scale-out results not stored: ${e.message}`,
    ));
  // The storage's own error text: escaped, as every error line.
  if (notPublished) process.stderr.write(`blob-cacher: ${escapeControls(redact(notPublished))}\n`);
  if (stopped) return exitCodeOf(stopped);
  // A threshold that failed outranks a failed run (whose rules then fail too): CI reads the gate.
  return notSaved || notPublished ? 1 : gateFailed ? GATE_FAILED_EXIT : doc.runs.some(runFailed) ? 1 : 0;
}
