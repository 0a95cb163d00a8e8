// tune's search on a model of a paced target (each connection at r, all at R: the best parallelism
// is R / r), with noise: it must land within 5% of the grid's best for a quarter of the grid's
// time, stop growing where throttling begins, and never pick a throttled cell while another exists.
import { describe, expect, it } from 'vitest';
import { throttleClassOf } from '../src/transport/answer.js';
import { medianIntervalBootstrap } from '../src/analysis/stats.js';
import { median } from '../src/analysis/stats.js';
import { tuneAxes } from '../src/tune/axes.js';
import { tuneLines } from '../src/report/tune.js';
import type { ReportTune } from '../src/analysis/tune.js';
import {
  neighbourCells,
  tuneSearch,
  type CellMeasure,
  type ThrottleBoundary,
  type TuneAxis,
  type TuneCell,
} from '../src/tune/search.js';

const ladder = (values: number[]) => values.map(String);
const halfway = (a: string, b: string) => {
  const mid = Math.round(Math.sqrt(Number(a) * Number(b)));
  return mid > Number(a) && mid < Number(b) ? String(mid) : undefined;
};

const AXES: TuneAxis[] = [
  { flag: '--processes', values: ladder([1, 2, 4]), ordered: true, start: 0, multipliesConnections: true },
  {
    flag: '--max-sockets',
    values: ladder([1, 2, 4, 8, 16, 32, 64]),
    ordered: true,
    start: 2,
    between: halfway,
    multipliesConnections: true,
  },
  {
    flag: '--concurrency',
    values: ladder([1, 2, 4, 8, 16, 32, 64]),
    ordered: true,
    start: 2,
    between: halfway,
  },
];

interface Model {
  perConnectionMiBps: number;
  totalMiBps: number;
  /** Parallel requests past which the "account" throttles. */
  throttleAt?: number;
}

/** A seeded generator for the noise: the same test, the same numbers. */
function noise(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
}

/**
 * The model's true run time for a cell: 64 MiB at min(parallel x r, R), plus 0.5 ms a connection and 3 ms a
 * process.
 */
function trueMs(m: Model, cell: TuneCell): number {
  const parallel = Math.min(
    Number(cell['--concurrency']),
    Number(cell['--max-sockets']) * Number(cell['--processes']),
  );
  const rate = Math.min(parallel * m.perConnectionMiBps, m.totalMiBps);
  return (64 / rate) * 1000 + 0.5 * parallel + 3 * Number(cell['--processes']);
}

function measurer(m: Model, seed: number, runs = 5) {
  const next = noise(seed);
  return async (
    cell: TuneCell,
    _why?: unknown,
    decided?: (runMs: readonly number[]) => boolean,
  ): Promise<CellMeasure> => {
    const t = trueMs(m, cell);
    // As the session races a cell: from the third run on, it stops once `decided` says so.
    const runMs: number[] = [];
    while (runMs.length < runs && !(runMs.length >= 3 && decided?.(runMs)))
      runMs.push(t * (1 + (next() - 0.5) * 0.06));
    const parallel = Math.min(
      Number(cell['--concurrency']),
      Number(cell['--max-sockets']) * Number(cell['--processes']),
    );
    const throttled = m.throttleAt !== undefined && parallel >= m.throttleAt ? parallel : 0;
    return {
      runMs,
      throttled,
      ...(throttled ? { throttleClass: 'operations' as const } : {}),
      spentMs: runMs.reduce((a, b) => a + b, 0),
    };
  };
}

function grid(axes: readonly TuneAxis[]): TuneCell[] {
  let cells: TuneCell[] = [{}];
  for (const a of axes) cells = cells.flatMap((c) => a.values.map((v) => ({ ...c, [a.flag]: v })));
  return cells;
}

describe('tune search', () => {
  for (const m of [
    { perConnectionMiBps: 4, totalMiBps: 32 },
    { perConnectionMiBps: 2, totalMiBps: 64 },
    { perConnectionMiBps: 16, totalMiBps: 32 },
  ]) {
    it(
      `finds the knee at R / r = ${m.totalMiBps / m.perConnectionMiBps} within 5% of the grid's best ` +
        `for at most 25% of its time`,
      async () => {
        const cells = grid(AXES);
        const measureGrid = measurer(m, 1);
        let gridSpent = 0;
        let gridBest = Infinity;
        for (const c of cells) {
          const r = await measureGrid(c);
          gridSpent += r.spentMs;
          gridBest = Math.min(gridBest, trueMs(m, c));
        }
        const outcome = await tuneSearch({ axes: AXES, measure: measurer(m, 2), budgetMs: Infinity });
        const spent = outcome.path.reduce((a, c) => a + c.measure.spentMs, 0);
        expect(outcome.stopped).toBe('converged');
        expect(trueMs(m, outcome.best!.cell)).toBeLessThanOrEqual(gridBest * 1.05);
        expect(spent).toBeLessThanOrEqual(gridSpent * 0.25);
        process.stdout.write(
          `tune R/r=${m.totalMiBps / m.perConnectionMiBps}: ${outcome.path.length} of ` +
            `${cells.length} cells, ${((100 * spent) / gridSpent).toFixed(1)}% of the grid time, best ` +
            `${(trueMs(m, outcome.best!.cell) / gridBest).toFixed(3)}x the grid best\n`,
        );
        // The path is the order cells were measured in, starting at the start.
        expect(outcome.path[0]!.reason).toBe('start');
        expect(outcome.path.map((c) => c.step)).toEqual(outcome.path.map((_, i) => i));
        // Each neighbour of the best is not significantly faster: its ratio's interval reaches 1x or above.
        for (const n of outcome.neighbours) expect(n.interval.high).toBeGreaterThanOrEqual(1);
      },
    );
  }

  it(
    'stops growing where throttling begins, names the class and the value, and recommends the best ' +
      'unthrottled cell',
    async () => {
      const m = { perConnectionMiBps: 2, totalMiBps: 64, throttleAt: 8 };
      const outcome = await tuneSearch({ axes: AXES, measure: measurer(m, 3), budgetMs: Infinity });
      expect(outcome.bestThrottled).toBe(false);
      expect(outcome.best!.measure.throttled).toBe(0);
      const parallel = Math.min(
        Number(outcome.best!.cell['--concurrency']),
        Number(outcome.best!.cell['--max-sockets']) * Number(outcome.best!.cell['--processes']),
      );
      expect(parallel).toBeLessThan(8);
      expect(parallel).toBeGreaterThanOrEqual(4);
      expect(outcome.throttling.length).toBeGreaterThan(0);
      for (const t of outcome.throttling) expect(t.throttleClass).toBe('operations');
      const concurrency = outcome.throttling.find((t) => t.axis === '--concurrency');
      expect(concurrency?.value).toBe('8');
    },
  );

  it(
    'from a start past the knee: no growth of both connection axes at once, a bisection down, and ' +
      'the slower cells raced',
    async () => {
      // One process of 16 sockets where 4 connections fill R (r = 4, R = 16): the upload test's shape.
      const axes: TuneAxis[] = [
        {
          flag: '--max-sockets',
          values: ladder([1, 2, 4, 8, 16, 32, 64, 128, 256]),
          ordered: true,
          start: 4,
          between: halfway,
          multipliesConnections: true,
        },
        {
          flag: '--processes',
          values: ladder([1, 2, 4]),
          ordered: true,
          start: 0,
          multipliesConnections: true,
        },
      ];
      const m = { perConnectionMiBps: 4, totalMiBps: 16 };
      const base = measurer(m, 11);
      const runsOf = new Map<string, number>();
      const outcome = await tuneSearch({
        axes,
        budgetMs: Infinity,
        measure: async (cell, why, decided) => {
          const got = await base({ ...cell, '--concurrency': '256' }, why, decided);
          runsOf.set(`${cell['--max-sockets']}x${cell['--processes']}`, got.runMs.length);
          return got;
        },
      });
      const visited = outcome.path.map((p) => `${p.cell['--max-sockets']}x${p.cell['--processes']}`);
      expect(outcome.best!.cell).toEqual({ '--max-sockets': '4', '--processes': '1' });
      // Growth each way alone (no 32x2), then the ladder's upper middle below 16 (4), then 2, then 3 between.
      expect(visited.slice(0, 3)).toEqual(['16x1', '32x1', '16x2']);
      expect(visited).not.toContain('32x2');
      expect(visited).not.toContain('8x1');
      expect(visited).toContain('2x1');
      expect(visited.length).toBeLessThanOrEqual(7);
      // 2 sockets are 2x slower: decided after 3 runs; the answer has all 5.
      expect(runsOf.get('2x1')).toBe(3);
      expect(runsOf.get('4x1')).toBe(5);
    },
  );

  it('stops when the budget is spent, with what it measured', async () => {
    const m = { perConnectionMiBps: 2, totalMiBps: 64 };
    const outcome = await tuneSearch({ axes: AXES, measure: measurer(m, 4), budgetMs: 20_000 });
    expect(outcome.stopped).toBe('budget');
    expect(outcome.path.length).toBeGreaterThan(0);
  });

  it('stops on the signal', async () => {
    const stop = new AbortController();
    const m = { perConnectionMiBps: 2, totalMiBps: 64 };
    const measure = measurer(m, 5);
    const outcome = await tuneSearch({
      axes: AXES,
      budgetMs: Infinity,
      signal: stop.signal,
      measure: async (cell) => {
        stop.abort();
        return measure(cell);
      },
    });
    expect(outcome.stopped).toBe('signal');
    expect(outcome.path).toHaveLength(1);
  });

  it('a --deadline stop is recorded as the deadline, not as a signal, and said so', async () => {
    const stop = new AbortController();
    const measure = measurer({ perConnectionMiBps: 2, totalMiBps: 64 }, 5);
    const outcome = await tuneSearch({
      axes: AXES,
      budgetMs: Infinity,
      signal: stop.signal,
      measure: async (cell) => {
        // What the CLI's stop does when its --deadline passes.
        stop.abort('deadline');
        return measure(cell);
      },
    });
    expect(outcome.stopped).toBe('deadline');
    const first = tuneLines(
      {
        path: [],
        neighbours: [],
        throttling: [],
        deploy: { environment: '', k8sManifest: '' },
        spentMs: 1000,
        budgetMs: 20_000,
        stopped: outcome.stopped,
      } as unknown as ReportTune,
      'MiB/s',
    )[0];
    expect(first).toMatch(/stopped at the --deadline$/);
    expect(first).not.toMatch(/signal/);
  });

  it('a search that fails part-way has already recorded where throttling began', async () => {
    const m = { perConnectionMiBps: 2, totalMiBps: 64, throttleAt: 16 };
    const measure = measurer(m, 6);
    const throttling: ThrottleBoundary[] = [];
    let throttledSeen = false;
    const search = tuneSearch({
      axes: AXES,
      budgetMs: Infinity,
      throttling,
      measure: async (cell) => {
        // The cell after the first throttled one fails (a target that stopped answering).
        if (throttledSeen) throw new Error('cannot reach the target');
        const measured = await measure(cell);
        throttledSeen = measured.throttled > 0;
        return measured;
      },
    });
    await expect(search).rejects.toThrow('cannot reach the target');
    // The throttled cell's axes (one, or both of a pair grown together), each past its first value.
    expect(throttling.length).toBeGreaterThan(0);
    for (const b of throttling) {
      expect(b.throttleClass).toBe('operations');
      expect(Number(b.value)).toBeGreaterThan(Number(AXES.find((a) => a.flag === b.axis)!.values[0]));
    }
  });

  it('with 3 runs a cell (too few to tell apart) it never names best a cell measured slower', async () => {
    const m = { perConnectionMiBps: 4, totalMiBps: 32 };
    const outcome = await tuneSearch({ axes: AXES, measure: measurer(m, 7, 3), budgetMs: Infinity });
    const best = outcome.best!;
    const measured = outcome.path.filter((p) => p.measure.runMs.length && p.measure.throttled === 0);
    const byMedian = measured.sort((a, b) => median(a.measure.runMs) - median(b.measure.runMs));
    const fastest = byMedian[0]!.measure.runMs;
    // Within what the fastest's own runs allow (its 95% interval, or 2%): not slower as measured.
    const allowed = Math.max(1.02 * median(fastest), medianIntervalBootstrap(fastest).high);
    expect(median(best.measure.runMs)).toBeLessThanOrEqual(allowed);
    // A walk to fewer resources on every "no significant difference" would end at 1 x 1 x 1; the
    // search's best must beat that.
    const least = { '--processes': '1', '--max-sockets': '1', '--concurrency': '1' };
    expect(trueMs(m, best.cell)).toBeLessThan(trueMs(m, least));
  });

  it('names no best where every cell failed, and moves off a failed start to a measured cell', async () => {
    const failed = async (): Promise<CellMeasure> => ({ runMs: [], throttled: 0, spentMs: 100 });
    const none = await tuneSearch({ axes: AXES, measure: failed, budgetMs: 5_000 });
    expect(none.path.length).toBeGreaterThan(1);
    expect(none.best).toBeUndefined();
    expect(none.neighbours).toEqual([]);
    // Only the start fails (its concurrency is too many for the target): the answer is a measured cell.
    const measure = measurer({ perConnectionMiBps: 4, totalMiBps: 32 }, 8);
    const start = Object.fromEntries(AXES.map((a) => [a.flag, a.values[a.start]!]));
    const isStart = (cell: TuneCell) => JSON.stringify(cell) === JSON.stringify(start);
    const outcome = await tuneSearch({
      axes: AXES,
      budgetMs: Infinity,
      measure: async (cell, why, decided) => (isStart(cell) ? failed() : measure(cell, why, decided)),
    });
    expect(outcome.best).toBeDefined();
    expect(outcome.best!.measure.runMs.length).toBeGreaterThan(0);
    expect(outcome.best!.cell).not.toEqual(start);
  });

  it('a start already throttled is not where throttling began; a step up from a clean cell is', async () => {
    // The start (4 sockets, concurrency 4) is throttled; 2 in flight are not.
    const m = { perConnectionMiBps: 2, totalMiBps: 64, throttleAt: 4 };
    const outcome = await tuneSearch({ axes: AXES, measure: measurer(m, 9), budgetMs: Infinity });
    expect(outcome.path[0]!.measure.throttled).toBeGreaterThan(0);
    expect(outcome.best!.measure.throttled).toBe(0);
    const cell = outcome.best!.cell;
    const sockets = Number(cell['--max-sockets']) * Number(cell['--processes']);
    expect(Math.min(Number(cell['--concurrency']), sockets)).toBeLessThan(4);
    for (const b of outcome.throttling) {
      // Each value named is above an unthrottled cell measured on that axis, and not the start's next step.
      const below = (p: (typeof outcome.path)[number]) => Number(p.cell[b.axis]) < Number(b.value);
      const clean = outcome.path.filter((p) => p.measure.throttled === 0 && below(p));
      expect(clean.length, JSON.stringify(b)).toBeGreaterThan(0);
      const axis = AXES.find((a) => a.flag === b.axis)!;
      expect(b.value).not.toBe(axis.values[axis.start + 1]);
    }
  });

  it('a start past the top of a ladder starts at its top, not at its bottom', () => {
    const input = {
      direction: 'download' as const,
      strategies: ['chunked'],
      cores: 2,
      fixed: new Set<string>(),
    };
    const axes = tuneAxes({ ...input, start: { processes: 64, maxSockets: 16, concurrency: 1000 } });
    const start = (flag: string) => {
      const a = axes.find((x) => x.flag === flag)!;
      return a.values[a.start];
    };
    expect(start('--concurrency')).toBe('256');
    expect(start('--processes')).toBe('4');
    expect(start('--max-sockets')).toBe('16');
    const huge = { processes: 1, maxSockets: 16, concurrency: 8, blockSizeBytes: 4000 * 1024 * 1024 };
    const upload = tuneAxes({ ...input, direction: 'upload', strategies: ['blocks'], start: huge });
    const blocks = upload.find((x) => x.flag === '--block-size')!;
    expect(blocks.values[blocks.start]).toBe(blocks.values.at(-1));
  });

  it(
    'neighbours: a step each way on ordered axes with half steps, every other ' +
      'value of a categorical one',
    () => {
      const axes: TuneAxis[] = [
        {
          flag: '--concurrency',
          values: ladder([1, 2, 4, 8, 16]),
          ordered: true,
          start: 2,
          between: halfway,
        },
        { flag: '--source-method', values: ['single', 'chunked', 'assemble'], ordered: false, start: 0 },
      ];
      const around = neighbourCells(axes, { '--concurrency': '8', '--source-method': 'chunked' }).map(
        (n) => `${n.cell['--concurrency']} ${n.cell['--source-method']}`,
      );
      expect(around).toEqual([
        '6 chunked',
        '4 chunked',
        '11 chunked',
        '16 chunked',
        '8 single',
        '8 assemble',
      ]);
      // From a half step, only the ladder values around it: refining ends.
      expect(
        neighbourCells(axes, { '--concurrency': '11', '--source-method': 'single' })
          .slice(0, 2)
          .map((n) => n.cell['--concurrency']),
      ).toEqual(['8', '16']);
    },
  );

  it("classes throttled answers by Azure's words", () => {
    expect(throttleClassOf('<Message>Operations per second is over the account limit.</Message>')).toBe(
      'operations',
    );
    expect(throttleClassOf('The ingress is over the account limit.')).toBe('ingress');
    expect(throttleClassOf('Egress is over the account limit.')).toBe('egress');
    expect(throttleClassOf('Server busy')).toBe('other');
  });
});
