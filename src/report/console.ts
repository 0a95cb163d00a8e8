// The console report of a download run: ranking, per-phase percentiles, and the seeds' summary lines.
import { formatBytes } from '../config/sizes.js';
import type { DownloadRunResult, StrategyResult } from '../download-run.js';
import { PHASES } from '../transport/phases.js';

const pad = (s: string, n: number) => s.padEnd(n);
const lpad = (s: string, n: number) => s.padStart(n);
const ms = (v: number | undefined) => (v === undefined ? '-' : v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));

export function rank(results: readonly StrategyResult[]): StrategyResult[] {
  return [...results].sort((a, b) => {
    const aOk = a.verified ? 0 : 1;
    const bOk = b.verified ? 0 : 1;
    return aOk - bOk || a.wallMs - b.wallMs;
  });
}

export function renderConsole(run: DownloadRunResult, header: string): string {
  const lines: string[] = [];
  lines.push(header);
  lines.push(`target ${run.target}, object ${formatBytes(run.objectSizeBytes)}`);
  lines.push('');
  lines.push(`${pad('#', 3)}${pad('strategy', 13)}${lpad('time ms', 10)}${lpad('MiB/s', 9)}${lpad('reqs', 6)}${lpad('reused', 8)}${lpad('p50 1stB', 10)}${lpad('p99 1stB', 10)}  verified`);
  rank(run.results).forEach((r, i) => {
    const fb = r.latencyMs.firstByte;
    lines.push(
      `${pad(String(i + 1), 3)}${pad(r.strategy, 13)}${lpad(r.wallMs.toFixed(1), 10)}${lpad(r.throughputMiBps.toFixed(1), 9)}` +
        `${lpad(String(r.requests), 6)}${lpad(String(r.reusedSockets), 8)}${lpad(ms(fb?.p50), 10)}${lpad(ms(fb?.p99), 10)}  ${r.verified ? 'ok' : 'FAILED'}`,
    );
  });
  lines.push('');
  lines.push('per-phase latency, ms: p50 / p90 / p99 / max  (phases absent on reused sockets are not counted)');
  for (const r of run.results) {
    lines.push(`${r.strategy}:`);
    for (const m of [...PHASES, 'total'] as const) {
      const s = r.latencyMs[m];
      if (!s) continue;
      lines.push(`  ${pad(m, 10)} n=${lpad(String(s.count), 5)}  ${ms(s.p50)} / ${ms(s.p90)} / ${ms(s.p99)} / ${ms(s.max)}`);
    }
  }
  lines.push('');
  for (const r of run.results) {
    const shares = PHASES.filter((p) => r.phaseShare[p] !== undefined).map((p) => `${p} ${(r.phaseShare[p]! * 100).toFixed(1)}%`);
    lines.push(`${r.strategy}: duration ${r.wallMs.toFixed(1)} ms, count ${r.requests}${shares.length ? `, ${shares.join(', ')}` : ''}`);
    if (!r.verified) lines.push(`${r.strategy}: FAILED ${r.error ?? r.verification}`);
  }
  return lines.join('\n');
}
