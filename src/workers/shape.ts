// A lane loop's shape: `fixed` runs each item once; `steady` (--duration) goes round the items until
// the deadline, a 'finish' (--autoterm) or a stop, counting every request into its meter. The shape
// owns "is there more" and the counting; the loop (lanes.ts) is the same for both.
import type { OpRecord } from '../metrics/records.js';
import type { SteadyWorkerResult } from './protocol.js';
import { SteadyMeter } from './steady.js';

const epochNow = () => performance.timeOrigin + performance.now();

export interface Shape {
  readonly kind: 'fixed' | 'steady';
  /** Whether another item goes out, `issued` having gone so far. */
  more(issued: number): boolean;
  /** Every request, as it settles. */
  count(r: OpRecord): void;
}

export class FixedShape implements Shape {
  readonly kind = 'fixed';
  private readonly items: number;

  constructor(items: number) {
    this.items = items;
  }

  more(issued: number): boolean {
    return issued < this.items;
  }

  count(): void {}
}

export class SteadyShape implements Shape {
  readonly kind = 'steady';
  readonly meter: SteadyMeter;
  private readonly deadlineEpochMs: number;
  private readonly ended: () => boolean;
  private stoppedEpochMs = Infinity;

  /** `ended`: a stop or a 'finish' came; nothing new is issued, what is in flight completes and counts. */
  constructor(goEpochMs: number, steady: { durationMs: number; intervalMs: number }, ended: () => boolean) {
    this.meter = new SteadyMeter(goEpochMs, steady.intervalMs);
    this.deadlineEpochMs = goEpochMs + steady.durationMs;
    this.ended = ended;
  }

  more(): boolean {
    if (this.ended() || epochNow() >= this.deadlineEpochMs) {
      this.stoppedEpochMs = Math.min(this.stoppedEpochMs, epochNow());
      return false;
    }
    return true;
  }

  count(r: OpRecord): void {
    this.meter.add(r);
  }

  /** `issued` requests over `items` items: complete passes; `endEpochMs`: when the last lane ended. */
  result(issued: number, items: number, endEpochMs: number): SteadyWorkerResult {
    return this.meter.result(Math.floor(issued / Math.max(1, items)), Math.min(this.stoppedEpochMs, endEpochMs));
  }
}

/**
 * Items go out in order through a fixed number of lanes, never queued in bulk: memory stays flat in
 * the item count (issuing 1,000,000 requests at once held them all). Each lane takes the next item
 * when its last one ends; a steady shape wraps round. Returns how many were issued.
 */
export async function runLanes(items: number, lanes: number, shape: Shape, runItem: (n: number, lane: number) => Promise<void>): Promise<number> {
  let next = 0;
  await Promise.all(Array.from({ length: items ? lanes : 0 }, async (_, lane) => {
    while (shape.more(next)) await runItem(next++ % items, lane);
  }));
  return next;
}
