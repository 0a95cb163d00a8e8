// Text reports computed from ContenderStats: the console table (80 columns), Markdown, CSV and JSON.
import { formatBytes } from '../config/sizes.js';
import type { ContenderStats } from '../analysis/analyze.js';
import { rankLabel, rankStats, serverGap, verdictLines, warnings, type RankedStats } from '../analysis/verdict.js';
import { median } from '../analysis/stats.js';
import { measuresOps } from '../analysis/sweep.js';
import { PHASES } from '../transport/phases.js';
import { seconds, steadyLines } from './steady.js';

/** What the check of a contender's bytes came to: "ok" only when every byte was compared with what the target vouched for. */
export const checkWord = (s: { verified: boolean; notVerified?: string }): string => (!s.verified ? 'FAILED' : s.notVerified ? `not verified (${s.notVerified})` : 'ok');

const pad = (s: string, n: number) => s.padEnd(n);
const lpad = (s: string, n: number) => s.padStart(n);
export const fmtMs = (v: number | undefined) => (v === undefined || Number.isNaN(v) ? '-' : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));

export interface ReportHeader {
  title: string;
  target: string;
  objectSizeBytes?: number;
  mode: 'download' | 'upload';
  /** The target shares this machine's CPUs (embedded Azurite, a loopback URL). */
  targetOnThisMachine?: boolean;
}

/**
 * The verdict in words and the warnings, as lines; empty when there is nothing to say. `ranked` is
 * the caller's rankStats(stats): the rank tests run once per report.
 */
export function verdictBlock(stats: readonly ContenderStats[], ranked: readonly RankedStats[], header: ReportHeader): string[] {
  const clocked = stats.filter((s) => serverGap(s));
  const server = clocked.length
    ? ['', "server clock (the target's own span of each contender's data requests, median):", ...clocked.map((s) => {
      const gap = serverGap(s)!;
      return `  ${s.label}: client ${fmtMs(median(s.timesMs))} ms, server ${fmtMs(s.serverSpanMs!.median)} ms (${gap.ms >= 0 ? '+' : ''}${fmtMs(gap.ms)} ms, ${((gap.ratio - 1) * 100).toFixed(1)}%)`;
    })]
    : [];
  const verdict = verdictLines(ranked);
  const warned = warnings(stats, header.targetOnThisMachine ?? false);
  return [...server, ...(verdict.length ? ['', 'verdict:', ...verdict.map((l) => `  ${l}`)] : []), ...(warned.length ? ['', 'warnings:', ...warned.map((l) => `  ${l}`)] : [])];
}

function timeCell(s: ContenderStats): string {
  const w = s.wallMs;
  if (w.n < 2) return w.median.toFixed(1);
  return `${w.median.toFixed(0)}±${((w.ci95High - w.ci95Low) / 2).toFixed(0)}`;
}

/** Ranked table, per-phase percentiles, then the seeds' summary lines. */
export function renderConsole(stats: readonly ContenderStats[], header: ReportHeader): string {
  const lines: string[] = [header.title];
  lines.push(`target ${header.target}${header.objectSizeBytes !== undefined ? `, object ${formatBytes(header.objectSizeBytes)}` : ''}`);
  const runs = Math.max(0, ...stats.map((s) => s.runs));
  if (runs > 1) lines.push(`${runs} measured runs per strategy: time is the median ± the 95% CI half-width`);
  const warm = stats.filter((s) => s.warmSockets !== undefined);
  if (warm.length) lines.push(`connections warm: ${warm.map((s) => `${s.label} ${s.warmSockets}`).join(', ')} socket(s) opened before the barrier per run (no connect phases inside the timed span)`);
  lines.push('');
  const opsCol = header.mode === 'upload' || measuresOps(stats);
  const countCol = opsCol ? 'ops/s' : 'reused';
  lines.push(`${pad('#', 3)}${pad('strategy', 16)}${lpad('time ms', 10)}${lpad('MiB/s', 8)}${lpad('reqs', 6)}${lpad(countCol, 8)}${lpad('p50 1stB', 9)}${lpad('p99 1stB', 9)}  verified`);
  const ranked = rankStats(stats);
  ranked.forEach((s) => {
    const fb = s.latencyMs.firstByte;
    const count = opsCol ? s.opsPerSecond.median.toFixed(0) : String(s.reusedSockets);
    const name = s.label;
    lines.push(
      `${pad(rankLabel(s), 3)}${name.length >= 16 ? `${name}\n${' '.repeat(19)}` : pad(name, 16)}${lpad(timeCell(s), 10)}${lpad(s.throughputMiBps.median.toFixed(1), 8)}` +
        `${lpad(String(s.requestsPerRun), 6)}${lpad(count, 8)}${lpad(fmtMs(fb?.p50), 9)}${lpad(fmtMs(fb?.p99), 9)}  ${checkWord(s)}`,
    );
  });
  lines.push(...verdictBlock(stats, ranked, header));
  lines.push(...steadyLines(stats));
  lines.push('');
  lines.push('per-phase latency, ms: p50 / p90 / p99 / max  (phases absent on reused sockets are not counted)');
  for (const s of stats) {
    lines.push(`${s.label}:`);
    for (const m of [...PHASES, 'total'] as const) {
      const l = s.latencyMs[m];
      if (l) lines.push(`  ${pad(m, 10)} n=${lpad(String(l.count), 5)}  ${fmtMs(l.p50)} / ${fmtMs(l.p90)} / ${fmtMs(l.p99)} / ${fmtMs(l.max)}`);
    }
  }
  lines.push('');
  for (const s of stats) {
    const shares = PHASES.filter((p) => s.phaseShare[p] !== undefined).map((p) => `${p} ${(s.phaseShare[p]! * 100).toFixed(1)}%`);
    const what = s.steady ? `steady ${seconds(s.steady.durationMs)}, one pass ${s.wallMs.median.toFixed(1)} ms at the active rate` : `duration ${s.wallMs.median.toFixed(1)} ms`;
    lines.push(`${s.label}: ${what}, count ${s.requestsPerRun}${shares.length ? `, ${shares.join(', ')}` : ''}`);
    const many = manyBlobLine(s);
    if (many) lines.push(many);
    const u = s.untimedMs;
    if (u) lines.push(`${s.label}: outside the timed span, per run: setup ${fmtMs(u.setup)} ms, collect ${fmtMs(u.collect)} ms, verify ${fmtMs(u.verify)} ms, cleanup ${fmtMs(u.cleanup)} ms`);
    if (s.retries || s.throttled || s.failedRequests) {
      lines.push(`${s.label}: retries ${s.retries} (throttled ${s.throttled}), backoff ${s.backoffMs.toFixed(0)} ms, failed requests ${s.failedRequests}`);
    }
    for (const p of s.problems) lines.push(`${s.label}: FAILED ${p}`);
    if (s.recordsSampled) lines.push(`${s.label}: raw records were sampled in the results file; percentiles use every request`);
  }
  return lines.join('\n');
}

/** Many-blob workloads: requests (pages, GETs, HEADs) and the set's blobs per second, and each request's latency. */
export function manyBlobLine(s: ContenderStats): string | undefined {
  if (!s.blobsPerSecond || s.params?.fileCount === undefined) return undefined;
  const total = s.latencyMs.total;
  const unit = s.params.pageSize !== undefined ? 'page' : 'request';
  return `${s.label}: ${s.params.fileCount} blobs, ${s.requestsPerRun} ${unit}(s) per run: ${s.opsPerSecond.median.toFixed(0)} ${unit}s/s, ` +
    `${s.blobsPerSecond.median.toFixed(0)} blobs/s, ${s.throughputMiBps.median.toFixed(1)} MiB/s; per-${unit} latency p50 ${fmtMs(total?.p50)} / p99 ${fmtMs(total?.p99)} ms`;
}

export function renderMarkdown(stats: readonly ContenderStats[], header: ReportHeader): string {
  const lines = [`## ${header.title}`, '', `Target: ${header.target}${header.objectSizeBytes !== undefined ? `, object ${formatBytes(header.objectSizeBytes)}` : ''}`, ''];
  lines.push('| # | strategy | runs | time ms (median) | 95% CI ms | MiB/s | ops/s | p50 first byte ms | p99 first byte ms | ' + PHASES.map((p) => `${p} %`).join(' | ') + ' | retries | throttled | failed requests | verified |');
  lines.push(`|${' --- |'.repeat(13 + PHASES.length)}`);
  const ranked = rankStats(stats);
  ranked.forEach((s) => {
    const ci = s.wallMs.n >= 2 ? `${s.wallMs.ci95Low.toFixed(1)}–${s.wallMs.ci95High.toFixed(1)}` : '-';
    const shares = PHASES.map((p) => (s.phaseShare[p] === undefined ? '-' : (s.phaseShare[p]! * 100).toFixed(1)));
    lines.push(
      `| ${rankLabel(s)} | ${s.label} | ${s.runs} | ${s.wallMs.median.toFixed(1)} | ${ci} | ${s.throughputMiBps.median.toFixed(1)} | ${s.opsPerSecond.median.toFixed(0)} | ` +
        `${fmtMs(s.latencyMs.firstByte?.p50)} | ${fmtMs(s.latencyMs.firstByte?.p99)} | ${shares.join(' | ')} | ${s.retries} | ${s.throttled} | ${s.failedRequests} | ${checkWord(s)} |`,
    );
  });
  const many = stats.map(manyBlobLine).filter((l) => l !== undefined);
  if (many.length) lines.push('', ...many.map((l) => `- ${l}`));
  lines.push(...verdictBlock(stats, ranked, header));
  lines.push(...steadyLines(stats));
  return lines.join('\n');
}

const CSV_COLUMNS = [
  'rank', 'strategy', 'runs', 'wall_ms_median', 'wall_ms_min', 'wall_ms_max', 'wall_ms_ci95_low', 'wall_ms_ci95_high',
  'throughput_mibps_median', 'ops_per_s_median', 'requests_per_run', 'failed_requests',
  ...['firstByte', 'total'].flatMap((m) => ['p50', 'p90', 'p99', 'max'].map((q) => `${m}_${q}_ms`)),
  ...PHASES.map((p) => `${p}_share`), 'retries', 'throttled', 'backoff_ms', 'verified', 'tied', 'blobs_per_s_median',
];

function csvCell(v: unknown): string {
  const s = v === undefined || v === null ? '' : String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function renderCsv(stats: readonly ContenderStats[]): string {
  const rows = rankStats(stats).map((s) => [
    s.rank, s.label, s.runs, s.wallMs.median, s.wallMs.min, s.wallMs.max, s.wallMs.ci95Low, s.wallMs.ci95High,
    s.throughputMiBps.median, s.opsPerSecond.median, s.requestsPerRun, s.failedRequests,
    ...(['firstByte', 'total'] as const).flatMap((m) => (['p50', 'p90', 'p99', 'max'] as const).map((q) => s.latencyMs[m]?.[q])),
    ...PHASES.map((p) => s.phaseShare[p]), s.retries, s.throttled, s.backoffMs, s.notVerified ? 'not verified' : s.verified, s.tied, s.blobsPerSecond?.median,
  ]);
  return [CSV_COLUMNS, ...rows].map((r) => r.map(csvCell).join(',')).join('\n');
}
