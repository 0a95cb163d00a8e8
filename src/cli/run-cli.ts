// The edge: turns argv and the environment into typed configs, runs, writes the results file,
// prints reports computed from it, and maps errors to one line and an exit code. The only place
// that reads process.argv and process.env.
import type { StrategyResult } from '../metrics/summary.js';
import { ConfigError } from '../config/errors.js';
import { buildProgram, loadDownloadConfig, loadUploadConfig, parseFlags, redactedConfig, resolveOptions, type Credentials, type RunOptions } from '../config/load.js';
import { DOWNLOAD_OPTIONS, REPORT_OPTIONS, UPLOAD_OPTIONS, type LogLevel, type OptionSpec, type ReportFormat } from '../config/options.js';
import { formatBytes } from '../config/sizes.js';
import { runDownload } from '../engine/download.js';
import { log, redact, registerSecret, setLogLevel } from '../log/logger.js';
import { compareStats, renderCompare } from '../report/compare.js';
import { renderConsole, renderCsv, renderMarkdown, type ReportHeader } from '../report/console.js';
import { renderHtml } from '../report/html.js';
import { showProgress } from '../report/progress.js';
import { analyze } from '../analysis/analyze.js';
import { defaultResultsPath, newResultsFile, readResults, toStrategyRun, writeResults } from '../results/file.js';
import type { ResultsFile } from '../results/schema.js';
import { runUpload } from '../engine/upload.js';
import { requestStop, STOP_GRACE_MS, stopRequested } from '../engine/stop.js';
import { buildGrid, cellArgv, findAxes, gridCells, recommendSdkSettings, renderGrid } from '../analysis/sweep.js';
import type { DownloadConfig, UploadConfig } from '../config/load.js';

export type Env = Record<string, string | undefined>;
export type Command = (argv: readonly string[], env: Env) => Promise<number>;

function registerSecrets(credentials: Credentials, env: Env): void {
  if (credentials.kind === 'key') registerSecret(credentials.key);
  if (credentials.kind === 'sas') registerSecret(credentials.sas);
  registerSecret(env.STORAGE_CONNECTION_STRING);
}

function targetOf(c: Credentials): { kind: string; label: string } {
  switch (c.kind) {
    case 'embedded': return { kind: 'embedded-azurite', label: 'embedded Azurite' };
    case 'url': return { kind: 'url', label: `url ${new URL(c.url).host}` };
    default: return { kind: 'account', label: `account ${c.account}` };
  }
}

/** Renders a report in the chosen format from results documents alone. */
export function renderReport(docs: readonly ResultsFile[], format: ReportFormat, header: Omit<ReportHeader, 'mode'>): string {
  const stats = analyze(docs.flatMap((d) => d.strategies));
  const full: ReportHeader = { ...header, mode: docs[0]?.command ?? 'download' };
  switch (format) {
    case 'console': return renderConsole(stats, full);
    case 'md': return renderMarkdown(stats, full);
    case 'csv': return renderCsv(stats);
    case 'json': return JSON.stringify(stats, null, 2);
    case 'html': return renderHtml({ title: header.title, docs: [...docs], stats });
  }
}

/**
 * Runs a measurement and keeps its results file current after every strategy run, so that a run
 * that fails part-way still leaves what it measured (marked incomplete).
 */
async function measure(
  command: ResultsFile['command'], config: RunOptions & { credentials: Credentials }, redacted: Record<string, unknown>,
  run: (onResult: (r: StrategyResult) => void) => Promise<{ target: string; objectSizeBytes?: number }>,
  title: string,
): Promise<number> {
  const path = config.resultsPath ?? defaultResultsPath(command);
  const doc = newResultsFile(command, redacted, targetOf(config.credentials));
  let writing: Promise<void> = Promise.resolve();
  const save = () => (writing = writing.then(() => writeResults(path, doc)));
  let outcome: { target: string; objectSizeBytes?: number };
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopRequested()) {
      // A second signal: stop now. Workers are our children and end with us.
      process.stderr.write(`blob-cacher: ${signal} again, exiting without waiting\n`);
      process.exit(signal === 'SIGINT' ? 130 : 143);
    }
    log.warn(`${signal}: finishing in-flight requests (up to ${STOP_GRACE_MS / 1000} s), then writing partial results`);
    requestStop(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const hideProgress = showProgress();
  try {
    outcome = await run((r) => {
      doc.strategies.push(toStrategyRun(r));
      // A failed write must not become an unhandled rejection (a crash with a stack trace): it stays
      // in the chain and is thrown, as one line, by the final save.
      save().catch(() => {});
    });
  } catch (err) {
    await save().catch(() => {});
    if (doc.strategies.length) log.error(`partial results (${doc.strategies.length} strategy run(s)) written to ${path}`);
    throw err;
  } finally {
    hideProgress();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
  const stopped = stopRequested();
  doc.complete = !stopped;
  doc.environment.target = outcome.target;
  await save();
  log.info(`results: ${path}${stopped ? ` (partial: stopped by ${stopped})` : ''}`);
  const header = { title: stopped ? `${title} — STOPPED by ${stopped}, partial` : title, target: outcome.target, objectSizeBytes: outcome.objectSizeBytes };
  if (doc.strategies.some((s) => !s.warmup)) process.stdout.write(`${redact(renderReport([doc], config.format, header))}\n`);
  if (stopped) return stopped === 'SIGINT' ? 130 : 143;
  return doc.strategies.every((s) => s.verified) ? 0 : 1;
}

/** Parses and validates one measuring command's options; undefined after --help. */
function loadCommand<C extends RunOptions & { credentials: Credentials; logLevel: LogLevel }>(
  name: string, specs: readonly OptionSpec[], summary: string, argv: readonly string[], env: Env,
  load: (flags: Record<string, unknown>, sources: { argv: readonly string[]; env: Env }) => C,
): C | undefined {
  const flags = parseFlags(buildProgram(name, specs, summary), argv);
  if (!flags) return undefined;
  const config = load(flags, { argv, env });
  registerSecrets(config.credentials, env);
  setLogLevel(config.logLevel);
  log.debug(`config ${JSON.stringify(redactedConfig(config as unknown as DownloadConfig))}`);
  return config;
}

export async function downloadCommand(argv: readonly string[], env: Env, name = 'download'): Promise<number> {
  const config = loadCommand(name, DOWNLOAD_OPTIONS, 'Download the same blob with each strategy and compare where the time goes.', argv, env, loadDownloadConfig);
  if (!config) return 0;
  const title = `blob-cacher download: ${config.processes} process(es) x ${config.maxSockets} socket(s), concurrency ${config.concurrency}, sink ${config.sink}`;
  return measure('download', config, redactedConfig(config), (onResult) => runDownload(config, onResult), title);
}

export async function uploadCommand(argv: readonly string[], env: Env, name = 'upload'): Promise<number> {
  const config = loadCommand(name, UPLOAD_OPTIONS, 'Upload many small files or one large blob with each strategy and compare where the time goes.', argv, env, loadUploadConfig);
  if (!config) return 0;
  // A plain URL takes small files only: no large blob to describe.
  const large = config.credentials.kind === 'url' ? '' : `; large blob ${formatBytes(config.blobSizeBytes)} in ${formatBytes(config.blockSizeBytes)} blocks, concurrency ${config.concurrency}`;
  const title = `blob-cacher upload: ${config.processes} process(es) x ${config.maxSockets} socket(s); small files ${config.fileCount} x ${formatBytes(config.fileSizeBytes)}${large}`;
  return measure('upload', config, redactedConfig(config), (onResult) => runUpload(config, onResult), title);
}

function parseFileArgs(name: string, summary: string, argv: readonly string[], env: Env, min: number, max: number) {
  const program = buildProgram(name, REPORT_OPTIONS, summary).argument('<files...>', 'results files').allowExcessArguments(true);
  const flags = parseFlags(program, argv);
  if (!flags) return undefined;
  const files = program.args;
  if (files.length < min || files.length > max) {
    const cmd = name.replace(/^blob-cacher /, '');
    throw new ConfigError(max === min ? `${cmd} takes exactly ${min} results files; give ${min} paths` : `${cmd} takes at least ${min} results file; give a path`);
  }
  const o = resolveOptions(REPORT_OPTIONS, flags, { argv, env });
  return { files, format: o.format as ReportFormat };
}

export async function reportCommand(argv: readonly string[], env: Env, name = 'report'): Promise<number> {
  const parsed = parseFileArgs(name, 'Recompute every summary from results files (several files are merged).', argv, env, 1, Infinity);
  if (!parsed) return 0;
  const docs = await Promise.all(parsed.files.map(readResults));
  const title = `blob-cacher report: ${parsed.files.join(', ')}${docs.some((d) => !d.complete) ? ' (INCOMPLETE run)' : ''}`;
  const sizes = new Set(docs.flatMap((d) => d.strategies.map((s) => s.objectSizeBytes)));
  const objectSizeBytes = docs[0]!.command === 'download' && sizes.size === 1 ? [...sizes][0] : undefined;
  process.stdout.write(`${renderReport(docs, parsed.format, { title, target: docs[0]!.environment.target, objectSizeBytes })}\n`);
  return 0;
}

export async function compareCommand(argv: readonly string[], env: Env, name = 'compare'): Promise<number> {
  const parsed = parseFileArgs(name, 'Compare two results files per strategy and phase.', argv, env, 2, 2);
  if (!parsed) return 0;
  const [a, b] = await Promise.all(parsed.files.map(readResults));
  const result = compareStats(analyze(a!.strategies), analyze(b!.strategies));
  process.stdout.write(`${parsed.format === 'json' ? JSON.stringify(result, null, 2) : renderCompare(result, parsed.files[0]!, parsed.files[1]!)}\n`);
  return 0;
}

const SWEEP_USAGE = `usage: blob-cacher sweep [download|upload] [options]
Any option given as a comma-separated list is a grid axis; every combination is measured, e.g.
  blob-cacher sweep upload --upload-method blocks --block-size 3.2MB,6.4MB,12.8MB --concurrency 32,256,384
  blob-cacher sweep upload --processes 1,2 --max-sockets 8,25,64
  blob-cacher sweep download --source-method chunked --concurrency 2,4,8,16
The options are those of the download or upload command (see its --help).
`;

export async function sweepCommand(argv: readonly string[], env: Env): Promise<number> {
  const mode = argv[0] === 'upload' || argv[0] === 'download' ? argv[0] : 'download';
  const args = argv[0] === mode ? argv.slice(1) : [...argv];
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(SWEEP_USAGE);
    return 0;
  }
  const { axes, fixed } = findAxes(args);
  if (!axes.length) throw new ConfigError('sweep needs at least one option with a comma-separated list of values, e.g. --processes 1,2; see blob-cacher sweep --help');
  const cells = gridCells(axes);
  const specs = mode === 'upload' ? UPLOAD_OPTIONS : DOWNLOAD_OPTIONS;
  // Every cell is validated before anything runs: a bad value fails fast, naming its option.
  const configs: (DownloadConfig | UploadConfig)[] = cells.map((cell) => {
    const cellArgs = cellArgv(fixed, cell);
    const flags = parseFlags(buildProgram(`sweep ${mode}`, specs, ''), cellArgs)!;
    return mode === 'upload' ? loadUploadConfig(flags, { argv: cellArgs, env }) : loadDownloadConfig(flags, { argv: cellArgs, env });
  });
  const first = configs[0]!;
  registerSecrets(first.credentials, env);
  setLogLevel(first.logLevel);
  const path = first.resultsPath ?? defaultResultsPath(`sweep-${mode}`);
  const doc = newResultsFile(mode, { sweep: axes, base: redactedConfig(first) }, targetOf(first.credentials));
  let target = doc.environment.target;
  const cellSizes = new Map<number, number>();
  try {
    for (const [i, config] of configs.entries()) {
      log.info(`sweep cell ${i + 1}/${cells.length}: ${Object.entries(cells[i]!).map(([k, v]) => `${k} ${v}`).join(' ')}`);
      const onResult = (r: StrategyResult) => {
        doc.strategies.push({ ...toStrategyRun(r), cell: cells[i]! });
        cellSizes.set(i, r.objectSizeBytes);
      };
      const out = mode === 'upload' ? await runUpload(config as UploadConfig, onResult) : await runDownload(config as DownloadConfig, onResult);
      target = out.target;
      await writeResults(path, doc);
    }
  } catch (err) {
    await writeResults(path, doc).catch(() => {});
    if (doc.strategies.length) log.error(`partial sweep results (${doc.strategies.length} strategy run(s)) written to ${path}`);
    throw err;
  }
  doc.complete = true;
  doc.environment.target = target;
  await writeResults(path, doc);
  log.info(`results: ${path}`);
  const stats = analyze(doc.strategies);
  const useOps = mode === 'upload' && ['small-files', 'sdk-small-files'].includes((first as UploadConfig).uploadMethod);
  const { grid, winners, bestCell } = buildGrid(stats, axes, useOps);
  const title = `blob-cacher sweep ${mode}: ${axes.map((a) => `${a.flag} ${a.values.join(',')}`).join(' x ')}`;
  if (first.format === 'html') {
    process.stdout.write(`${renderHtml({ title, docs: [doc], stats, sweep: grid })}\n`);
  } else if (first.format === 'json') {
    process.stdout.write(`${JSON.stringify({ grid, stats }, null, 2)}\n`);
  } else {
    const lines = [title, `target ${target}`, '', renderGrid(grid, winners)];
    if (bestCell) {
      const bestIndex = cells.findIndex((c) => axes.every((a) => c[a.flag] === bestCell[a.flag]));
      const bestConfig = configs[bestIndex]!;
      const winner = [...winners.values()].find((w) => JSON.stringify(w.cell) === JSON.stringify(cells[bestIndex]));
      if (winner) {
        lines.push('', ...recommendSdkSettings(winner, {
          blockSizeBytes: 'blockSizeBytes' in bestConfig ? bestConfig.blockSizeBytes : undefined,
          thresholdBytes: 'thresholdBytes' in bestConfig ? bestConfig.thresholdBytes : undefined,
          concurrency: bestConfig.concurrency, objectSizeBytes: cellSizes.get(bestIndex) ?? 0,
          processes: bestConfig.processes, maxSockets: bestConfig.maxSockets,
        }));
      }
    }
    process.stdout.write(`${redact(lines.join('\n'))}\n`);
  }
  return doc.strategies.every((s) => s.verified) ? 0 : 1;
}

/** Runs a command and exits: usage errors are one line and exit 2, failures one line and exit 1. */
export async function main(command: Command, argv: readonly string[]): Promise<void> {
  try {
    process.exitCode = await command(argv, process.env);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`blob-cacher: ${redact(err.message)}\n`);
      process.exitCode = 2;
      return;
    }
    const e = err as NodeJS.ErrnoException;
    process.stderr.write(`blob-cacher: ${redact(e.message ?? String(err)).split('\n')[0]}\n`);
    process.exitCode = 1;
  }
}
