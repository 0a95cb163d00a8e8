// `blob-cacher report FILE…`: each results file's report, recomputed from the file.
import { ConfigError } from '../../vocabulary/errors.js';
import { redact } from '../../log/logger.js';
import { readAnyResults } from '../../results/file.js';
import { GATE_FAILED_EXIT } from '../../analysis/thresholds.js';
import { parseFileArgs, type Env } from '../command-kit.js';
import type { ReplayResults } from '../../results/replay.js';
import type { ReportFormat } from '../../vocabulary/choices.js';

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
  const read = await Promise.all(parsed.files.map(readAnyResults));
  const replays = read.flatMap((r, i) => ('replay' in r ? [{ doc: r.replay, path: parsed.files[i]! }] : []));
  if (replays.length) {
    if (parsed.thresholds.length)
      throw new ConfigError("--threshold gates a benchmark's figures; a replay's report has none: drop it");
    if (replays.length < read.length || parsed.format === 'junit')
      throw new ConfigError(
        'report of a replay takes replay results files alone, in console, md, csv, json or html',
      );
    return reportReplays(replays, parsed.format);
  }
  const docs = read.flatMap((r) => ('runs' in r ? [r.runs] : []));
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
  process.stdout.write(`${redact(joined(parsed.format, reports))}\n`);
  return gateFailed ? GATE_FAILED_EXIT : 0;
}

/** A replay's report, recomputed from its results file: the same model its run printed. */
async function reportReplays(
  replays: readonly { doc: ReplayResults; path: string }[],
  format: Exclude<ReportFormat, 'junit'>,
): Promise<number> {
  const [{ buildReplayReport }, { renderReplay }] = await Promise.all([
    import('../../analysis/replay.js'),
    import('../../report/replay.js'),
  ]);
  const out = await Promise.all(
    replays.map(({ doc, path }) =>
      renderReplay(
        buildReplayReport(doc, `blob-cacher report: ${path}${doc.complete ? '' : ' (INCOMPLETE run)'}`),
        format,
      ),
    ),
  );
  process.stdout.write(
    `${redact(format === 'json' && out.length > 1 ? `[${out.join(',\n')}]` : out.join('\n\n'))}\n`,
  );
  return 0;
}

/** Several reports as one output: a JSON array, or the texts one after another. */
const joined = (format: ReportFormat, texts: readonly string[]) =>
  format === 'json' && texts.length > 1 ? `[${texts.join(',\n')}]` : texts.join('\n\n');
