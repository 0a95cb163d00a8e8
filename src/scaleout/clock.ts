// This client's offset from the storage service's clock, read from the Date header of its answers.
// Date has one-second resolution, so one answer bounds the offset to a second; answers on both
// sides of a second's tick bound it to about one round trip. Each answer says the service's clock
// was in [Date, Date + 1 s) at some moment between sending and receiving, so the offset
// (service − local) lies in [Date − received, Date + 1000 − sent]; the estimate intersects these.
import { setTimeout as sleep } from 'node:timers/promises';
import { NodeHttpClient } from '../transport/request.js';

/**
 * The local clock every scale-out time is read on: epoch ms from the monotonic clock, the same
 * clock the workers' records use. `skewMs` shifts it: test only (BLOB_CACHER_TEST_CLOCK_SKEW_MS),
 * to stand for a machine whose clock is wrong.
 */
export class LocalClock {
  readonly skewMs: number;
  constructor(skewMs = 0) {
    this.skewMs = skewMs;
  }

  now(): number {
    return performance.timeOrigin + performance.now() + this.skewMs;
  }
}

export interface ClockOffset {
  /** Service time minus local time, ms: local + offsetMs is the service's clock. */
  offsetMs: number;
  /** Half the width of the interval the offset is known to lie in. */
  uncertaintyMs: number;
  samples: number;
  /** Whether a second's tick was seen: without it the offset is known to a second only. */
  tickSeen: boolean;
}

/** Asks the service anything and returns its Date header (undefined when there was none). */
export type DateProbe = (signal?: AbortSignal) => Promise<string | undefined>;

export interface EstimateOptions {
  /** Stop once the offset is known to within this (full width of the interval). */
  targetWidthMs?: number;
  /** Give up refining after this long; the interval so far is the answer. */
  maxMs?: number;
  /** Pause between requests. */
  gapMs?: number;
  signal?: AbortSignal;
}

/** Offsets above this get a warning, as warp gives one: the machines' clocks should be synchronised. */
export const OFFSET_WARN_MS = 1_000;

/** Samples the service's Date header back to back until a second's tick narrows the offset. */
export async function estimateClockOffset(
  probe: DateProbe,
  clock: LocalClock,
  opts: EstimateOptions = {},
): Promise<ClockOffset> {
  const { targetWidthMs = 20, maxMs = 3_000, gapMs = 5, signal } = opts;
  let low = -Infinity;
  let high = Infinity;
  let samples = 0;
  let firstSecond: number | undefined;
  let tickSeen = false;
  const began = clock.now();
  for (;;) {
    const sentMs = clock.now();
    const date = await probe(signal);
    const receivedMs = clock.now();
    const serverSecondMs = date === undefined ? NaN : Date.parse(date);
    if (!Number.isFinite(serverSecondMs))
      throw new Error(
        `the storage service answered without a usable Date header (${date ?? 'none'}): ` +
          'its clock cannot be read',
      );
    samples++;
    low = Math.max(low, serverSecondMs - receivedMs);
    high = Math.min(high, serverSecondMs + 1000 - sentMs);
    firstSecond ??= serverSecondMs;
    if (serverSecondMs !== firstSecond) tickSeen = true;
    if (low > high) {
      // Answers that contradict each other (the service's clock stepped): start again from this one.
      low = serverSecondMs - receivedMs;
      high = serverSecondMs + 1000 - sentMs;
      firstSecond = serverSecondMs;
      tickSeen = false;
    }
    if ((tickSeen && high - low <= targetWidthMs) || clock.now() - began > maxMs) break;
    await sleep(gapMs, undefined, { signal });
  }
  return { offsetMs: (low + high) / 2, uncertaintyMs: (high - low) / 2, samples, tickSeen };
}

/** A probe that sends HEAD to `url` and reads the answer's Date, whatever its status. */
export function headDateProbe(url: string, ca?: string): DateProbe {
  // One kept-alive socket through the one request path, trusting the target's CA where it has one
  // (a private endpoint, an HTTPS Azurite): after the first answer, no connect time blurs the estimate.
  const target = new URL(url);
  const client = NodeHttpClient.to(target, 1, ca);
  return async (signal) => {
    const r = await client.request({
      url: target,
      method: 'HEAD',
      headers: {},
      expectStatus: [],
      trace: false,
      timeoutMs: 30_000,
      signal,
    });
    const date = r.headers?.date;
    if (date === undefined && r.error && r.status === 0) throw new Error(`HEAD ${target.origin}: ${r.error}`);
    return date;
  };
}
