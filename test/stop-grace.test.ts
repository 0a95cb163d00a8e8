// The stop grace: cleanup runs to its end before a stop; after one, every step together gets what is
// left of the grace counted from the stop, and a step past it is abandoned through its signal.
import { describe, expect, it } from 'vitest';
import { setLogLevel } from '../src/log/logger.js';
import { StopGrace, type CleanupContext } from '../src/engine/stop-grace.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** A step that takes `ms` and ignores its signal (a deletion that cannot be cut). */
const stubborn = (ms: number) => async () => {
  await sleep(ms);
};
/** A step that stops when its signal aborts, and says what it left (true). */
const honouring = (seen: CleanupContext[]) => (ctx: CleanupContext) => {
  seen.push(ctx);
  return new Promise<boolean>((resolve) => {
    if (ctx.signal.aborted) return resolve(true);
    ctx.signal.addEventListener('abort', () => resolve(true), { once: true });
  });
};

setLogLevel('error');

describe('the stop grace', () => {
  it('before any stop, a step runs to its end however long it takes, and is not told of a stop', async () => {
    const stop = new AbortController();
    const grace = new StopGrace(stop.signal, 10);
    const seen: boolean[] = [];
    expect(
      await grace.run('a slow step', async (ctx) => {
        await sleep(80);
        seen.push(ctx.stopped, ctx.signal.aborted);
      }),
    ).toBe(true);
    expect(seen).toEqual([false, false]);
    expect(grace.leftMs()).toBe(Infinity);
  });

  it(
    'after a stop, a step that outlives the grace is abandoned at it: the session ' + 'does not wait for it',
    async () => {
      const stop = new AbortController();
      const grace = new StopGrace(stop.signal, 100);
      stop.abort('SIGTERM');
      const started = performance.now();
      expect(await grace.run('a step that ignores its signal', stubborn(3_000))).toBe(false);
      // The grace plus the moment a step is given to say what it left; never the step's 3 s.
      expect(performance.now() - started).toBeLessThan(1_500);
      expect(grace.leftMs()).toBe(0);
    },
  );

  it(
    'the grace counts from the stop, for all steps together: a stop during a step ' + 'bounds that step too',
    async () => {
      const stop = new AbortController();
      const grace = new StopGrace(stop.signal, 150);
      const seen: CleanupContext[] = [];
      setTimeout(() => stop.abort('SIGTERM'), 50);
      expect(await grace.run('deleting uploads', honouring(seen))).toBe(false);
      expect(seen[0]!.stopped).toBe(true);
      expect(seen[0]!.signal.aborted).toBe(true);
      // Nothing is left for the next step: it starts with its signal aborted.
      const next: CleanupContext[] = [];
      expect(await grace.run('the next step', honouring(next))).toBe(false);
      expect(next[0]!.signal.aborted).toBe(true);
    },
  );

  it('a step that finishes within the grace after a stop finishes', async () => {
    const stop = new AbortController();
    const grace = new StopGrace(stop.signal, 2_000);
    stop.abort('deadline');
    expect(await grace.run('a quick step', stubborn(20))).toBe(true);
    expect(grace.leftMs()).toBeGreaterThan(0);
  });

  it('spent (the target is gone): every step is abandoned at once', async () => {
    const stop = new AbortController();
    const grace = new StopGrace(stop.signal, 60_000);
    grace.spend();
    stop.abort('lost');
    const seen: CleanupContext[] = [];
    expect(await grace.run('cleanup on a dead target', honouring(seen))).toBe(false);
    expect(seen[0]!.signal.aborted).toBe(true);
  });
});
