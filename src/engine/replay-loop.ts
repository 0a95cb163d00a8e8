// A replay's open loop: each step goes out at its intended start (the start plus its recorded offset
// over --speed), whatever the earlier ones are doing; one that comes due while --max-in-flight
// requests are out is skipped and counted, never sent late. Latency counts from the intended start
// (no coordinated omission), with the time from the actual send and the send's lateness beside it.
import type * as Hdr from 'hdr-histogram-js';
import { encodeHistogram, newHistogram } from '../metrics/histograms.js';
import type { ReplayOp, ReplayStep } from '../plan/replay.js';
import type { ReplayOpResult } from '../results/replay.js';
import {
  CANCELLED_ERROR,
  NOT_SENT_ERROR,
  type HttpClient,
  type HttpRequest,
  type TracedResult,
} from '../transport/http-client.js';

/** The longest the loop sleeps between looks at its schedule: a stop is seen within it. */
const RECHECK_MS = 100;
const usOf = (ms: number) => Math.max(0, Math.round(ms * 1000));

/** What one operation counted: the log's steps, what went, what was skipped, and its latencies. */
class OpMeter {
  planned = 0;
  sent = 0;
  skipped = 0;
  succeeded = 0;
  failed = 0;
  bytes = 0;
  firstError: string | undefined;
  readonly fromIntended: Hdr.Histogram = newHistogram();
  readonly fromSend: Hdr.Histogram = newHistogram();
  recorded: Hdr.Histogram | undefined;

  settled(r: TracedResult, lateMs: number, sentBytes: number): void {
    // Cut by a stop: the target's answer is unknown, so neither a success nor a failure of it.
    if (r.error === CANCELLED_ERROR || r.error === NOT_SENT_ERROR) return;
    if (r.error) {
      this.failed++;
      this.firstError ??= r.error;
      return;
    }
    this.succeeded++;
    this.bytes += r.bytes + sentBytes;
    this.fromIntended.recordValue(usOf(lateMs + r.totalMs));
    this.fromSend.recordValue(usOf(r.totalMs));
  }

  result(op: ReplayOp): ReplayOpResult {
    return {
      op,
      planned: this.planned,
      sent: this.sent,
      skipped: this.skipped,
      succeeded: this.succeeded,
      failed: this.failed,
      bytes: this.bytes,
      ...(this.firstError === undefined ? {} : { firstError: this.firstError }),
      histograms: {
        fromIntended: encodeHistogram(this.fromIntended),
        fromSend: encodeHistogram(this.fromSend),
        ...(this.recorded ? { recorded: encodeHistogram(this.recorded) } : {}),
      },
    };
  }
}

export interface LoopInput {
  steps: readonly ReplayStep[];
  client: HttpClient;
  /** The request for step `i`, made (and signed) when it is due. */
  request: (i: number) => HttpRequest;
  speed: number;
  maxInFlight: number;
  signal: AbortSignal;
}

export interface LoopResult {
  ops: ReplayOpResult[];
  wallMs: number;
  scheduledMs: number;
  lateness: string;
  /** False when the stop ended it before every step was due. */
  complete: boolean;
}

/** Meters by operation, in the order operations first appear, each with its recorded latencies. */
function metersOf(steps: readonly ReplayStep[]): Map<ReplayOp, OpMeter> {
  const meters = new Map<ReplayOp, OpMeter>();
  for (const s of steps) {
    let m = meters.get(s.op);
    if (!m) meters.set(s.op, (m = new OpMeter()));
    m.planned++;
    if (s.recordedMs !== undefined) (m.recorded ??= newHistogram()).recordValue(usOf(s.recordedMs));
  }
  return meters;
}

/** Sends every step at its intended start; resolves once the last has ended (or the stop came). */
export function runReplayLoop(input: LoopInput): Promise<LoopResult> {
  const { steps, client, speed, maxInFlight, signal } = input;
  const meters = metersOf(steps);
  const lateness = newHistogram();
  const goMs = performance.now();
  let next = 0;
  let inFlight = 0;
  let lastEndMs = goMs;
  let timer: NodeJS.Timeout | undefined;
  let done = false;
  return new Promise((resolve) => {
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      signal.removeEventListener('abort', tick);
      const ops = [...meters].map(([op, m]) => m.result(op));
      const scheduledMs = (steps.at(-1)?.offsetMs ?? 0) / speed;
      const complete = next >= steps.length && !signal.aborted;
      resolve({ ops, wallMs: lastEndMs - goMs, scheduledMs, lateness: encodeHistogram(lateness), complete });
    };
    const send = (i: number, intendedMs: number) => {
      const step = steps[i]!;
      const meter = meters.get(step.op)!;
      const req = { ...input.request(i), signal };
      const sentMs = performance.now();
      const lateMs = Math.max(0, sentMs - intendedMs);
      lateness.recordValue(usOf(lateMs));
      meter.sent++;
      inFlight++;
      void client.request(req).then((r) => {
        inFlight--;
        lastEndMs = Math.max(lastEndMs, performance.now());
        meter.settled(r, lateMs, req.body?.length ?? 0);
        if (next >= steps.length || signal.aborted) {
          if (inFlight === 0) finish();
        } else tick();
      });
    };
    function tick(): void {
      clearTimeout(timer);
      while (next < steps.length && !signal.aborted) {
        const intendedMs = goMs + steps[next]!.offsetMs / speed;
        const now = performance.now();
        if (intendedMs > now) {
          timer = setTimeout(tick, Math.min(intendedMs - now, RECHECK_MS));
          return;
        }
        if (inFlight >= maxInFlight) meters.get(steps[next]!.op)!.skipped++;
        else send(next, intendedMs);
        next++;
      }
      if (inFlight === 0) finish();
    }
    signal.addEventListener('abort', tick);
    tick();
  });
}
