// The download engine: target -> fixtures -> per strategy (plan -> workers -> merge -> verify).
// Takes a typed config; never sees argv or the environment.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { summarizeHistogram, METRICS, type LatencySummaryMs, type MetricName } from './aggregate/histograms.js';
import type { DownloadConfig } from './config/load.js';
import { contentMd5, FIXTURE_SEED } from './fixtures/content.js';
import { ensureFixtures, removeFixtures } from './fixtures/fixtures.js';
import { log } from './log.js';
import { runOnWorkers } from './runner/coordinator.js';
import type { OpRecord } from './runner/protocol.js';
import { selectStrategies } from './strategies/index.js';
import type { DownloadStrategy } from './strategies/strategy.js';
import { containerClient, openTarget, type TargetInfo } from './target/target.js';
import { PHASES, type Phase } from './transport/phases.js';

export interface StrategyResult {
  strategy: string;
  description: string;
  objectSizeBytes: number;
  wallMs: number;
  throughputMiBps: number;
  requests: number;
  failedRequests: number;
  bytes: number;
  reusedSockets: number;
  /** Share of summed request time spent in each phase (0..1). */
  phaseShare: Partial<Record<Phase, number>>;
  latencyMs: Partial<Record<MetricName, LatencySummaryMs>>;
  verified: boolean;
  verification: string;
  workers: { index: number; requests: number; cpuUserMs: number; cpuSystemMs: number; peakRssBytes: number }[];
  records: OpRecord[];
  error?: string;
}

export interface DownloadRunResult {
  target: string;
  objectSizeBytes: number;
  results: StrategyResult[];
  fixtures: { created: string[]; reused: string[] };
}

async function md5OfFile(path: string): Promise<string> {
  const hash = createHash('md5');
  for await (const chunk of createReadStream(path, { highWaterMark: 4 * 1024 * 1024 })) hash.update(chunk as Buffer);
  return hash.digest('base64');
}

async function objectSize(config: DownloadConfig, info: TargetInfo): Promise<number> {
  if (info.kind === 'blob') return config.fileSizeBytes;
  // A plain URL: its real size, from a HEAD (falling back to a 1-byte range GET).
  const head = await fetch(info.url, { method: 'HEAD' });
  const len = head.headers.get('content-length');
  if (head.ok && len !== null) return Number(len);
  throw new Error(`HEAD ${new URL(info.url).host} gave HTTP ${head.status} without a Content-Length; check --url`);
}

function summarize(strategy: DownloadStrategy, size: number, run: Awaited<ReturnType<typeof runOnWorkers>>): Omit<StrategyResult, 'verified' | 'verification'> {
  const ok = run.records.filter((r) => !r.error);
  const totalSum = ok.reduce((s, r) => s + r.totalMs, 0);
  const phaseShare: Partial<Record<Phase, number>> = {};
  for (const p of PHASES) {
    const sum = ok.reduce((s, r) => s + (r.phases[p] ?? 0), 0);
    if (ok.some((r) => r.phases[p] !== undefined)) phaseShare[p] = totalSum > 0 ? sum / totalSum : 0;
  }
  const latencyMs: Partial<Record<MetricName, LatencySummaryMs>> = {};
  for (const m of METRICS) {
    const h = run.histograms.byMetric.get(m);
    if (h && h.totalCount > 0) latencyMs[m] = summarizeHistogram(h);
  }
  const bytes = run.records.reduce((s, r) => s + r.bytes, 0);
  return {
    strategy: strategy.name,
    description: strategy.description,
    objectSizeBytes: size,
    wallMs: run.wallMs,
    throughputMiBps: run.wallMs > 0 ? bytes / 1024 / 1024 / (run.wallMs / 1000) : 0,
    requests: run.records.length,
    failedRequests: run.records.length - ok.length,
    bytes,
    reusedSockets: run.records.filter((r) => r.reused).length,
    phaseShare,
    latencyMs,
    workers: run.workers.map((w) => ({ index: w.workerIndex, requests: w.records.length, cpuUserMs: w.cpuUserMs, cpuSystemMs: w.cpuSystemMs, peakRssBytes: w.peakRssBytes })),
    records: run.records,
  };
}

export async function runDownload(config: DownloadConfig): Promise<DownloadRunResult> {
  const target = await openTarget(config.credentials, config.container);
  const results: StrategyResult[] = [];
  let fixtures = { created: [] as string[], reused: [] as string[] };
  try {
    log.info(`target: ${target.label}`);
    const info = target.info;
    const size = await objectSize(config, info);
    const input = { sizeBytes: size, concurrency: config.concurrency };
    const strategies = selectStrategies(config.sourceMethod, info.kind === 'url');
    if (info.kind === 'blob') {
      const container = containerClient(info);
      fixtures = await ensureFixtures(container, strategies.flatMap((s) => s.fixtures(input)));
    }
    for (const strategy of strategies) {
      const items = strategy.plan(input, info.kind === 'url');
      const outPath = config.sink === 'file' || config.sink === 'sparse-file'
        ? (config.outPath ?? join(tmpdir(), `blob-cacher-${process.pid}-${strategy.name}.out`))
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
          bufferSizeBytes: config.bufferSizeBytes, logLevel: config.logLevel,
        }, items, config.processes);
        const base = summarize(strategy, size, run);
        const check = await verify(strategy, items, run.records, size, info, config.sink === 'file' || config.sink === 'sparse-file' ? outPath : undefined);
        result = { ...base, ...check };
      } catch (err) {
        result = { ...emptyResult(strategy, size), error: (err as Error).message, verified: false, verification: 'not run' };
      } finally {
        if (outPath && config.outPath === undefined) await rm(outPath, { force: true });
      }
      if (!result.verified) log.error(`${strategy.name}: ${result.error ?? result.verification}`);
      results.push(result);
    }
    if (config.cleanup && info.kind === 'blob' && fixtures.created.length) {
      await removeFixtures(containerClient(info), fixtures.created);
      log.info(`cleanup: removed ${fixtures.created.length} fixture(s) this run created`);
    }
    return { target: target.label, objectSizeBytes: size, results, fixtures };
  } finally {
    await target.stop();
  }
}

function emptyResult(strategy: DownloadStrategy, size: number): Omit<StrategyResult, 'verified' | 'verification'> {
  return {
    strategy: strategy.name, description: strategy.description, objectSizeBytes: size, wallMs: 0, throughputMiBps: 0,
    requests: 0, failedRequests: 0, bytes: 0, reusedSockets: 0, phaseShare: {}, latencyMs: {}, workers: [], records: [],
  };
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
