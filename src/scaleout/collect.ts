// Merging the clients of a scale-out run, as warp merges its clients: every time on the storage
// service's clock (each client's records shifted by its offset), histograms added, per-second
// series summed, and throughput counted over the overlap window alone, when every client was
// running (warp's active time range), so that one client's ramp-up or tail is not divided by K.
import { cellLabel } from '../analysis/analyze.js';
import {
  PhaseHistograms,
  summarizeHistogram,
  type EncodedHistograms,
  type LatencySummaryMs,
} from '../metrics/histograms.js';
import { RECORD_COLUMNS, runFailed, type RunRecord } from '../results/schema.js';
import { parseClientResults, type ClientResults } from './client-results.js';
import { runPaths, type RunStore } from './run-store.js';

const COL = {
  bytes: RECORD_COLUMNS.indexOf('bytes'),
  start: RECORD_COLUMNS.indexOf('startEpochMs'),
  total: RECORD_COLUMNS.indexOf('totalMs'),
  error: RECORD_COLUMNS.indexOf('error'),
};

/** One request on the service's clock; `weight` counts the requests a sampled row stands for. */
interface Span {
  startMs: number;
  endMs: number;
  bytes: number;
  weight: number;
}

export interface ClientSummary {
  index: number;
  host: string;
  clockOffsetMs?: number;
  clockUncertaintyMs?: number;
  /** Its first request's start and its measured runs' first start and last end, on the service's clock. */
  firstStartMs?: number;
  /** That first start after the earliest client's, ms. */
  startAfterEarliestMs?: number;
  activeStartMs?: number;
  activeEndMs?: number;
  requests: number;
  failedRequests: number;
  bytes: number;
  /** Why it failed, when it did (its own failure, or runs that did not verify). */
  problem?: string;
}

export interface SecondBucket {
  /** The second's start on the service's clock (epoch ms). */
  atMs: number;
  bytes: number;
  requests: number;
}

export interface ContenderMerge {
  label: string;
  runs: number;
  requests: number;
  bytes: number;
  histograms: EncodedHistograms;
  totalMs?: LatencySummaryMs;
}

export interface ScaleoutMerge {
  runId: string;
  parallelism: number;
  clients: ClientSummary[];
  /** Indices with no results at all, and clients that failed: the merge is short of them. */
  missing: number[];
  failed: { index: number; problem: string }[];
  /** Max − min of the clients' first request starts, on the service's clock. */
  startSpreadMs?: number;
  /** When every client with results was running: [latest start, earliest end]. */
  overlap?: {
    startMs: number;
    endMs: number;
    durationMs: number;
    bytes: number;
    requests: number;
    throughputMiBps: number;
    requestsPerSecond: number;
  };
  totals: { requests: number; failedRequests: number; bytes: number };
  series: SecondBucket[];
  contenders: ContenderMerge[];
}

function spansOf(run: RunRecord, offsetMs: number): Span[] {
  // A steady run (--duration) keeps each item's last request only: its series holds every request,
  // one span per interval, weighted by the requests that ended in it.
  if (run.steady) {
    const { releaseEpochMs, intervalMs, series } = run.steady;
    return series.flatMap((p, i) => {
      if (!p.ops) return [];
      const startMs = releaseEpochMs + offsetMs + i * intervalMs;
      return [{ startMs, endMs: startMs + intervalMs, bytes: p.bytes / p.ops, weight: p.ops }];
    });
  }
  const weight = run.records.length ? run.requests / run.records.length : 0;
  return run.records.map((row) => {
    const startMs = (row[COL.start] as number) + offsetMs;
    return { startMs, endMs: startMs + (row[COL.total] as number), bytes: row[COL.bytes] as number, weight };
  });
}

/**
 * The part of [startMs, endMs] inside [a, b], as a fraction of it (a zero-length request counts where it
 * ends).
 */
function fractionWithin(s: Span, a: number, b: number): number {
  const len = s.endMs - s.startMs;
  if (len <= 0) return s.endMs >= a && s.endMs < b ? 1 : 0;
  return Math.max(0, Math.min(s.endMs, b) - Math.max(s.startMs, a)) / len;
}

export function mergeClients(
  runId: string,
  parallelism: number,
  docs: readonly ClientResults[],
): ScaleoutMerge {
  const byIndex = new Map(docs.map((d) => [d.index, d]));
  const missing = Array.from({ length: parallelism }, (_, i) => i).filter((i) => !byIndex.has(i));
  const acc: Gathered = {
    clients: [],
    failed: [],
    spans: [],
    active: [],
    firstStarts: [],
    groups: new Map(),
  };
  for (const doc of [...docs].sort((a, b) => a.index - b.index)) gatherClient(doc, acc);
  const { clients, failed, spans, active, firstStarts, groups } = acc;
  const totals = {
    requests: clients.reduce((s, c) => s + c.requests, 0),
    failedRequests: clients.reduce((s, c) => s + c.failedRequests, 0),
    bytes: clients.reduce((s, c) => s + c.bytes, 0),
  };
  const merge: ScaleoutMerge = {
    runId,
    parallelism,
    clients,
    missing,
    failed,
    totals,
    series: secondSeries(spans),
    contenders: contendersOf(groups),
  };
  if (firstStarts.length) {
    const earliest = Math.min(...firstStarts);
    merge.startSpreadMs = Math.max(...firstStarts) - earliest;
    for (const c of clients) {
      if (c.firstStartMs !== undefined) c.startAfterEarliestMs = c.firstStartMs - earliest;
    }
  }
  const overlap = active.length ? overlapOf(active, spans) : undefined;
  if (overlap) merge.overlap = overlap;
  return merge;
}

/** What the clients' results add up to, one client after another. */
interface Gathered {
  clients: ClientSummary[];
  failed: { index: number; problem: string }[];
  /** Every measured request, on the service's clock. */
  spans: Span[];
  /** Each client's measured runs' [first start, last end]. */
  active: [number, number][];
  /** Each client's first request's start, warm-ups included. */
  firstStarts: number[];
  /** Measured runs by contender and cell. */
  groups: Map<string, RunRecord[]>;
}

function gatherClient(doc: ClientResults, acc: Gathered): void {
  const offsetMs = doc.clock?.recordsOffsetMs ?? 0;
  const all = doc.results?.runs ?? [];
  const measured = all.filter((r) => !r.warmup);
  const summary: ClientSummary = {
    index: doc.index,
    host: doc.host,
    clockOffsetMs: doc.clock?.offsetMs,
    clockUncertaintyMs: doc.clock?.uncertaintyMs,
    requests: measured.reduce((s, r) => s + r.requests, 0),
    failedRequests: measured.reduce((s, r) => s + r.failedRequests, 0),
    bytes: measured.reduce((s, r) => s + r.bytes, 0),
  };
  // Each run's spans once; bounds by loop, not by spreading 20,000 values per run into Math.min.
  let first = Infinity;
  let activeStart = Infinity;
  let activeEnd = -Infinity;
  for (const r of all) {
    for (const span of spansOf(r, offsetMs)) {
      first = Math.min(first, span.startMs);
      if (r.warmup) continue;
      activeStart = Math.min(activeStart, span.startMs);
      activeEnd = Math.max(activeEnd, span.endMs);
      acc.spans.push(span);
    }
  }
  if (first < Infinity) {
    summary.firstStartMs = first;
    acc.firstStarts.push(first);
  }
  if (activeEnd > -Infinity) {
    summary.activeStartMs = activeStart;
    summary.activeEndMs = activeEnd;
    acc.active.push([activeStart, activeEnd]);
  }
  summary.problem = doc.failure ?? problemOf(doc, measured);
  if (summary.problem) acc.failed.push({ index: doc.index, problem: summary.problem });
  acc.clients.push(summary);
  for (const r of measured) {
    const label = cellLabel(r.strategy, r.cell);
    const group = acc.groups.get(label);
    if (group) group.push(r);
    else acc.groups.set(label, [r]);
  }
}

/** What is wrong with a client's results that it did not say itself; undefined for nothing. */
function problemOf(doc: ClientResults, measured: readonly RunRecord[]): string | undefined {
  if (!doc.results) return 'no results';
  if (!measured.length) return 'no measured runs';
  const unverified = measured.filter(runFailed);
  if (!unverified.length) return undefined;
  return `${unverified.length} run(s) not verified: ${unverified[0]!.error ?? unverified[0]!.verification}`;
}

/** When every client was running, and what moved then; none where their runs do not overlap. */
function overlapOf(active: readonly [number, number][], spans: readonly Span[]): ScaleoutMerge['overlap'] {
  const startMs = Math.max(...active.map(([s]) => s));
  const endMs = Math.min(...active.map(([, e]) => e));
  if (endMs <= startMs) return undefined;
  const bytes = spans.reduce((s, x) => s + x.bytes * x.weight * fractionWithin(x, startMs, endMs), 0);
  const requests = spans.reduce((s, x) => s + (x.endMs >= startMs && x.endMs <= endMs ? x.weight : 0), 0);
  const seconds = (endMs - startMs) / 1000;
  return {
    startMs,
    endMs,
    durationMs: endMs - startMs,
    bytes,
    requests,
    throughputMiBps: bytes / 1024 / 1024 / seconds,
    requestsPerSecond: requests / seconds,
  };
}

/** Bytes spread over the seconds each request spans; a request counted in the second it ended. */
function secondSeries(spans: readonly Span[]): SecondBucket[] {
  const buckets = new Map<number, SecondBucket>();
  const at = (second: number) => {
    let b = buckets.get(second);
    if (!b) buckets.set(second, (b = { atMs: second, bytes: 0, requests: 0 }));
    return b;
  };
  for (const s of spans) {
    at(Math.floor(s.endMs / 1000) * 1000).requests += s.weight;
    for (let second = Math.floor(s.startMs / 1000) * 1000; second <= s.endMs; second += 1000) {
      at(second).bytes += s.bytes * s.weight * fractionWithin(s, second, second + 1000);
    }
  }
  return [...buckets.values()].sort((a, b) => a.atMs - b.atMs);
}

function contendersOf(groups: ReadonlyMap<string, RunRecord[]>): ContenderMerge[] {
  return [...groups].map(([label, runs]) => {
    const hist = new PhaseHistograms();
    for (const r of runs) hist.addEncoded(r.histograms);
    const total = hist.byMetric.get('total');
    return {
      label,
      runs: runs.length,
      requests: runs.reduce((s, r) => s + r.requests, 0),
      bytes: runs.reduce((s, r) => s + r.bytes, 0),
      histograms: hist.encode(),
      ...(total && total.totalCount > 0 ? { totalMs: summarizeHistogram(total) } : {}),
    };
  });
}

export interface CollectedRun {
  docs: ClientResults[];
  /** Files under results/ that could not be read, with why. */
  unreadable: { name: string; problem: string }[];
  /** Indices that wrote a ready marker (they reached the barrier). */
  ready: number[];
}

/** Every client's results of run `runId`, downloaded concurrently. */
export async function fetchRun(store: RunStore, runId: string): Promise<CollectedRun> {
  const paths = runPaths(runId);
  const [blobs, markers] = await Promise.all([
    store.list(paths.resultsPrefix),
    store.list(paths.readyPrefix),
  ]);
  const unreadable: CollectedRun['unreadable'] = [];
  const docs = (
    await Promise.all(
      blobs.map(async (b) => {
        const parsed = parseClientResults((await store.get(b.name)) ?? '');
        if ('problem' in parsed) unreadable.push({ name: b.name, problem: parsed.problem });
        else if (parsed.doc.runId !== runId)
          unreadable.push({ name: b.name, problem: `belongs to run ${parsed.doc.runId}` });
        else return parsed.doc;
        return undefined;
      }),
    )
  ).filter((d): d is ClientResults => d !== undefined);
  const ready = markers
    .map((m) => m.name.slice(paths.readyPrefix.length))
    .filter((n) => /^\d+$/.test(n))
    .map(Number)
    .sort((a, b) => a - b);
  return { docs, unreadable, ready };
}
