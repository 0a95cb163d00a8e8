// A lane loop's shape: `fixed` runs each item once; `steady` (--duration) goes round the items until
// the deadline, a 'finish' (--autoterm) or a stop, counting every request into its meter. The shape
// owns "is there more" and the counting; the loop (lanes.ts) is the same for both.
import type { OpRecord } from '../metrics/records.js';
import type { SteadyWorkerResult } from './protocol.js';
import { SteadyMeter } from './steady.js';

const epochNow = () => performance.timeOrigin + performance.now();
/** How long after an interval's end its counts are sent, at most (a tenth of a short interval). */
const REPORT_LAG_MS = 20;

export interface Shape {
  readonly kind: 'fixed' | 'steady';
  /**
   * Whether another item goes out, `issued` having gone so far; `atMs` (performance.now() clock):
   * when it is meant to go, where a schedule says (an open loop's slot before the deadline is the
   * run's, even if the event loop reaches it after).
   */
  more(issued: number, atMs?: number): boolean;
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
  /** The deadline on the performance.now() clock: read before every request, without timeOrigin each time. */
  private readonly deadlineMs: number;
  private readonly ended: () => boolean;
  private stoppedEpochMs = Infinity;

  private readonly goEpochMs: number;
  private readonly intervalMs: number;
  private reportTimer?: NodeJS.Timeout;

  /** `ended`: a stop or a 'finish' came; nothing new is issued, what is in flight completes and counts. */
  constructor(goEpochMs: number, steady: { durationMs: number; intervalMs: number }, ended: () => boolean) {
    this.meter = new SteadyMeter(goEpochMs, steady.intervalMs);
    this.deadlineMs = goEpochMs + steady.durationMs - performance.timeOrigin;
    this.ended = ended;
    this.goEpochMs = goEpochMs;
    this.intervalMs = steady.intervalMs;
  }

  /**
   * Tells `report` each interval's counts just after it closes, on the release's clock: the same
   * boundaries in every worker and in the series, so --autoterm never compares a sample that holds
   * one report with one that holds two (as a fixed tick sampled at another period would). The lag lets
   * a request that ended on the boundary be counted first.
   */
  startReports(report: (index: number, counts: { ops: number; bytes: number }) => void): void {
    const lagMs = Math.min(REPORT_LAG_MS, this.intervalMs / 10);
    let index = Math.max(0, Math.floor((epochNow() - this.goEpochMs) / this.intervalMs));
    const next = () => {
      const dueMs = this.goEpochMs + (index + 1) * this.intervalMs + lagMs - epochNow();
      this.reportTimer = setTimeout(
        () => {
          // An event loop held up past several boundaries reports each interval it passed.
          const closed = () => this.goEpochMs + (index + 1) * this.intervalMs + lagMs <= epochNow();
          while (closed()) report(index, this.meter.counted(index++));
          next();
        },
        Math.max(0, dueMs),
      );
    };
    next();
  }

  stopReports(): void {
    clearTimeout(this.reportTimer);
  }

  more(_issued?: number, atMs = performance.now()): boolean {
    if (this.ended() || atMs >= this.deadlineMs) {
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
    return this.meter.result(
      Math.floor(issued / Math.max(1, items)),
      Math.min(this.stoppedEpochMs, endEpochMs),
    );
  }
}

/**
 * Items go out in order through a fixed number of lanes, never queued in bulk: memory stays flat in
 * the item count (issuing every request at once would hold them all). Each lane takes the next item
 * when its last one ends; a steady shape wraps round. `start` issues item `n` in a lane and hands
 * what it gave to `done` (or a throw to `fail`), `settle` takes it. Returns how many were issued,
 * once every lane has ended; rejects with the first error `start`, `fail` or `settle` gives (the
 * other lanes go on, unawaited).
 *
 * Each lane is two functions made once and a slot for its item, not an async function's frame and
 * promises for every item: those would be the largest garbage of a small request after its own. An item
 * answered before its `start` returned (a stop ends every item at once) is taken by the lane's loop,
 * not by a nested call: thousands of them would otherwise nest as deep.
 */
export function runLanes<R>(
  items: number,
  lanes: number,
  shape: Shape,
  start: (n: number, lane: number, done: (got: R) => void, fail: (err: unknown) => void) => void,
  settle: (n: number, got: R) => void,
): Promise<number> {
  if (!items || lanes < 1) return Promise.resolve(0);
  return new Promise((resolve, reject) => {
    let next = 0;
    let running = lanes;
    const lane = (l: number) => {
      let n = -1;
      /** Inside start(): an answer now is left in `early` for the loop. */
      let starting = false;
      let answered = false;
      let early: R | undefined;
      const go = (): void => {
        try {
          for (;;) {
            if (!shape.more(next)) {
              if (--running === 0) resolve(next);
              return;
            }
            n = next++ % items;
            starting = true;
            answered = false;
            start(n, l, ended, reject);
            starting = false;
            if (!answered) return;
            const got = early as R;
            early = undefined;
            settle(n, got);
          }
        } catch (err) {
          starting = false;
          reject(err);
        }
      };
      const ended = (got: R): void => {
        if (starting) {
          answered = true;
          early = got;
          return;
        }
        try {
          settle(n, got);
        } catch (err) {
          reject(err);
          return;
        }
        go();
      };
      go();
    };
    for (let l = 0; l < lanes; l++) lane(l);
  });
}
