// `blob-cacher replay FILE`: a recorded workload (our CSV, or Azure's StorageBlobLogs as CSV or JSON
// lines) sent again to the target at its recorded pace, or --speed times it; what the log reads
// first is created before the start. The results file is written once the replay ends (a stop
// included), and `report` reads it back.
import { buildProgram, parseFlags } from '../../config/load.js';
import { REPLAY_OPTIONS } from '../../config/options.js';
import { loadReplayConfig, replayConfigRecord } from '../../config/replay.js';
import { MAX_REPLAY_BYTES, parseReplayLog } from '../../config/replay-log.js';
import { log, redact, setLogLevel } from '../../log/logger.js';
import { readRegularFile } from '../../results/bounded-read.js';
import { defaultResultsPath } from '../../results/file.js';
import { checkResultsPath, writeResultsOrExplain } from '../../results/write.js';
import { readSources } from '../sources.js';
import { exitCodeOf, StopController, stoppedBy } from '../stop-controller.js';
import { registerSecrets, startEmbeddedEarly, type Env } from '../command-kit.js';

const SUMMARY =
  "Replay a recorded workload: a CSV (offset_s,operation,name,size_bytes) or Azure's StorageBlobLogs " +
  'export (CSV or JSON lines), at its recorded pace or --speed times it, against any target; ' +
  'per-operation rates and latency, beside the latency the log recorded (docs/replay.md).';

export async function replayCommand(argv: readonly string[], env: Env, name = 'replay'): Promise<number> {
  const program = buildProgram(name, REPLAY_OPTIONS, SUMMARY).argument('<file>', 'the recorded log');
  const flags = parseFlags(program, argv);
  if (!flags) return 0;
  const config = loadReplayConfig(program.args[0], flags, readSources(REPLAY_OPTIONS, flags, env));
  registerSecrets([config.credentials], env);
  setLogLevel(config.logLevel);
  const resultsPath = config.resultsPath ?? defaultResultsPath('replay');
  await checkResultsPath(resultsPath);
  const text = await readRegularFile(config.file, {
    maxBytes: MAX_REPLAY_BYTES,
    what: 'replay log',
    fix: 'give a CSV or a StorageBlobLogs export of at most 256 MiB (split a larger one by time)',
  });
  const plan = parseReplayLog(text.toString('utf8'), { keepNames: config.keepNames, path: config.file });
  startEmbeddedEarly(config.credentials);
  const stop = new StopController();
  const [{ runReplay }, { buildReplayReport }, { renderReplay }] = await Promise.all([
    import('../../engine/replay.js'),
    import('../../analysis/replay.js'),
    import('../../report/replay.js'),
  ]);
  try {
    const results = await runReplay(config, plan, replayConfigRecord(config), stop.signal);
    const unsaved = await writeResultsOrExplain(resultsPath, results);
    const title = `blob-cacher replay: ${config.file}${results.complete ? '' : ' (INCOMPLETE run)'}`;
    const report = buildReplayReport(results, title);
    process.stdout.write(`${redact(await renderReplay(report, config.format))}\n`);
    if (unsaved) log.error(unsaved);
    else log.info(`results: ${resultsPath} (blob-cacher report ${resultsPath})`);
    if (stop.reason) {
      log.warn(`replay stopped ${stoppedBy(stop.reason)}: the report holds what was sent until then`);
      return exitCodeOf(stop.reason);
    }
    return unsaved ? 1 : 0;
  } finally {
    stop.close();
  }
}
