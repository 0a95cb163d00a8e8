// The download engine: target -> fixtures -> per strategy (plan -> workers -> merge -> verify).
// Takes a typed config; never sees argv or the environment.
import { open, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { emptyResult, summarizeRun, type StrategyResult } from '../metrics/summary.js';
export type { StrategyResult } from '../metrics/summary.js';
import type { DownloadConfig } from '../config/load.js';
import { contentMd5, FIXTURE_SEED } from '../payload/content.js';
import { ensureFixtures, removeFixtures } from '../payload/fixtures.js';
import { log } from '../log/logger.js';
import { runOnWorkers } from '../workers/pool.js';
import { md5OfFileRange } from '../workers/sinks.js';
import { stopRequested } from './stop.js';
import type { OpRecord } from '../workers/protocol.js';
import { selectStrategies } from '../strategies/index.js';
import type { DownloadStrategy, PlanInput } from '../strategies/strategy.js';
import { preflightContainer, preflightUrl } from '../storage/preflight.js';
import { containerClient, openTarget, type TargetInfo } from '../storage/target.js';

export interface DownloadRunResult {
  target: string;
  objectSizeBytes: number;
  results: StrategyResult[];
  fixtures: { created: string[]; reused: string[] };
}

async function md5OfFile(path: string): Promise<string> {
  const fh = await open(path, 'r');
  try {
    return await md5OfFileRange(fh, 0, (await fh.stat()).size);
  } finally {
    await fh.close();
  }
}

export async function runDownload(config: DownloadConfig, onResult?: (result: StrategyResult) => void): Promise<DownloadRunResult> {
  const target = await openTarget(config.credentials, config.container);
  const results: StrategyResult[] = [];
  let fixtures = { created: [] as string[], reused: [] as string[] };
  try {
    log.info(`target: ${target.label}`);
    const info = target.info;
    const size = info.kind === 'url' ? await preflightUrl(info.url) : config.fileSizeBytes;
    const input = { sizeBytes: size, concurrency: config.concurrency, rangeSizeBytes: config.rangeSizeBytes };
    const strategies = selectStrategies(config.sourceMethod, info.kind === 'url');
    if (info.kind === 'blob') {
      const container = await containerClient(info);
      await preflightContainer(container, target.label);
      fixtures = await ensureFixtures(container, strategies.flatMap((s) => s.fixtures(input)));
    }
    const warmup = config.warmup ?? 0;
    const total = warmup + (config.runs ?? 1);
    // Runs are interleaved (every strategy once, then again) so drift hits all strategies alike.
    runs: for (let runIndex = 0; runIndex < total; runIndex++) {
      for (const strategy of strategies) {
        if (stopRequested()) break runs;
        const result = await runStrategyOnce(config, info, strategy, input, size);
        if (stopRequested() && result.records.some((r) => r.error?.startsWith('cancelled'))) {
          log.warn(`${strategy.name}: run ${runIndex + 1} was cut short by the stop and is not recorded`);
          break runs;
        }
        result.run = runIndex;
        result.warmup = runIndex < warmup;
        const tag = total > 1 ? ` (${result.warmup ? 'warm-up' : 'run'} ${runIndex + 1}/${total})` : '';
        if (!result.verified) log.error(`${strategy.name}${tag}: ${result.error ?? result.verification}`);
        results.push(result);
        onResult?.(result);
      }
    }
    // Interrupted runs clean up the fixtures they created, as --cleanup would.
    if ((config.cleanup || stopRequested()) && info.kind === 'blob' && fixtures.created.length) {
      await removeFixtures(await containerClient(info), fixtures.created);
      log.info(`cleanup: removed ${fixtures.created.length} fixture(s) this run created`);
    }
    return { target: target.label, objectSizeBytes: size, results, fixtures };
  } finally {
    await target.stop();
  }
}

async function runStrategyOnce(
  config: DownloadConfig, info: TargetInfo, strategy: DownloadStrategy, input: PlanInput, size: number,
): Promise<StrategyResult> {
  const items = strategy.plan(input, info.kind === 'url');
  // The sdk baseline downloads to its own buffer: it must not create or truncate the output file.
  const writesFile = strategy.executor === 'http' && (config.sink === 'file' || config.sink === 'sparse-file');
  // A file given with --out is written under a temporary name and renamed only once verified.
  const outPath = writesFile
    ? (config.outPath ? `${config.outPath}.partial` : join(tmpdir(), `blob-cacher-${process.pid}-${strategy.name}.out`))
    : undefined;
  if (config.sink === 'sparse-file' && outPath) {
    const fh = await open(outPath, 'w');
    await fh.truncate(size);
    await fh.close();
  }
  log.info(`${strategy.name}: ${items.length} request(s) over ${config.processes} process(es) x ${config.maxSockets} socket(s)`);
  let result: StrategyResult;
  try {
    const run = await runOnWorkers({
      strategy: strategy.name, executor: strategy.executor, target: info, objectSizeBytes: size,
      concurrency: config.concurrency, maxSockets: config.maxSockets, sink: config.sink, outPath,
      bufferSizeBytes: config.bufferSizeBytes, httpClient: config.httpClient, logLevel: config.logLevel,
      // A plain URL has no source MD5 to compare with. Other sinks hash after the timed section (the
      // records keep each range's MD5); discard would have to hash inside it, so it drops bytes unseen.
      hashRanges: info.kind === 'blob' || config.sink !== 'discard',
      // Fixed-size ranges: --concurrency of them in flight over all processes (the rest wait their turn
      // unissued); equal ranges: all issued at once. The SDK baseline uses the same block size.
      inFlight: config.rangeSizeBytes ? Math.max(1, Math.floor(config.concurrency / config.processes)) : undefined,
      blockSizeBytes: config.rangeSizeBytes,
      maxRetries: config.maxRetries ?? 3, timeoutMs: config.timeoutMs ?? 30_000, trace: config.trace ?? true,
    }, items, config.processes);
    const base = summarizeRun(strategy, size, run);
    const check = await verify(strategy, items, run.records, size, info, config.sink === 'file' || config.sink === 'sparse-file' ? outPath : undefined);
    result = { ...base, ...check };
    if (run.failures.length) result = { ...result, verified: false, error: run.failures.join('; ') };
    if (outPath && config.outPath) {
      if (result.verified) await rename(outPath, config.outPath);
      else log.warn(`${strategy.name}: output left as ${outPath} (not verified)`);
    }
  } catch (err) {
    result = { ...emptyResult(strategy, size), error: (err as Error).message, verified: false, verification: 'not run' };
  } finally {
    if (outPath && config.outPath === undefined) await rm(outPath, { force: true });
  }
  return result;
}

/** Every delivered byte is checked: each range against the regenerated fixture, files as a whole. */
async function verify(
  strategy: DownloadStrategy, items: ReturnType<DownloadStrategy['plan']>, records: OpRecord[], size: number,
  info: TargetInfo, filePath?: string,
): Promise<{ verified: boolean; verification: string }> {
  const failed = records.filter((r) => r.error);
  if (failed.length) return { verified: false, verification: `${failed.length} request(s) failed: ${failed[0]!.error}` };
  const bytes = records.reduce((s, r) => s + r.bytes, 0);
  if (bytes !== size) return { verified: false, verification: `delivered ${bytes} bytes, expected ${size}` };
  if (info.kind === 'url') {
    if (filePath) return { verified: true, verification: `bytes ${bytes} (plain URL, md5 ${await md5OfFile(filePath)})` };
    return { verified: true, verification: `bytes ${bytes} (plain URL: no source MD5 to compare)` };
  }
  if (strategy.executor === 'sdk') {
    const expected = contentMd5(FIXTURE_SEED, 0, size);
    return records[0]?.md5 === expected
      ? { verified: true, verification: `md5 ${expected}` }
      : { verified: false, verification: `MD5 MISMATCH: got ${records[0]?.md5}, expected ${expected}` };
  }
  for (const item of items) {
    const rec = records.find((r) => r.item === item.index);
    const expected = contentMd5(FIXTURE_SEED, item.destOffsetBytes, item.lengthBytes);
    if (rec?.md5 !== expected) {
      return { verified: false, verification: `MD5 MISMATCH in ${item.blob} at offset ${item.destOffsetBytes}: got ${rec?.md5}, expected ${expected}` };
    }
  }
  const whole = contentMd5(FIXTURE_SEED, 0, size);
  if (filePath) {
    const got = await md5OfFile(filePath);
    if (got !== whole) return { verified: false, verification: `MD5 MISMATCH of ${filePath}: got ${got}, expected ${whole}` };
  }
  return { verified: true, verification: `md5 ${whole} (${items.length} range(s) checked)` };
}
