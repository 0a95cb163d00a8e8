// Sweeps: any option given as a comma-separated list is an axis; the grid is every combination.
// Each cell is parsed and validated like a normal command line, then measured.
import { gridCells } from '../config/sweep.js';
import { strategyNamed, type Direction } from '../strategies/index.js';
import { cellLabel, type ContenderStats } from './analyze.js';
import { reportUnit } from './unit.js';
import { significantlyFaster } from './significance.js';
import type { Cell, SweepAxis } from '../results/schema.js';

export type { SweepAxis } from '../results/schema.js';

export interface SweepGrid {
  title: string;
  rowLabel: string;
  colLabel: string;
  rows: string[];
  cols: string[];
  values: (number | null)[][];
  unit: string;
  /** The lowest and highest measured value in the grid (not finite where it has none). */
  range: { low: number; high: number };
  best?: { row: number; col: number };
  /** Cells a rank test cannot tell from the best (the best among them): any of them will do. */
  tied?: { row: number; col: number }[];
}

/**
 * A sweep is answered in ops/s when every contender is counted in them (their request kinds say so), else in
 * MiB/s.
 */
export const measuresOps = (stats: readonly ContenderStats[]) =>
  reportUnit(stats.map((s) => s.unit)) === 'ops/s';

const cellKey = (axes: readonly SweepAxis[], cell: Cell) =>
  JSON.stringify(axes.map((a) => cell[a.flag] ?? null));

export interface SweepVerdict {
  grid: SweepGrid;
  /** The fastest contender of each cell, in grid order. */
  winners: ContenderStats[];
  /** The fastest contender over the whole grid. */
  best?: ContenderStats;
  /** The best and every cell's winner not significantly slower than it. */
  tied: ContenderStats[];
}

/** A contender's median rate in the grid's unit. */
const medianRate = (s: ContenderStats, useOps: boolean) =>
  useOps ? s.opsPerSecond.median : s.throughputMiBps.median;

/** Per-run rates of a contender, in the grid's unit. */
const ratesOf = (s: ContenderStats, useOps: boolean) => (useOps ? s.ratesOpsPerSecond : s.ratesMiBps);
/**
 * Whether `top`'s rates are significantly above `other`'s, by the verdict's rule (the rank test and
 * the ratio's interval), on seconds per unit: the inverse of a rate orders runs as their times do.
 */
const aheadOf = (top: ContenderStats, other: ContenderStats, useOps: boolean) =>
  significantlyFaster(
    ratesOf(top, useOps).map((r) => 1 / r),
    ratesOf(other, useOps).map((r) => 1 / r),
  );

/**
 * The grid of the best strategy's median per cell: rows are the first axes, columns the last.
 * Throughput (MiB/s) unless the workload is many small blobs, where ops/s is the answer.
 */
export function buildGrid(stats: readonly ContenderStats[], axes: readonly SweepAxis[]): SweepVerdict {
  const useOps = measuresOps(stats);
  const last = axes[axes.length - 1]!;
  const rowAxes = axes.slice(0, -1);
  const rowCells = gridCells(rowAxes);
  const byCell = new Map<string, ContenderStats>();
  const value = (s: ContenderStats) => medianRate(s, useOps);
  for (const s of stats) {
    if (!s.verified || !s.cell) continue;
    const k = cellKey(axes, s.cell);
    const seen = byCell.get(k);
    if (!seen || value(s) > value(seen)) byCell.set(k, s);
  }
  const at = rowCells.map((rc) =>
    last.values.map((v) => byCell.get(cellKey(axes, { ...rc, [last.flag]: v }))),
  );
  let best: { row: number; col: number } | undefined;
  at.forEach((row, r) =>
    row.forEach((w, c) => {
      if (w && (!best || value(w) > value(at[best.row]![best.col]!))) best = { row: r, col: c };
    }),
  );
  // The set tied with the top: cells whose winner the verdict's rule cannot tell from the best's.
  const top = best ? at[best.row]![best.col]! : undefined;
  const tiedAt: { row: number; col: number }[] = [];
  at.forEach((row, r) =>
    row.forEach((w, c) => {
      if (w && top && (w === top || !aheadOf(top, w, useOps))) tiedAt.push({ row: r, col: c });
    }),
  );
  const values = at.map((row) => row.map((w) => (w ? value(w) : null)));
  const measured = values.flat().filter((v): v is number => v !== null && Number.isFinite(v));
  const grid: SweepGrid = {
    title: `best strategy per cell, ${useOps ? 'ops/s' : 'MiB/s'} (median)`,
    rowLabel: rowAxes.map((a) => a.flag).join(' ') || '(one row)',
    colLabel: last.flag,
    rows: rowCells.map((c) => rowAxes.map((a) => c[a.flag]).join(' ') || '-'),
    cols: last.values,
    values,
    range: { low: Math.min(...measured), high: Math.max(...measured) },
    unit: useOps ? 'ops/s' : 'MiB/s',
    best,
    tied: tiedAt,
  };
  return {
    grid,
    winners: at.flat().filter((w): w is ContenderStats => w !== undefined),
    best: top,
    tied: tiedAt.map(({ row, col }) => at[row]![col]!),
  };
}

/**
 * SDK settings, drawn only from SDK baseline cells that were measured with them: none when the
 * SDK was not swept, none when one plain GET won (there are no block settings to give).
 */
export function sdkAdvice(
  direction: Direction,
  stats: readonly ContenderStats[],
  best: ContenderStats | undefined,
): string[] {
  if (!best) return [];
  const nothingToSet = strategyNamed(direction, best.strategy)?.noSdkSettings;
  if (nothingToSet)
    return [
      `best cell: ${cellLabel(best.strategy, best.cell)} (${nothingToSet}): no SDK block settings to advise`,
    ];
  const useOps = measuresOps(stats);
  const value = (s: ContenderStats) => medianRate(s, useOps);
  const settingsOf = (s: ContenderStats) => strategyNamed(direction, s.strategy)?.sdkSettings;
  const sdkCells = stats.filter((s) => s.verified && s.cell && s.params && settingsOf(s));
  if (!sdkCells.length)
    return [
      'SDK settings: not advised, no SDK baseline was measured in this sweep ' +
        '(add sdk to the strategies swept)',
    ];
  const top = sdkCells.reduce((a, b) => (value(b) > value(a) ? b : a));
  const alike = sdkCells.filter((s) => s !== top && !aheadOf(top, s, useOps));
  const lines = [
    `SDK settings from its best measured cell (${cellLabel(top.strategy, top.cell)}, ` +
      `${value(top).toFixed(1)} ${useOps ? 'ops/s' : 'MiB/s'}):`,
  ];
  if (alike.length)
    lines.push(
      `  (no significant difference from: ${alike.map((s) => cellLabel(s.strategy, s.cell)).join('; ')}: ` +
        'any of them will do)',
    );
  return [...lines, ...settingsOf(top)!(top.params!, top.objectSizeBytes)];
}
