import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import type { OpRecord } from '../src/metrics/records.js';
import { OpenLoopMeter, runOpenLoop, Schedule } from '../src/workers/open-loop.js';
import { SendClock } from '../src/workers/send-clock.js';
import { FixedShape } from '../src/workers/shape.js';
import { echoLanes } from './helpers/echo-lanes.js';

const ports = () => process.getActiveResourcesInfo().filter((r) => r === 'MessagePort').length;

async function started(): Promise<SendClock> {
  const clock = await SendClock.start();
  expect(clock).toBeDefined();
  return clock!;
}

describe('the send clock', () => {
  it('hears each alarm once, never before its time; a new alarm replaces one not yet heard', async () => {
    const clock = await started();
    try {
      const ALARMS = 30;
      let early = 0;
      for (let i = 0; i < ALARMS; i++) {
        // Fractions of a millisecond ahead: what a millisecond timer cannot ask for.
        const dueMs = performance.now() + 0.1 + (i % 7) * 0.13;
        await new Promise<void>((resolve) => {
          clock.onDue = () => {
            if (performance.now() < dueMs) early++;
            resolve();
          };
          clock.arm(dueMs);
        });
      }
      expect(clock.fired).toBe(ALARMS);
      expect(early).toBe(0);
      // Two alarms set one after the other: only the second is heard, and not before its time.
      const firstMs = performance.now() + 0.5;
      const secondMs = firstMs + 2;
      let heardAtMs = 0;
      const heard = new Promise<void>((resolve) => {
        clock.onDue = () => {
          heardAtMs = performance.now();
          resolve();
        };
      });
      clock.arm(firstMs);
      clock.arm(secondMs);
      await heard;
      // Longer than the alarm was for, so that a second message would have arrived.
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(clock.fired).toBe(ALARMS + 1);
      expect(heardAtMs).toBeGreaterThanOrEqual(secondMs);
    } finally {
      await clock.close();
    }
  });

  it('ends its thread on close: no handle is left to hold the process', async () => {
    const before = ports();
    const clock = await started();
    expect(ports()).toBe(before + 1);
    clock.arm(performance.now() + 50);
    await clock.close();
    expect(ports()).toBe(before);
    // Closed, it takes no alarm and calls nothing.
    clock.arm(performance.now());
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(clock.fired).toBe(0);
  });
});

describe('an open loop on the send clock', () => {
  it('is woken by the alarm for its sends, none before its slot, every slot sent', async () => {
    const LANES = 4;
    const ITEMS = 80;
    const echo = await echoLanes(LANES);
    const clock = await started();
    const meter = new OpenLoopMeter();
    // 400/s: 2.5 ms between slots, each answered long before the next, so no answer sends a slot:
    // the alarm (or, were it gone, the backstop timer) wakes the loop for each.
    const schedule = new Schedule(performance.now() + 5, 400, 'uniform', 0, 1);
    let beforeSlot = 0;
    try {
      const sent = await runOpenLoop<OpRecord>(
        ITEMS,
        LANES,
        new FixedShape(ITEMS),
        schedule,
        meter,
        new AbortController().signal,
        (_n, lane, intendedMs, done) => {
          if (performance.now() < intendedMs) beforeSlot++;
          echo.send(lane, done);
        },
        () => {},
        clock,
      );
      expect(sent).toBe(ITEMS);
      expect(meter.skipped).toBe(0);
      expect(beforeSlot).toBe(0);
      // The first slot may be sent as the loop starts; a late answer or a slow turn may send one
      // before its alarm is heard, but most are woken by it.
      expect(clock.fired).toBeGreaterThan(ITEMS / 2);
    } finally {
      await clock.close();
      await echo.close();
    }
  }, 20_000);
});
