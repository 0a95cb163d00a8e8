// A Report from runs measured in a test, as the CLI builds it: a results document, then the model.
import { buildReport, type Report } from '../../src/analysis/report-model.js';
import { newResultsFile } from '../../src/results/file.js';
import type { ResultsFile, RunRecord } from '../../src/results/schema.js';

export function reportOf(
  runs: RunRecord[],
  opts: {
    title?: string;
    command?: ResultsFile['command'];
    target?: { kind: string; label: string };
    doc?: Partial<ResultsFile>;
  } = {},
): Report {
  const doc = newResultsFile(
    opts.command ?? 'download',
    {},
    opts.target ?? { kind: 'embedded-azurite', label: 'embedded Azurite' },
  );
  doc.runs = runs;
  doc.complete = true;
  return buildReport({ ...doc, ...opts.doc }, { title: opts.title ?? 't' });
}
