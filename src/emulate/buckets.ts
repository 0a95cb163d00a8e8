// Token buckets that pace bytes: one per connection (r bytes/s) and one shared by all (R bytes/s).
// A transfer asks for the time it may send its next slice; the answer is the later of its buckets'.

/** A rate in bytes per second, refilled continuously, holding at most `burstBytes` unspent. */
export class TokenBucket {
  private tokens: number;
  private updatedMs: number;
  readonly bytesPerSecond: number;
  readonly burstBytes: number;

  constructor(bytesPerSecond: number, burstBytes: number, nowMs: number) {
    this.bytesPerSecond = bytesPerSecond;
    this.burstBytes = burstBytes;
    this.tokens = burstBytes;
    this.updatedMs = nowMs;
  }

  /**
   * Takes `bytes` (the balance may go below zero: the debt is what makes the next slice wait) and
   * returns how long to wait before sending them, 0 when they are covered now.
   */
  take(bytes: number, nowMs: number): number {
    this.tokens = Math.min(
      this.burstBytes,
      this.tokens + ((nowMs - this.updatedMs) * this.bytesPerSecond) / 1000,
    );
    this.updatedMs = nowMs;
    this.tokens -= bytes;
    return this.tokens >= 0 ? 0 : (-this.tokens * 1000) / this.bytesPerSecond;
  }
}

/**
 * Requests answered in the last window (a second, as Azure counts): the account-wide operations
 * limit. A shorter window holds the same rate over less time, so that a burst is throttled at once.
 */
export class RequestWindow {
  private readonly startsMs: number[] = [];
  readonly perSecond: number;
  readonly windowMs: number;

  constructor(perSecond: number, windowMs = 1000) {
    this.perSecond = perSecond;
    this.windowMs = windowMs;
  }

  /** Counts a request at `nowMs`; false when it is over the limit (it is then not counted). */
  admit(nowMs: number): boolean {
    while (this.startsMs.length && this.startsMs[0]! <= nowMs - this.windowMs) this.startsMs.shift();
    if (this.startsMs.length >= Math.max(1, Math.floor((this.perSecond * this.windowMs) / 1000)))
      return false;
    this.startsMs.push(nowMs);
    return true;
  }
}

/**
 * Exactly one request in every `every` stalls, at a position within each block of `every` drawn
 * from `seed` (mulberry32): deterministic, so a test knows how many stalls there were.
 */
export class StragglerPlan {
  private blockPick = -1;
  private state: number;
  readonly every: number;

  constructor(every: number, seed: number) {
    this.every = every;
    this.state = seed >>> 0;
  }

  private next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0;
    let t = this.state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Whether the request with this arrival index (0, 1, …) is the one of its block that stalls. */
  stalls(index: number): boolean {
    if (this.every <= 1) return this.every === 1;
    const position = index % this.every;
    if (position === 0) this.blockPick = Math.floor(this.next() * this.every);
    return position === this.blockPick;
  }
}
