// The console report of a download run: ranking, per-phase percentiles, and the seeds' summary lines.
import { formatBytes } from '../config/sizes.js';
import type { StrategyResult } from '../aggregate/summary.js';
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

export interface ConsoleRun {
  target: string;
  /** Bytes moved per strategy run, when it is one object. */
  objectSizeBytes?: number;
  results: readonly StrategyResult[];
}

/** Ranked table (80 columns), per-phase percentiles, then the seeds' summary lines. */
export function renderConsole(run: ConsoleRun, header: string, mode: 'download' | 'upload' = 'download'): string {
  const lines: string[] = [];
  lines.push(header);
  lines.push(`target ${run.target}${run.objectSizeBytes !== undefined ? `, object ${formatBytes(run.objectSizeBytes)}` : ''}`);
  lines.push('');
  const countCol = mode === 'upload' ? 'ops/s' : 'reused';
  lines.push(`${pad('#', 3)}${pad('strategy', 16)}${lpad('time ms', 10)}${lpad('MiB/s', 8)}${lpad('reqs', 6)}${lpad(countCol, 8)}${lpad('p50 1stB', 9)}${lpad('p99 1stB', 9)}  verified`);
  rank(run.results).forEach((r, i) => {
    const fb = r.latencyMs.firstByte;
    const count = mode === 'upload' ? r.opsPerSecond.toFixed(0) : String(r.reusedSockets);
    lines.push(
      `${pad(String(i + 1), 3)}${pad(r.strategy, 16)}${lpad(r.wallMs.toFixed(1), 10)}${lpad(r.throughputMiBps.toFixed(1), 8)}` +
        `${lpad(String(r.requests), 6)}${lpad(count, 8)}${lpad(ms(fb?.p50), 9)}${lpad(ms(fb?.p99), 9)}  ${r.verified ? 'ok' : 'FAILED'}`,
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
    for (const w of r.workers.filter((w) => w.cpuBound)) {
      lines.push(`${r.strategy}: worker ${w.index} was CPU-bound (event-loop delay p99 ${w.eventLoopDelayP99Ms.toFixed(1)} ms): more processes may help`);
    }
  }
  return lines.join('\n');
}
