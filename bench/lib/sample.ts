// What one run of one contender measured, and the medians over runs. A contender whose tool is
// missing is `skipped` with the reason: it is never reported as zero.
import { median } from '../../src/analysis/stats.ts';
import type { RunRecord } from '../../dist/results/schema.js';
import type { ClockBinding } from './server-clock.ts';

export interface Sample {
  ok: boolean;
  error?: string;
  /** The transfer as the tool itself times it (see the contender's `timing`). */
  transferMs: number;
  /** Spawn to exit, startup and verification included. */
  processMs: number;
  bytes: number;
  requests: number;
  /** Sum of each process's own peak RSS (coordinator plus workers for ours): an upper bound. */
  peakRssBytes: number;
  /** Highest RSS of all its processes together at one moment (sampled every 20 ms). */
  peakTreeRssBytes: number;
  /** The server's view: first data request's arrival to last data response's end (see server-clock.ts). */
  serverSpanMs?: number;
  /** Ours: the run from its results file, for blob-cacher's own analyze(). */
  run?: RunRecord;
  /** A peer's own CPU (user + system, from the kernel) and the requests it made in it, where measured. */
  cpuMs?: number;
  cpuRequests?: number;
}

export interface Contender {
  label: string;
  ours: boolean;
  /** How transferMs is taken, for the reader: "in-tool" or "process wall". */
  timing: string;
  skipped?: string;
  /** The clock of the server it talks to, if the suite can read it. */
  clock?: ClockBinding;
  run(runIndex: number): Promise<Sample>;
}

export interface Row {
  label: string;
  ours: boolean;
  timing: string;
  skipped?: string;
  samples: Sample[];
  failed: number;
  medianMs: number;
  minMs: number;
  maxMs: number;
  medianProcessMs: number;
  /** Median of the server-observed spans; NaN where the server's clock was not read. */
  medianServerSpanMs: number;
  medianMiBps: number;
  medianOpsPerSecond: number;
  peakRssBytes: number;
  peakTreeRssBytes: number;
  /** Ours: worker CPU (user + system) per run, from blob-cacher's analyze(). */
  cpuMsPerRun?: number;
  error?: string;
}

export const MiB = 1024 * 1024;
export const GiB = 1024 * MiB;

export function failedSample(error: string, processMs = 0): Sample {
  return {
    ok: false,
    error,
    transferMs: NaN,
    processMs,
    bytes: 0,
    requests: 0,
    peakRssBytes: 0,
    peakTreeRssBytes: 0,
  };
}

export function summarize(c: Contender, samples: readonly Sample[]): Row {
  const good = samples.filter((s) => s.ok);
  const ms = good.map((s) => s.transferMs);
  return {
    label: c.label,
    ours: c.ours,
    timing: c.timing,
    skipped: c.skipped,
    samples: [...samples],
    failed: samples.length - good.length,
    medianMs: median(ms),
    minMs: ms.length ? Math.min(...ms) : NaN,
    maxMs: ms.length ? Math.max(...ms) : NaN,
    medianProcessMs: median(good.map((s) => s.processMs)),
    medianServerSpanMs: median(good.flatMap((s) => (s.serverSpanMs === undefined ? [] : [s.serverSpanMs]))),
    medianMiBps: median(good.map((s) => s.bytes / MiB / (s.transferMs / 1000))),
    medianOpsPerSecond: median(good.map((s) => s.requests / (s.transferMs / 1000))),
    peakRssBytes: good.length ? Math.max(...good.map((s) => s.peakRssBytes)) : 0,
    peakTreeRssBytes: good.length ? Math.max(...good.map((s) => s.peakTreeRssBytes)) : 0,
    error: samples.find((s) => !s.ok)?.error,
  };
}

/** The same contender with set-up and clean-up around each run (outside its timing). */
export function withHooks<C extends Contender>(
  c: C,
  hooks: { before?: (run: number) => Promise<void>; after?: (run: number) => Promise<void> },
): C {
  return {
    ...c,
    run: async (run: number) => {
      await hooks.before?.(run);
      try {
        return await c.run(run);
      } finally {
        await hooks.after?.(run);
      }
    },
  };
}
