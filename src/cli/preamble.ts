// What a measuring session does before it runs: checks that the results path can take the results,
// sweeps scratch a killed run left, starts the results file, captures the environment it runs in and,
// against a real account, says what the session will cost.
import type { DownloadConfig, UploadConfig } from '../config/load.js';
import { endpointOf, sessionEstimate, type Output } from './output.js';
import { log } from '../log/logger.js';
import { defaultResultsPath, newResultsFile } from '../results/file.js';
import { checkResultsPath } from '../results/write.js';
import type { ResultsFile, SweepAxis } from '../results/schema.js';
import { isPlainUrl, targetOf } from '../vocabulary/credentials.js';

/** What the preamble reads of a measurement (cli/measure.ts). */
export interface PreambleInput {
  command: ResultsFile['command'];
  config: DownloadConfig | UploadConfig;
  cells: readonly unknown[];
  docConfig: Record<string, unknown>;
  sweep?: SweepAxis[];
  stem: string;
  output: Pick<Output, 'prices'>;
}

/** Where the results go: the config's path, else the default name for the command's stem. */
export const resultsPathOf = (m: PreambleInput): string => m.config.resultsPath ?? defaultResultsPath(m.stem);

/** The results file the session starts with, its environment captured; fails before any work. */
export async function preamble(m: PreambleInput, path: string): Promise<ResultsFile> {
  // A path that cannot take the results fails now, before any work, not after the run.
  await checkResultsPath(path);
  // Scratch left by a run that was killed (SIGKILL), whatever sink this one uses.
  await (await import('../payload/scratch.js')).sweepStaleScratchDirs().catch(() => []);
  const doc = newResultsFile(m.command, m.docConfig, targetOf(m.config.credentials));
  // Where it runs, before it runs: the connect time is measured on an idle machine.
  const { captureEnvironment, IMDS_URL, isRemote } = await import('./environment.js');
  Object.assign(
    doc.environment,
    await captureEnvironment({ endpoint: endpointOf(m.config.credentials), imdsUrl: IMDS_URL }),
  );
  // Against a real account (remote, not a plain URL), say what the session will cost before it does.
  const remote = isRemote(doc.environment.endpoint);
  if (remote && !isPlainUrl(m.config.credentials) && !m.config.steady)
    log.info(await sessionEstimate(m.command, m.config, m.cells.length, m.output.prices));
  if (m.sweep) doc.sweep = m.sweep;
  if (m.config.slo) doc.slo = m.config.slo;
  return doc;
}
