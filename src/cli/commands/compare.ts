// `blob-cacher compare A B`: two results files side by side, per strategy and phase.
import { ConfigError } from '../../vocabulary/errors.js';
import { redact } from '../../log/logger.js';
import { readResults } from '../../results/file.js';
import { parseFileArgs, type Env } from '../command-kit.js';

export async function compareCommand(argv: readonly string[], env: Env, name = 'compare'): Promise<number> {
  const parsed = await parseFileArgs(
    name,
    'Compare two results files per strategy and phase.',
    argv,
    env,
    2,
    2,
  );
  if (!parsed) return 0;
  if (parsed.thresholds.length) {
    throw new ConfigError(
      'compare takes no --threshold; gate one file with blob-cacher report FILE ' +
        '--threshold, or a file against earlier ones with blob-cacher check',
    );
  }
  const [a, b] = await Promise.all(parsed.files.map(readResults));
  const [{ buildCompareReport }, { renderCompare }] = await Promise.all([
    import('../../analysis/compare.js'),
    import('../../report/compare.js'),
  ]);
  const result = buildCompareReport(a!, b!, [parsed.files[0]!, parsed.files[1]!]);
  process.stdout.write(`${redact(renderCompare(result, parsed.format))}\n`);
  return 0;
}
