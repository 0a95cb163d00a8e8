// Writing and reading results files. Writes go to a temporary name and are renamed into place, so
// a file is never seen half-written; reads reject unknown schemas with one clear line.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { arch, cpus, platform, release, totalmem } from 'node:os';
import { dirname } from 'node:path';
import type { StrategyResult } from '../metrics/summary.js';
import { ConfigError } from '../config/errors.js';
import { PHASES } from '../transport/phases.js';
import type { OpRecord } from '../workers/protocol.js';
import { MAX_RECORDS_PER_RUN, RESULTS_SCHEMA, RESULTS_SCHEMA_VERSION, type RecordRow, type ResultsFile, type StrategyRun } from './schema.js';

const packageVersion = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

export function newResultsFile(command: ResultsFile['command'], config: Record<string, unknown>, target: { kind: string; label: string }): ResultsFile {
  const cpu = cpus();
  return {
    schema: RESULTS_SCHEMA,
    schemaVersion: RESULTS_SCHEMA_VERSION,
    command,
    createdAt: new Date().toISOString(),
    complete: false,
    config,
    environment: {
      node: process.version, os: `${platform()} ${release()}`, arch: arch(), cpus: cpu.length, cpuModel: cpu[0]?.model ?? 'unknown',
      totalMemoryBytes: totalmem(), targetKind: target.kind, target: target.label, packageVersion,
    },
    strategies: [],
  };
}

export function defaultResultsPath(command: string, now = new Date()): string {
  return `results/${command}-${now.toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}.json`;
}

function toRow(r: OpRecord): RecordRow {
  const phase = (p: (typeof PHASES)[number]) => (r.phases[p] === undefined ? null : Math.round(r.phases[p]! * 1000) / 1000);
  return [
    r.worker, r.item, r.offsetBytes, r.bytes, r.status, Math.round(r.startEpochMs * 1000) / 1000, Math.round(r.totalMs * 1000) / 1000,
    ...PHASES.map(phase), r.reused, r.retries, r.throttled, Math.round(r.backoffMs), r.error ?? null,
  ];
}

/** Evenly spaced sample when there are more records than a results file keeps. */
function sample<T>(items: readonly T[], max: number): { kept: T[]; sampled: boolean } {
  if (items.length <= max) return { kept: [...items], sampled: false };
  const step = items.length / max;
  return { kept: Array.from({ length: max }, (_, i) => items[Math.floor(i * step)]!), sampled: true };
}

export function toStrategyRun(r: StrategyResult): StrategyRun {
  const { kept, sampled } = sample(r.records, MAX_RECORDS_PER_RUN);
  return {
    strategy: r.strategy, description: r.description, run: r.run, warmup: r.warmup, objectSizeBytes: r.objectSizeBytes,
    wallMs: r.wallMs, bytes: r.bytes, requests: r.requests, failedRequests: r.failedRequests, reusedSockets: r.reusedSockets,
    retries: r.retries, throttled: r.throttled, backoffMs: r.backoffMs,
    phaseSumsMs: r.phaseSumsMs, requestSumMs: r.requestSumMs, histograms: r.histograms, verified: r.verified,
    verification: r.verification, error: r.error, workers: r.workers, records: kept.map(toRow), recordsSampled: sampled,
  };
}

export async function writeResults(path: string, doc: ResultsFile): Promise<void> {
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  await writeFile(tmp, `${JSON.stringify(doc)}\n`);
  await rename(tmp, path);
}

export async function readResults(path: string): Promise<ResultsFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ConfigError(`results file ${path} ${code === 'ENOENT' ? 'does not exist' : 'cannot be read'}; give the path of a file a run wrote`);
  }
  let doc: Partial<ResultsFile>;
  try {
    doc = JSON.parse(text) as Partial<ResultsFile>;
  } catch {
    throw new ConfigError(`results file ${path} is not valid JSON (corrupt or truncated); re-run the benchmark to get a new one`);
  }
  if (doc === null || typeof doc !== 'object' || doc.schema !== RESULTS_SCHEMA) {
    throw new ConfigError(`${path} is not a blob-cacher results file; give a file written by blob-cacher download or upload`);
  }
  if (doc.schemaVersion !== RESULTS_SCHEMA_VERSION) {
    const newer = typeof doc.schemaVersion === 'number' && doc.schemaVersion > RESULTS_SCHEMA_VERSION;
    throw new ConfigError(
      `results file ${path} has schema version ${String(doc.schemaVersion)}, this blob-cacher reads version ${RESULTS_SCHEMA_VERSION}; ${newer ? 'upgrade blob-cacher to read it' : 're-run the benchmark to get a current file'}`,
    );
  }
  if (!Array.isArray(doc.strategies)) throw new ConfigError(`results file ${path} has no strategies list; it is damaged, re-run the benchmark`);
  return doc as ResultsFile;
}
