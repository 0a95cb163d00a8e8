// `blob-cacher report FILE…`: each results file's report, recomputed from the file.
import { ConfigError } from '../../config/errors.js';
import { redact } from '../../log/logger.js';
import { readResults } from '../../results/file.js';
import { GATE_FAILED_EXIT } from '../../analysis/thresholds.js';
import { parseFileArgs, type Env } from '../command-kit.js';

export async function reportCommand(argv: readonly string[], env: Env, name = 'report'): Promise<number> {
  const parsed = await parseFileArgs(
    name,
    'Recompute the report of each results file (two side by side: use compare).',
    argv,
    env,
    1,
    Infinity,
  );
  if (!parsed) return 0;
  if ((parsed.format === 'html' || parsed.format === 'junit') && parsed.files.length > 1) {
    throw new ConfigError(
      `report --format ${parsed.format} takes one results file; ` +
        'give one, or put two side by side with blob-cacher compare',
    );
  }
  const docs = await Promise.all(parsed.files.map(readResults));
  const [{ renderReport }, { buildReport }] = await Promise.all([
    import('../../report/render.js'),
    import('../../analysis/report-model.js'),
  ]);
  const { prices, details, color, material } = parsed.output;
  let gateFailed = false;
  const reports = await Promise.all(
    docs.map((doc, i) => {
      const title = `blob-cacher report: ${parsed.files[i]}${doc.complete ? '' : ' (INCOMPLETE run)'}`;
      const report = buildReport(doc, {
        title,
        material,
        ...(prices ? { prices } : {}),
        thresholds: parsed.thresholds,
      });
      if (report.thresholds?.passed === false) gateFailed = true;
      return renderReport(report, parsed.format, {
        details,
        color,
        resultsPath: parsed.files[i]!,
        config: doc.config,
      });
    }),
  );
  // Each file is its own report: runs of different sessions are never pooled as one sample.
  process.stdout.write(
    `${redact(parsed.format === 'json' && reports.length > 1 ? `[${reports.join(',\n')}]` : reports.join('\n\n'))}\n`,
  );
  return gateFailed ? GATE_FAILED_EXIT : 0;
}
