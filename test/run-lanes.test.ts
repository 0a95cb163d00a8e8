// The lane loop over a callback start: items answered at once (a stop ends them all) do not nest,
// items answered later keep their lanes, and a failure rejects.
import { describe, expect, it } from 'vitest';
import { FixedShape, runLanes } from '../src/workers/shape.js';

describe('runLanes', () => {
  it(
    '200,000 items answered before their start returns settle in order, in a loop, not 200,000 ' +
      'nested calls',
    async () => {
      const settled: number[] = [];
      let wrong = 0;
      const issued = await runLanes<number>(
        200_000,
        4,
        new FixedShape(200_000),
        (n, _lane, done) => done(n * 2),
        (n, got) => {
          if (got !== n * 2) wrong++;
          settled.push(n);
        },
      );
      expect([issued, settled.length, wrong]).toEqual([200_000, 200_000, 0]);
      expect(settled.slice(0, 5)).toEqual([0, 1, 2, 3, 4]);
    },
  );

  it(
    'answers that come later, some at once: every item settles once, at most ' + '`lanes` in flight',
    async () => {
      let inFlight = 0;
      let most = 0;
      const settled = new Set<number>();
      await runLanes<number>(
        300,
        8,
        new FixedShape(300),
        (n, _lane, done) => {
          if (n % 3 === 0) return done(n);
          inFlight++;
          most = Math.max(most, inFlight);
          setImmediate(() => {
            inFlight--;
            done(n);
          });
        },
        (n) => {
          expect(settled.has(n)).toBe(false);
          settled.add(n);
        },
      );
      expect(settled.size).toBe(300);
      expect(most).toBeLessThanOrEqual(8);
    },
  );

  it('a start that fails, or throws, rejects the loop with its error', async () => {
    await expect(
      runLanes<number>(
        10,
        2,
        new FixedShape(10),
        (n, _lane, done, fail) => (n === 5 ? fail(new Error('five')) : done(n)),
        () => {},
      ),
    ).rejects.toThrow('five');
    await expect(
      runLanes<number>(
        10,
        2,
        new FixedShape(10),
        (n, _lane, done) => {
          if (n === 3) throw new Error('three');
          done(n);
        },
        () => {},
      ),
    ).rejects.toThrow('three');
    await expect(
      runLanes<number>(
        10,
        2,
        new FixedShape(10),
        (n, _lane, done) => done(n),
        (n) => {
          if (n === 7) throw new Error('seven');
        },
      ),
    ).rejects.toThrow('seven');
  });
});
