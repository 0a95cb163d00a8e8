// The merged report of a scale-out run (blob-cacher collect): clients and their clock offsets, the
// start spread, throughput over the overlap window, totals, latency per contender, and the summed
// per-second series. A pure function of the merge.
import { formatBytes } from '../vocabulary/sizes.js';
import type { ScaleoutMerge } from '../scaleout/collect.js';
import { num as fmtMs } from './format.js';
import { fitColumn, forTerminal as safe } from './safe-text.js';

const clockTime = (ms: number) => new Date(ms).toISOString().slice(11, 23);
const signed = (v: number) => `${v >= 0 ? '+' : ''}${v.toFixed(1)}`;

/** One line per client: its host, clock offset, start, requests, bytes and any problem. */
function clientLines(m: ScaleoutMerge): string[] {
  const lines = [
    `${'client'.padEnd(7)}${'host'.padEnd(22)}${'clock offset ms'.padStart(17)}${'start ms'.padStart(10)}` +
      `${'requests'.padStart(10)}${'failed'.padStart(8)}${'bytes'.padStart(12)}  problem`,
  ];
  for (const c of m.clients) {
    const offset =
      c.clockOffsetMs === undefined
        ? '-'
        : `${signed(c.clockOffsetMs)} ±${(c.clockUncertaintyMs ?? 0).toFixed(1)}`;
    const start = c.startAfterEarliestMs === undefined ? '-' : `+${c.startAfterEarliestMs.toFixed(1)}`;
    // The host and the problem are the clients' own words: escaped, and the host cut after escaping.
    lines.push(
      `${String(c.index).padEnd(7)}${fitColumn(c.host, 21).padEnd(22)}${offset.padStart(17)}` +
        `${start.padStart(10)}${String(c.requests).padStart(10)}${String(c.failedRequests).padStart(8)}` +
        `${formatBytes(c.bytes).padStart(12)}  ${safe(c.problem ?? '')}`,
    );
  }
  return lines;
}

/** The start spread, the overlap window's throughput, and the totals. */
function mergedLines(m: ScaleoutMerge): string[] {
  const lines: string[] = [];
  if (m.startSpreadMs !== undefined)
    lines.push(
      `start spread: ${m.startSpreadMs.toFixed(1)} ms (latest − earliest first request, storage clock)`,
    );
  if (m.overlap) {
    const o = m.overlap;
    lines.push(
      `overlap window (every client with results running): ${(o.durationMs / 1000).toFixed(3)} s from ` +
        `${clockTime(o.startMs)} to ${clockTime(o.endMs)}: ` +
        `${o.throughputMiBps.toFixed(2)} MiB/s, ${o.requestsPerSecond.toFixed(1)} requests/s ` +
        `(${Math.round(o.requests)} requests, ${formatBytes(o.bytes)} in it)`,
    );
  } else if (m.clients.length) {
    lines.push('overlap window: none (the clients were never all running at once): no merged throughput');
  }
  lines.push(
    `totals (every client's measured runs): ${m.totals.requests} requests, ${m.totals.failedRequests} ` +
      `failed, ${formatBytes(m.totals.bytes)}`,
  );
  return lines;
}

/** Latency per contender, and the per-second series of every client summed. */
function contenderLines(m: ScaleoutMerge): string[] {
  const lines: string[] = [];
  if (m.contenders.length) {
    lines.push(
      '',
      `${'contender'.padEnd(28)}${'runs'.padStart(6)}${'requests'.padStart(10)}${'p50 ms'.padStart(9)}` +
        `${'p90 ms'.padStart(9)}${'p99 ms'.padStart(9)}${'max ms'.padStart(9)}`,
    );
    for (const c of m.contenders) {
      const t = c.totalMs;
      lines.push(
        `${safe(c.label).padEnd(28)}${String(c.runs).padStart(6)}${String(c.requests).padStart(10)}` +
          `${fmtMs(t?.p50).padStart(9)}${fmtMs(t?.p90).padStart(9)}${fmtMs(t?.p99).padStart(9)}` +
          `${fmtMs(t?.max).padStart(9)}`,
      );
    }
  }
  if (m.series.length) {
    lines.push('', 'per second, all clients summed (storage clock):');
    for (const b of m.series)
      lines.push(
        `  ${clockTime(b.atMs).slice(0, 8)}  ${formatBytes(b.bytes).padStart(11)}  ` +
          `${Math.round(b.requests).toString().padStart(7)} requests`,
      );
  }
  return lines;
}

export function renderScaleout(m: ScaleoutMerge, ready: readonly number[] = []): string {
  const lines = [
    `blob-cacher collect: run ${safe(m.runId)}, ${m.parallelism} client(s), ${m.clients.length} with results`,
    '',
    ...clientLines(m),
    '',
    ...mergedLines(m),
    ...contenderLines(m),
  ];
  if (m.missing.length || m.failed.length) lines.push('');
  for (const i of m.missing) {
    lines.push(
      `MISSING client ${i}: no results; ` +
        (ready.includes(i)
          ? 'it reached the barrier, then left nothing (killed, or it could not write)'
          : 'it never reached the barrier') +
        '; the merge is short of its share',
    );
  }
  for (const f of m.failed) lines.push(`FAILED client ${f.index}: ${safe(f.problem)}`);
  return lines.join('\n');
}
