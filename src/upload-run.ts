// The upload engine: target -> per strategy (plan -> workers -> commit -> verify -> delete).
// Blob names carry a per-run prefix, so runs never collide; the run's blobs are deleted unless --keep.
import { createHash, randomBytes } from 'node:crypto';
import type { ContainerClient } from '@azure/storage-blob';
import pLimit from 'p-limit';
import { emptyResult, summarizeRun, type StrategyResult } from './aggregate/summary.js';
import type { UploadConfig } from './config/load.js';
import { contentMd5, FIXTURE_SEED } from './fixtures/content.js';
import { log } from './log.js';
import { runOnWorkers, type MergedRun } from './runner/coordinator.js';
import { stopRequested } from './runner/stop.js';
import type { OpRecord } from './runner/protocol.js';
import { selectUploadStrategies } from './strategies/index.js';
import type { WorkItem } from './strategies/strategy.js';
import type { BlockCommit, UploadPlanInput, UploadStrategy } from './strategies/upload-strategy.js';
import { preflightContainer } from './target/preflight.js';
import { containerClient, openTarget, RequestSigner, type TargetInfo } from './target/target.js';
import { createAgent, tracedRequest } from './transport/request.js';

export interface UploadRunResult {
  target: string;
  prefix: string;
  results: StrategyResult[];
}

function runPrefix(): string {
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*$/, '');
  return `run-${stamp}-${randomBytes(3).toString('hex')}`;
}

/** Put Block List, timed from the coordinator: part of the upload's duration. */
async function commitBlocks(info: TargetInfo, commit: BlockCommit): Promise<OpRecord> {
  const signer = new RequestSigner(info);
  const url = signer.blobUrl(commit.blob);
  url.searchParams.set('comp', 'blocklist');
  const body = Buffer.from(`<?xml version="1.0" encoding="utf-8"?><BlockList>${commit.blockIds.map((id) => `<Latest>${id}</Latest>`).join('')}</BlockList>`);
  const agent = createAgent(url, 1);
  const headers = signer.headers('PUT', url, { 'content-length': String(body.length), 'content-type': 'application/xml' });
  const r = await tracedRequest({ url, method: 'PUT', headers, agent, body });
  agent.destroy();
  const error = r.error ?? (r.status === 201 ? undefined : `HTTP ${r.status}`);
  return {
    worker: -1, item: -1, blob: commit.blob, offsetBytes: 0, bytes: 0, status: r.status, startEpochMs: r.startEpochMs,
    totalMs: r.totalMs, phases: r.phases, reused: false, retries: 0, throttled: 0, backoffMs: 0, error,
  };
}

async function md5OfBlob(container: ContainerClient, blob: string): Promise<{ length: number; md5: string }> {
  const res = await container.getBlobClient(blob).download();
  const hash = createHash('md5');
  let length = 0;
  for await (const chunk of res.readableStreamBody!) {
    hash.update(chunk as Buffer);
    length += (chunk as Buffer).length;
  }
  return { length, md5: hash.digest('base64') };
}

/** Every upload is verified: each stored blob's length and MD5 equal what was sent. */
async function verifyUpload(container: ContainerClient, items: readonly WorkItem[], records: readonly OpRecord[]): Promise<{ verified: boolean; verification: string }> {
  const failed = records.filter((r) => r.error);
  if (failed.length) return { verified: false, verification: `${failed.length} request(s) failed: ${failed[0]!.error}` };
  const blobs = [...new Set(items.map((i) => i.blob!))];
  if (blobs.length > 1) {
    // Many small blobs: the listing carries the MD5 the service computed on Put Blob.
    const prefix = items[0]!.blob!.slice(0, items[0]!.blob!.lastIndexOf('/') + 1);
    const stored = new Map<string, { length: number; md5?: string }>();
    for await (const b of container.listBlobsFlat({ prefix })) {
      stored.set(b.name, { length: b.properties.contentLength ?? -1, md5: b.properties.contentMD5 ? Buffer.from(b.properties.contentMD5).toString('base64') : undefined });
    }
    for (const item of items) {
      const s = stored.get(item.blob!);
      const expected = contentMd5(FIXTURE_SEED, item.destOffsetBytes, item.lengthBytes);
      if (!s) return { verified: false, verification: `${item.blob} is missing after upload` };
      if (s.length !== item.lengthBytes) return { verified: false, verification: `${item.blob} has ${s.length} bytes, sent ${item.lengthBytes}` };
      if (s.md5 !== undefined && s.md5 !== expected) return { verified: false, verification: `MD5 MISMATCH for ${item.blob}` };
      if (s.md5 === undefined) {
        const got = await md5OfBlob(container, item.blob!);
        if (got.md5 !== expected) return { verified: false, verification: `MD5 MISMATCH for ${item.blob}` };
      }
    }
    return { verified: true, verification: `${items.length} blob(s): length and MD5 match` };
  }
  for (const blob of blobs) {
    const mine = items.filter((i) => i.blob === blob);
    const offset = Math.min(...mine.map((i) => i.destOffsetBytes));
    const length = mine.reduce((s, i) => s + i.lengthBytes, 0);
    const expected = contentMd5(FIXTURE_SEED, offset, length);
    const got = await md5OfBlob(container, blob);
    if (got.length !== length) return { verified: false, verification: `${blob} has ${got.length} bytes, sent ${length}` };
    if (got.md5 !== expected) return { verified: false, verification: `MD5 MISMATCH for ${blob}: got ${got.md5}, expected ${expected}` };
  }
  return { verified: true, verification: `${blobs.length} blob(s): length and MD5 match` };
}

async function deletePrefix(container: ContainerClient, prefix: string): Promise<number> {
  const limit = pLimit(32);
  const deletions: Promise<unknown>[] = [];
  for await (const b of container.listBlobsFlat({ prefix: `${prefix}/` })) {
    deletions.push(limit(() => container.deleteBlob(b.name, { deleteSnapshots: 'include' })));
  }
  await Promise.all(deletions);
  return deletions.length;
}

function inFlightFor(strategy: UploadStrategy, config: UploadConfig): number | undefined {
  if (strategy.executor === 'sdk-small-files') return config.maxSockets;
  if (strategy.name === 'blocks') return Math.max(1, Math.ceil(config.concurrency / config.processes));
  return undefined;
}

async function uploadOnce(
  config: UploadConfig, info: Extract<TargetInfo, { kind: 'blob' }>, container: ContainerClient,
  strategy: UploadStrategy, prefix: string, runIndex: number,
): Promise<StrategyResult> {
  const input: UploadPlanInput = {
    prefix: `${prefix}/${strategy.name}/${runIndex}`, fileCount: config.fileCount, fileSizeBytes: config.fileSizeBytes,
    blobSizeBytes: config.blobSizeBytes, blockSizeBytes: config.blockSizeBytes, thresholdBytes: config.thresholdBytes,
  };
  const items = strategy.plan(input);
  const totalBytes = items.reduce((s, i) => s + i.lengthBytes, 0);
  log.info(`${strategy.name}: ${items.length} request(s) over ${config.processes} process(es) x ${config.maxSockets} socket(s)`);
  let result: StrategyResult;
  try {
    const run: MergedRun = await runOnWorkers({
      strategy: strategy.name, executor: strategy.executor, target: info, objectSizeBytes: totalBytes,
      concurrency: config.concurrency, maxSockets: config.maxSockets, sink: 'discard', bufferSizeBytes: 64 * 1024,
      logLevel: config.logLevel, blockSizeBytes: config.blockSizeBytes, thresholdBytes: config.thresholdBytes,
      inFlight: inFlightFor(strategy, config), maxRetries: config.maxRetries ?? 3, timeoutMs: config.timeoutMs ?? 30_000, trace: config.trace ?? true,
    }, items, config.processes);
    const commit = strategy.commit?.(input, items);
    if (commit && run.records.every((r) => !r.error)) {
      const rec = await commitBlocks(info, commit);
      run.records.push(rec);
      run.histograms.record(rec.phases, rec.totalMs);
      run.wallMs += rec.totalMs;
    }
    result = { ...summarizeRun(strategy, totalBytes, run), ...(await verifyUpload(container, items, run.records)) };
    if (run.failures.length) result = { ...result, verified: false, error: run.failures.join('; ') };
  } catch (err) {
    result = { ...emptyResult(strategy, totalBytes), error: (err as Error).message, verified: false, verification: 'not run' };
  }
  if (!config.keep) {
    const removed = await deletePrefix(container, input.prefix);
    log.verbose(`${strategy.name}: deleted ${removed} blob(s) under ${input.prefix}/`);
  }
  return result;
}

export async function runUpload(config: UploadConfig, onResult?: (result: StrategyResult) => void): Promise<UploadRunResult> {
  const target = await openTarget(config.credentials, config.container);
  const prefix = runPrefix();
  const results: StrategyResult[] = [];
  try {
    log.info(`target: ${target.label}; blob prefix ${prefix}/`);
    if (target.info.kind !== 'blob') throw new Error('uploads need a blob target');
    const info = target.info;
    const container = await containerClient(info);
    await preflightContainer(container, target.label);
    const warmup = config.warmup ?? 0;
    const total = warmup + (config.runs ?? 1);
    runs: for (let runIndex = 0; runIndex < total; runIndex++) {
      for (const strategy of selectUploadStrategies(config.uploadMethod)) {
        if (stopRequested()) break runs;
        const result = await uploadOnce(config, info, container, strategy, prefix, runIndex);
        if (stopRequested() && result.records.some((r) => r.error?.startsWith('cancelled'))) {
          log.warn(`${strategy.name}: run ${runIndex + 1} was cut short by the stop and is not recorded`);
          break runs;
        }
        result.run = runIndex;
        result.warmup = runIndex < warmup;
        if (!result.verified) log.error(`${strategy.name}: ${result.error ?? result.verification}`);
        results.push(result);
        onResult?.(result);
      }
    }
    return { target: target.label, prefix, results };
  } finally {
    await target.stop();
  }
}
