// `blob-cacher collect`: a scale-out run's clients' results, merged from the storage account.
import { ConfigError } from '../../vocabulary/errors.js';
import { buildProgram, parseFlags, resolveOptions } from '../../config/load.js';
import { COLLECT_OPTIONS } from '../../config/options.js';
import { readSources } from '../sources.js';
import { log, redact, setLogLevel } from '../../log/logger.js';
import { registerSecrets, type Env } from '../command-kit.js';

/**
 * Why collect has nothing to merge: an empty results folder, or files that were there and were all
 * left out (how many, and the first one's reason), which "empty" would hide.
 */
export function noResultsProblem(
  runId: string,
  container: string,
  unreadable: readonly { name: string; problem: string }[],
): string {
  const where = `runs/${runId}/results/`;
  if (!unreadable.length)
    return `run ${runId} has no results in container ${container} (${where} is empty); check --run-id and the account`;
  const first = unreadable[0]!;
  return (
    `run ${runId} has no readable results in container ${container}: ${unreadable.length} file(s) ` +
    `in ${where} were left out ` +
    `(${first.name} ${first.problem}); re-run the clients with this blob-cacher, or check --run-id`
  );
}

export async function collectCommand(argv: readonly string[], env: Env, name = 'collect'): Promise<number> {
  const flags = parseFlags(
    buildProgram(
      name,
      COLLECT_OPTIONS,
      "Merge the results of a scale-out run's clients from the storage account: summed histograms " +
        'and series, throughput over the overlap window, start spread.',
    ),
    argv,
  );
  if (!flags) return 0;
  const { collectConfig } = await import('../../config/scaleout.js');
  const config = collectConfig(
    resolveOptions(COLLECT_OPTIONS, flags, readSources(COLLECT_OPTIONS, flags, env)),
  );
  registerSecrets([config.store], env);
  setLogLevel(config.logLevel);
  const [{ openAccountStore }, { fetchRun, mergeClients }, { renderScaleout }, { toJson }] =
    await Promise.all([
      import('../../scaleout/run-store.js'),
      import('../../scaleout/collect.js'),
      import('../../report/scaleout.js'),
      import('../../report/safe-text.js'),
    ]);
  const store = await openAccountStore(config.store, config.container);
  const run = await fetchRun(store, config.runId);
  for (const u of run.unreadable) log.warn(`${u.name} ${u.problem}: left out`);
  const parallelism = config.parallelism ?? Math.max(0, ...run.docs.map((d) => d.parallelism));
  if (!parallelism) throw new ConfigError(noResultsProblem(config.runId, config.container, run.unreadable));
  const merged = mergeClients(config.runId, parallelism, run.docs);
  const text =
    config.format === 'json' ? toJson({ ...merged, ready: run.ready }) : renderScaleout(merged, run.ready);
  process.stdout.write(`${redact(text)}\n`);
  return merged.missing.length || merged.failed.length ? 1 : 0;
}
