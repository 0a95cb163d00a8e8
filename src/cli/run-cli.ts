// The edge: turns argv and the environment into typed configs, runs a session, keeps the results
// file current, prints reports computed from it, and maps errors to one line and an exit code. The
// only place that reads process.argv and process.env.
import { describeDistribution } from '../config/size-distribution.js';
import type { SizeDraw } from '../plan/size-draw.js';
import { ConfigError, escapeControls, ExitError, ToldError } from '../config/errors.js';
import { buildProgram, loadDownloadConfig, loadUploadConfig, parseFlags, redactedConfig, resolveOptions, type Credentials, type DownloadConfig, type Sources, type UploadConfig } from '../config/load.js';
import { DOWNLOAD_STRATEGIES, readersOf, workloadOf as workloadKind } from '../strategies/index.js';
import { COLLECT_OPTIONS, DOWNLOAD_OPTIONS, MANIFEST_OPTIONS, REPORT_OPTIONS, UPLOAD_OPTIONS, type OptionSpec } from '../config/options.js';
import { endpointOf, outputOf, sessionEstimate, type Output } from './output.js';
import { formatBytes } from '../config/sizes.js';
import { checkOutPath, readSources } from './sources.js';
import { registerMetricsSecrets } from './metrics-secrets.js';
import { checkProcessesFit } from './machine-fit.js';
import { startFirstWorker } from '../workers/first-worker.js';
import { sessionCell, type SessionCell, type SessionOutcome } from '../engine/session.js';
import { basename } from 'node:path';
import { log, redact, registerCredential, registerSecret, setLogLevel } from '../log/logger.js';
import { cellArgv, findAxes, gridCells } from '../config/sweep.js';
import { defaultResultsPath, newResultsFile, readResults } from '../results/file.js';
import { checkResultsPath } from '../results/write.js';
import { ResultsWriter } from './results-writer.js';
import { exitCodeOf, STOP_SIGNALS, StopController, stoppedBy } from './stop-controller.js';
import { measuredRunAtMost, RecordBudget, runRecordAtMost } from '../results/record-budget.js';
import { runFailed, type ResultsFile, type SweepAxis } from '../results/schema.js';
import { GATE_FAILED_EXIT } from '../analysis/thresholds.js';

export type Env = Record<string, string | undefined>;
export type Command = (argv: readonly string[], env: Env) => Promise<number>;

/** Every secret a command may hold, from its credentials and the environment, kept out of every line it writes. */
export function registerSecrets(all: readonly (Credentials | undefined)[], env: Env): void {
  for (const credentials of all) {
    if (credentials?.kind === 'key') registerCredential(credentials.key);
    if (credentials?.kind === 'sas') registerCredential(credentials.sas);
    if (credentials?.kind === 'url') registerCredential(credentials.url);
  }
  registerCredential(env.STORAGE_CONNECTION_STRING);
  registerCredential(env.STORAGE_SAS);
  registerCredential(env.STORAGE_KEY);
  // What DefaultAzureCredential may read (--auth entra): never echoed by an error it passes on.
  for (const name of ['AZURE_CLIENT_SECRET', 'AZURE_CLIENT_CERTIFICATE_PASSWORD', 'IDENTITY_HEADER', 'MSI_SECRET']) registerSecret(env[name]);
  registerCredential(env.BLOB_CACHER_RUN_STORE);
}

function targetOf(c: Credentials): { kind: string; label: string } {
  switch (c.kind) {
    case 'embedded': return { kind: 'embedded-azurite', label: 'embedded Azurite' };
    case 'url': return { kind: 'url', label: `url ${new URL(c.url).host}` };
    default: return { kind: 'account', label: `account ${c.account}` };
  }
}

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

// The engines, the reports and the SDK behind them load when a command needs them: --help and a
// bad option answer without them.
async function workloadOf(config: Config): Promise<SessionCell['workload']> {
  if ('uploadMethod' in config) return (await import('../engine/upload.js')).uploadWorkload(config);
  return (await import('../engine/download.js')).downloadWorkload(config);
}

/**
 * Runs a session and keeps its results file current (to within a second), so that a run that fails or
 * is stopped part-way still leaves what it measured (marked incomplete).
 */
export async function measure(m: Measurement): Promise<number> {
  const path = m.config.resultsPath ?? defaultResultsPath(m.stem);
  // A path that cannot take the results fails now, before any work, not after the run.
  await checkResultsPath(path);
  // Scratch left by a run that was killed (SIGKILL), whatever sink this one uses.
  await (await import('../payload/scratch.js')).sweepStaleScratchDirs().catch(() => []);
  const doc = newResultsFile(m.command, m.docConfig, targetOf(m.config.credentials));
  // Where it runs, before it runs: the connect time is measured on an idle machine.
  const { captureEnvironment, IMDS_URL, isRemote } = await import('./environment.js');
  Object.assign(doc.environment, await captureEnvironment({ endpoint: endpointOf(m.config.credentials), imdsUrl: IMDS_URL }));
  // Against a real account (remote, not a plain URL), say what the session will cost before it does.
  const remote = isRemote(doc.environment.endpoint);
  if (remote && m.config.credentials.kind !== 'url' && !m.config.steady) log.info(await sessionEstimate(m.command, m.config, m.cells.length, m.output.prices));
  if (m.sweep) doc.sweep = m.sweep;
  if (m.config.slo) doc.slo = m.config.slo;
  // --metrics: live points, a listener like progress; a bad file path exits 2 here, before any work.
  const metrics = m.config.metrics?.length ? (await import('./live-metrics.js')).startLiveMetrics(m.config.metrics, {
    intervalMs: m.config.metricsIntervalMs ?? 1_000, token: m.config.metricsToken, runId: basename(path, '.json'), command: m.command,
    targetKind: doc.environment.targetKind, version: doc.environment.packageVersion,
  }) : undefined;
  const results = new ResultsWriter(path, doc);
  const stop = new StopController(m.config.deadlineMs);
  // A stop writes what finished at once: its cleanup may outlast a container's grace.
  stop.signal.addEventListener('abort', () => results.stopped(stop.reason!), { once: true });
  // Plain progress lines go with the info level: --log-level warn or error keeps stderr for problems.
  const [{ runSession }, { showProgress }, { toRunRecord }, { renderReport }, { buildReport }] = await Promise.all([
    import('../engine/session.js'), import('../report/progress.js'), import('../results/record.js'), import('../report/render.js'), import('../analysis/report-model.js'),
  ]);
  // The results file keeps what the session keeps: raw records within one run's worth, all runs together.
  const stored = new RecordBudget(doc.runs, runRecordAtMost);
  const progress = await showProgress({ lines: !['error', 'warn'].includes(m.config.logLevel), intervalMs: m.config.progressIntervalMs });
  // One client of a scale-out run: its workers wait at the start gate for the others, and its
  // results go to the storage account too.
  const scaleout = m.config.scaleout && (await import('../scaleout/client.js')).scaleoutClient(m.config.scaleout, m.config.container);
  let target = doc.environment.target;
  try {
    const run: RunCells = (cells) => runSession(cells, {
      signal: stop.signal,
      startGate: scaleout?.gate,
      stopGraceMs: m.config.stopGraceMs,
      onEvent: (e) => {
        progress.onEvent(e);
        metrics?.onEvent(e);
        if (e.type !== 'run') return;
        stored.push(toRunRecord(measuredRunAtMost(e.run, stored.room(e.run.records.length))));
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
      await scaleout?.publish({ results: doc.runs.length ? doc : undefined, error: err }).catch((e: Error) => log.error(`scale-out results not stored: ${e.message}`));
      throw err;
    }
    log.debug(`stopped: ${(err as Error).message}`);
  } finally {
    progress.close();
    stop.close();
    await metrics?.finish();
  }
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
    const report = buildReport(doc, { title, material: m.output.material, ...prices, thresholds });
    gateFailed = report.thresholds?.passed === false;
    const shown = await renderReport(report, m.config.format, { details: m.output.details, color: m.output.color, ...(notSaved ? {} : { resultsPath: path }), config: doc.config });
    process.stdout.write(`${redact(shown)}\n`);
  }
  if (notSaved) process.stderr.write(`blob-cacher: ${escapeControls(redact(notSaved))}\n`);
  const notPublished = scaleout && await scaleout.publish({ results: doc }).then(() => undefined, (e: Error) => `scale-out results not stored: ${e.message}`);
  // The storage's own error text: escaped, as every error line.
  if (notPublished) process.stderr.write(`blob-cacher: ${escapeControls(redact(notPublished))}\n`);
  if (stopped) return exitCodeOf(stopped);
  // A threshold that failed outranks a failed run (whose rules then fail too): CI reads the gate.
  return notSaved || notPublished ? 1 : gateFailed ? GATE_FAILED_EXIT : doc.runs.some(runFailed) ? 1 : 0;
}

/** A config as one cell of the session: its workload and how it is repeated; a sweep's cells name their values. */
export const cellOf = async (config: Config, cell?: SessionCell['cell']): Promise<SessionCell> => sessionCell(config, await workloadOf(config), cell);

/** Parses and validates one measuring command's options and how its report is shown; undefined after --help. */
async function loadCommand<C extends DownloadConfig | UploadConfig>(
  name: string, specs: readonly OptionSpec[], summary: string, argv: readonly string[], env: Env,
  load: (flags: Record<string, unknown>, sources: Sources) => C,
): Promise<{ config: C; output: Output } | undefined> {
  const flags = parseFlags(buildProgram(name, specs, summary), argv);
  if (!flags) return undefined;
  const sources = readSources(specs, flags, env);
  const config = load(flags, sources);
  registerSecrets([config.credentials, config.scaleout?.store], env);
  registerMetricsSecrets(config.metrics, config.metricsToken);
  setLogLevel(config.logLevel);
  log.debug(`config ${JSON.stringify(redactedConfig(config))}`);
  return { config, output: await outputOf(flags, env, sources) };
}

/**
 * The embedded target's own process starts now: Azurite's start overlaps the coordinator's set-up.
 * Its module is imported only here and where the target opens: no other run loads it.
 */
function startEmbeddedEarly(credentials: Credentials): void {
  if (credentials.kind !== 'embedded') return;
  void import('../storage/azurite-child.js').then((m) => m.startAzuriteEarly({ tls: credentials.tls }), () => {});
}

export async function downloadCommand(argv: readonly string[], env: Env, name = 'download'): Promise<number> {
  const loaded = await loadCommand(name, DOWNLOAD_OPTIONS, 'Download the same blob with each strategy and compare where the time goes.', argv, env, loadDownloadConfig);
  if (!loaded) return 0;
  const { config, output } = loaded;
  checkOutPath(config);
  checkProcessesFit(config.processes);
  startFirstWorker();
  startEmbeddedEarly(config.credentials);
  const many = config.sourceMethod !== 'all' && DOWNLOAD_STRATEGIES.some((s) => config.sourceMethod.split(',').includes(s.name) && workloadKind(s) !== 'blob');
  const pageReaders = readersOf('download', 'pageSize');
  const pages = config.sourceMethod.split(',').some((m) => pageReaders.includes(m)) ? `, pages of ${config.pageSize}` : '';
  const what = many ? `${config.fileCount} files x ${eachSize(config)}${pages}`
    : `concurrency ${config.concurrency}`;
  const title = `blob-cacher download: ${config.processes} process(es) x ${config.maxSockets} socket(s), ${what}, sink ${config.sink}`;
  return measure({ command: 'download', config, cells: [await cellOf(config)], docConfig: redactedConfig(config), title, stem: 'download', output });
}

/** Each file's size for a title: the size, or the distribution drawn from and its seed. */
function eachSize(config: { fileSizeBytes: number; fileSizes?: SizeDraw }): string {
  const d = config.fileSizes;
  if (d) return `${describeDistribution(d.distribution)} (seed ${d.seed})`;
  return `${formatBytes(config.fileSizeBytes)} (${config.fileSizeBytes} bytes)`;
}

export async function uploadCommand(argv: readonly string[], env: Env, name = 'upload'): Promise<number> {
  const loaded = await loadCommand(name, UPLOAD_OPTIONS, 'Upload many small files or one large blob with each strategy and compare where the time goes.', argv, env, loadUploadConfig);
  if (!loaded) return 0;
  const { config, output } = loaded;
  checkProcessesFit(config.processes);
  startFirstWorker();
  startEmbeddedEarly(config.credentials);
  // A plain URL takes small files only: no large blob to describe.
  const large = config.credentials.kind === 'url' ? '' : `; large blob ${formatBytes(config.blobSizeBytes)} in ${formatBytes(config.blockSizeBytes)} blocks, concurrency ${config.concurrency}`;
  const title = `blob-cacher upload: ${config.processes} process(es) x ${config.maxSockets} socket(s); `
    + `small files ${config.fileCount} x ${eachSize(config)}${large}`;
  return measure({ command: 'upload', config, cells: [await cellOf(config)], docConfig: redactedConfig(config), title, stem: 'upload', output });
}

async function parseFileArgs(name: string, summary: string, argv: readonly string[], env: Env, min: number, max: number) {
  const program = buildProgram(name, REPORT_OPTIONS, summary).argument('<files...>', 'results files').allowExcessArguments(true);
  const flags = parseFlags(program, argv);
  if (!flags) return undefined;
  const files = program.args;
  if (files.length < min || files.length > max) {
    const cmd = name.replace(/^blob-cacher /, '');
    throw new ConfigError(max === min ? `${cmd} takes exactly ${min} results files; give ${min} paths` : `${cmd} takes at least ${min} results file; give a path`);
  }
  const o = resolveOptions(REPORT_OPTIONS, flags, { env });
  const output = await outputOf(flags, env, { env });
  return { files, format: o.format, thresholds: o.thresholds ?? [], output };
}

export async function reportCommand(argv: readonly string[], env: Env, name = 'report'): Promise<number> {
  const parsed = await parseFileArgs(name, 'Recompute the report of each results file (two side by side: use compare).', argv, env, 1, Infinity);
  if (!parsed) return 0;
  if ((parsed.format === 'html' || parsed.format === 'junit') && parsed.files.length > 1) {
    throw new ConfigError(`report --format ${parsed.format} takes one results file; ` +
      'give one, or put two side by side with blob-cacher compare');
  }
  const docs = await Promise.all(parsed.files.map(readResults));
  const [{ renderReport }, { buildReport }] = await Promise.all([import('../report/render.js'), import('../analysis/report-model.js')]);
  const { prices, details, color, material } = parsed.output;
  let gateFailed = false;
  const reports = await Promise.all(docs.map((doc, i) => {
    const title = `blob-cacher report: ${parsed.files[i]}${doc.complete ? '' : ' (INCOMPLETE run)'}`;
    const report = buildReport(doc, { title, material, ...(prices ? { prices } : {}), thresholds: parsed.thresholds });
    if (report.thresholds?.passed === false) gateFailed = true;
    return renderReport(report, parsed.format, {
      details, color, resultsPath: parsed.files[i]!, config: doc.config,
    });
  }));
  // Each file is its own report: runs of different sessions are never pooled as one sample.
  process.stdout.write(`${redact(parsed.format === 'json' && reports.length > 1 ? `[${reports.join(',\n')}]` : reports.join('\n\n'))}\n`);
  return gateFailed ? GATE_FAILED_EXIT : 0;
}

export async function compareCommand(argv: readonly string[], env: Env, name = 'compare'): Promise<number> {
  const parsed = await parseFileArgs(name, 'Compare two results files per strategy and phase.', argv, env, 2, 2);
  if (!parsed) return 0;
  if (parsed.thresholds.length) {
    throw new ConfigError('compare takes no --threshold; gate one file with blob-cacher report FILE ' +
      '--threshold, or a file against earlier ones with blob-cacher check');
  }
  const [a, b] = await Promise.all(parsed.files.map(readResults));
  const [{ buildCompareReport }, { renderCompare }] = await Promise.all([import('../analysis/compare.js'), import('../report/compare.js')]);
  const result = buildCompareReport(a!, b!, [parsed.files[0]!, parsed.files[1]!]);
  process.stdout.write(`${redact(renderCompare(result, parsed.format))}\n`);
  return 0;
}

/**
 * Why collect has nothing to merge: an empty results folder, or files that were there and were all
 * left out (how many, and the first one's reason), which "empty" would hide.
 */
export function noResultsProblem(runId: string, container: string, unreadable: readonly { name: string; problem: string }[]): string {
  const where = `runs/${runId}/results/`;
  if (!unreadable.length) return `run ${runId} has no results in container ${container} (${where} is empty); check --run-id and the account`;
  const first = unreadable[0]!;
  return `run ${runId} has no readable results in container ${container}: ${unreadable.length} file(s) in ${where} were left out ` +
    `(${first.name} ${first.problem}); re-run the clients with this blob-cacher, or check --run-id`;
}

export async function collectCommand(argv: readonly string[], env: Env, name = 'collect'): Promise<number> {
  const flags = parseFlags(buildProgram(name, COLLECT_OPTIONS, 'Merge the results of a scale-out run\'s clients from the storage account: summed histograms and series, throughput over the overlap window, start spread.'), argv);
  if (!flags) return 0;
  const { collectConfig } = await import('../config/scaleout.js');
  const config = collectConfig(resolveOptions(COLLECT_OPTIONS, flags, readSources(COLLECT_OPTIONS, flags, env)));
  registerSecrets([config.store], env);
  setLogLevel(config.logLevel);
  const [{ openAccountStore }, { fetchRun, mergeClients }, { renderScaleout }, { toJson }] = await Promise.all([
    import('../scaleout/run-store.js'), import('../scaleout/collect.js'), import('../report/scaleout.js'), import('../report/safe-text.js'),
  ]);
  const store = await openAccountStore(config.store, config.container);
  const run = await fetchRun(store, config.runId);
  for (const u of run.unreadable) log.warn(`${u.name} ${u.problem}: left out`);
  const parallelism = config.parallelism ?? Math.max(0, ...run.docs.map((d) => d.parallelism));
  if (!parallelism) throw new ConfigError(noResultsProblem(config.runId, config.container, run.unreadable));
  const merged = mergeClients(config.runId, parallelism, run.docs);
  process.stdout.write(`${redact(config.format === 'json' ? toJson({ ...merged, ready: run.ready }) : renderScaleout(merged, run.ready))}\n`);
  return merged.missing.length || merged.failed.length ? 1 : 0;
}

export async function manifestCommand(argv: readonly string[], env: Env, name = 'k8s-manifest'): Promise<number> {
  // What follows `--` is the command each client runs, passed through untouched.
  const cut = argv.indexOf('--');
  const own = cut < 0 ? argv : argv.slice(0, cut);
  const program = buildProgram(name, MANIFEST_OPTIONS, 'Print a Kubernetes Job (JSON, for kubectl apply -f -) of K clients; after -- the command they run, e.g. -- download --source-method chunked.');
  const flags = parseFlags(program, own);
  if (!flags) return 0;
  const [{ manifestConfig }, { jobManifest }] = await Promise.all([import('../config/scaleout.js'), import('../scaleout/manifest.js')]);
  const config = manifestConfig(resolveOptions(MANIFEST_OPTIONS, flags, { env }), cut < 0 ? [] : argv.slice(cut + 1));
  process.stdout.write(`${JSON.stringify(jobManifest(config), null, 2)}\n`);
  return 0;
}

const SWEEP_USAGE = `usage: blob-cacher sweep [download|upload] [options]
Any option given as a comma-separated list is a grid axis; every combination is measured, e.g.
  blob-cacher sweep upload --upload-method blocks --block-size 3.2MB,6.4MB,12.8MB --concurrency 32,256,384
  blob-cacher sweep upload --processes 1,2 --max-sockets 8,25,64
  blob-cacher sweep download --source-method chunked --concurrency 2,4,8,16
The options are those of the download or upload command (see its --help).
`;

/**
 * A comma inside a swept URL (a password, a SAS signature) splits it into pieces that are no URL,
 * and a piece of a secret must not be echoed by the error that refuses it: each value of a URL axis
 * must be a URL itself, else the axis is refused by position, with the fix.
 */
function refuseSplitUrls(axes: readonly SweepAxis[], specs: readonly OptionSpec[]): void {
  const urlFlags = new Set(specs.filter((s) => s.valueName === 'url').map((s) => s.flag));
  for (const axis of axes.filter((a) => urlFlags.has(a.flag))) {
    const bad = axis.values.findIndex((v) => !/^https?:\/\/[^/?#]+/i.test(v) || !URL.canParse(v));
    if (bad >= 0) throw new ConfigError(`${axis.flag} value ${bad + 1} of ${axis.values.length} in the sweep is not an http:// or https:// URL; a comma inside a URL (a password, a SAS) splits it: write it as %2C`);
  }
}

/** `sweep` and `tune` take a direction first (download when none is named) and then its options. */
export function directionOf(argv: readonly string[]): { mode: 'download' | 'upload'; args: string[] } {
  const mode = argv[0] === 'upload' || argv[0] === 'download' ? argv[0] : 'download';
  return { mode, args: argv[0] === mode ? argv.slice(1) : [...argv] };
}

export async function sweepCommand(argv: readonly string[], env: Env): Promise<number> {
  const { mode, args } = directionOf(argv);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(SWEEP_USAGE);
    return 0;
  }
  const { axes, fixed } = findAxes(args);
  if (!axes.length) throw new ConfigError('sweep needs at least one option with a comma-separated list of values, e.g. --processes 1,2; see blob-cacher sweep --help');
  refuseSplitUrls(axes, mode === 'upload' ? UPLOAD_OPTIONS : DOWNLOAD_OPTIONS);
  const cells = gridCells(axes);
  const specs = mode === 'upload' ? UPLOAD_OPTIONS : DOWNLOAD_OPTIONS;
  // Every cell is validated before anything runs: a bad value fails fast, naming its option.
  const configs: (DownloadConfig | UploadConfig)[] = cells.map((cell) => {
    const cellArgs = cellArgv(fixed, cell);
    const flags = parseFlags(buildProgram(`sweep ${mode}`, specs, ''), cellArgs)!;
    const sources = readSources(specs, flags, env);
    const config = mode === 'upload' ? loadUploadConfig(flags, sources) : loadDownloadConfig(flags, sources);
    checkOutPath(config);
    checkProcessesFit(config.processes);
    return config;
  });
  const first = configs[0]!;
  // Every cell's credentials: a swept --key, --sas or --connection-string has a secret per cell.
  for (const c of configs) registerSecrets([c.credentials, c.scaleout?.store], env);
  setLogLevel(first.logLevel);
  const sweepFlags = parseFlags(buildProgram(`sweep ${mode}`, specs, ''), fixed)!;
  const output = await outputOf(sweepFlags, env, readSources(specs, sweepFlags, env));
  const title = `blob-cacher sweep ${mode}: ${axes.map((a) => `${a.flag} ${a.values.join(',')}`).join(' x ')}`;
  return measure({
    command: mode, config: first, title, stem: `sweep-${mode}`, sweep: axes, output,
    docConfig: { sweep: axes, base: redactedConfig(first) },
    cells: await Promise.all(configs.map((config, i) => cellOf(config, cells[i]!))),
  });
}

/** Runs a command and exits: usage errors are one line and exit 2, failures one line and exit 1. */
export async function main(command: Command, argv: readonly string[]): Promise<void> {
  try {
    process.exitCode = await command(argv, process.env);
  } catch (err) {
    // Usage errors exit 2; a scale-out barrier's errors carry their own code (3, 4, 5).
    if (err instanceof ExitError) {
      const line = `blob-cacher: ${escapeControls(redact(err.message))}\n`;
      if (!(err instanceof ToldError)) process.stderr.write(line);
      process.exitCode = err.exitCode;
      return;
    }
    const e = err as NodeJS.ErrnoException;
    process.stderr.write(`blob-cacher: ${escapeControls(redact(e.message ?? String(err)).split('\n')[0]!)}\n`);
    process.exitCode = 1;
  } finally {
    // What is left is winding down (the workers told to exit): a stop signal now ends it at once,
    // with the command's exit code, not by the signal's default action (killed: no exit code of ours).
    for (const s of STOP_SIGNALS) process.on(s, () => process.exit());
  }
}
