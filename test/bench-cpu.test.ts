// The bench's CPU goals (CPU per PUT against wrk, per MiB against curl) decide on the
// rounds both sides ran in: the median of per-round ratios and its interval, never a point ratio of
// a few runs that a shared machine's 1.5-2x spread decides by chance.
import { describe, expect, it } from 'vitest';
import { cpuGoal } from '../bench/lib/cpu.js';
import { roundsToTell } from '../bench/lib/paired.js';
import { goalsTable } from '../bench/lib/report.js';
import type { Row, Sample } from '../bench/lib/sample.js';

/** A row whose round i used cpuUs[i] µs of CPU for each of its 1,000 requests. */
function row(label: string, cpuUs: number[]): Row {
  const samples: Sample[] = cpuUs.map((us) => ({
    ok: true,
    transferMs: 1000,
    processMs: 1000,
    bytes: 1000 * 102_400,
    requests: 1000,
    peakRssBytes: 0,
    peakTreeRssBytes: 0,
    cpuMs: us,
    cpuRequests: 1000,
  }));
  return {
    label,
    ours: label === 'ours',
    timing: 'in-tool',
    samples,
    failed: 0,
    medianMs: 1000,
    minMs: 1000,
    maxMs: 1000,
    medianProcessMs: 1000,
    medianServerSpanMs: NaN,
  } as Row;
}

/** A shared machine's drift: each round's level, the same for both sides of it. */
const drift = [40, 62, 38, 55, 44, 71, 39, 48, 52, 41];

describe('bench CPU goals: per-round ratios and their interval', () => {
  it('reached where every round puts ours below the peer, though the runs of each side spread 1.8x', () => {
    const g = cpuGoal(
      'CPU per PUT <= wrk',
      'request',
      row(
        'ours',
        drift.map((d) => d * 0.9),
      ),
      row('wrk', drift),
    );
    expect(g.reached).toBe(true);
    expect(g.valueText).toMatch(/ours\/peer per round 0\.90x \(9\d% CI 0\.90–0\.90, n 10\)/);
    expect(goalsTable([g])).toMatch(/\| yes \|/);
  });

  it('missed where every round puts ours above it', () => {
    const g = cpuGoal(
      'CPU per PUT <= wrk',
      'request',
      row(
        'ours',
        drift.map((d) => d * 1.15),
      ),
      row('wrk', drift),
    );
    expect(g.reached).toBe(false);
    expect(goalsTable([g])).toMatch(/\| no \|/);
  });

  it('says "no significant difference" where the rounds go both ways, and how many rounds might tell', () => {
    const ratios = [0.92, 1.1, 0.97, 1.12, 0.95, 1.08, 1.01, 0.9, 1.15, 0.99];
    const g = cpuGoal(
      'CPU per PUT <= wrk',
      'request',
      row(
        'ours',
        drift.map((d, i) => d * ratios[i]!),
      ),
      row('wrk', drift),
    );
    expect(g.reached).toBeUndefined();
    expect(g.verdict).toMatch(/^no significant difference in 10 round\(s\)/);
    expect(goalsTable([g])).toContain('| no significant difference in 10 round(s)');
  });

  it('three rounds tell nothing, even all three one way: the interval of a median needs six', () => {
    const g = cpuGoal('CPU per MiB <= curl', 'MiB', row('ours', [30, 31, 29]), row('curl', [40, 41, 39]));
    expect(g.reached).toBeUndefined();
    expect(g.verdict).toMatch(/^no significant difference in 3 round\(s\); ~\d+ would tell/);
  });

  it('a side with no CPU figures is "not measured", not a verdict', () => {
    const g = cpuGoal('CPU per PUT <= wrk', 'request', row('ours', []), row('wrk', drift));
    expect(g.reached).toBeUndefined();
    expect(g.valueText).toBe('not measured');
  });

  it(
    'sizes the rounds a difference would need from the rounds themselves: 1.1x with a spread of ' +
      'e^0.1 takes ~30',
    () => {
      const ratios = Array.from({ length: 10 }, (_, i) => 1.1 * Math.exp(i % 2 ? 0.1 : -0.1)).sort(
        (a, b) => a - b,
      );
      // ((1.96 + 0.84) x 1.4826 x 0.1 / ln 1.1)^2 / (2 / pi)
      expect(roundsToTell(ratios)).toBe(30);
      expect(roundsToTell([1, 1, 1, 1])).toBeUndefined();
    },
  );
});
