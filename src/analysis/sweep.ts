// Sweeps: any option given as a comma-separated list is an axis; the grid is every combination.
// Each cell is parsed and validated like a normal command line, then measured.
import { ConfigError } from '../config/errors.js';
import { formatBytes } from '../config/sizes.js';
import { cellLabel, type StrategyStats } from './analyze.js';

export interface SweepAxis {
  flag: string;
  values: string[];
}

export interface SweepGrid {
  title: string;
  rowLabel: string;
  colLabel: string;
  rows: string[];
  cols: string[];
  values: (number | null)[][];
  unit: string;
  best?: { row: number; col: number };
}

export const MAX_SWEEP_CELLS = 100;

/** Splits argv into the fixed part and the swept axes (`--flag a,b,c` or `--flag=a,b,c`). */
export function findAxes(argv: readonly string[]): { axes: SweepAxis[]; fixed: string[] } {
  const axes: SweepAxis[] = [];
  const fixed: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    let flag: string | undefined;
    let value: string | undefined;
    if (arg.startsWith('--') && arg.includes('=')) [flag, value] = [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)];
    else if (arg.startsWith('--') && argv[i + 1] !== undefined && !argv[i + 1]!.startsWith('--') && argv[i + 1]!.includes(',')) {
      [flag, value] = [arg, argv[i + 1]!];
      i++;
    }
    if (flag && value?.includes(',')) {
      const values = value.split(',').map((v) => v.trim()).filter(Boolean);
      if (axes.some((a) => a.flag === flag)) throw new ConfigError(`${flag} is swept twice; give its values once, comma-separated`);
      axes.push({ flag, values });
    } else if (flag) fixed.push(`${flag}=${value}`);
    else fixed.push(arg);
  }
  return { axes, fixed };
}

export function gridCells(axes: readonly SweepAxis[]): Record<string, string>[] {
  let cells: Record<string, string>[] = [{}];
  for (const axis of axes) cells = cells.flatMap((c) => axis.values.map((v) => ({ ...c, [axis.flag]: v })));
  if (cells.length > MAX_SWEEP_CELLS) throw new ConfigError(`the sweep has ${cells.length} cells, more than ${MAX_SWEEP_CELLS}; sweep fewer values`);
  return cells;
}

export const cellArgv = (fixed: readonly string[], cell: Record<string, string>) => [...fixed, ...Object.entries(cell).map(([k, v]) => `${k}=${v}`)];

/**
 * The grid of the best strategy's median per cell: rows are the first axes, columns the last.
 * Throughput (MiB/s) unless the workload is many small blobs, where ops/s is the answer.
 */
export function buildGrid(stats: readonly StrategyStats[], axes: readonly SweepAxis[], useOps: boolean): { grid: SweepGrid; winners: Map<string, StrategyStats>; bestCell?: Record<string, string> } {
  const last = axes[axes.length - 1]!;
  const rowAxes = axes.slice(0, -1);
  const rowCells = gridCells(rowAxes);
  const key = (cell: Record<string, string>) => JSON.stringify(axes.map((a) => cell[a.flag]));
  const winners = new Map<string, StrategyStats>();
  const value = (s: StrategyStats) => (useOps ? s.opsPerSecond.median : s.throughputMiBps.median);
  for (const s of stats) {
    if (!s.verified || !s.cell) continue;
    const k = key(s.cell);
    const seen = winners.get(k);
    if (!seen || value(s) > value(seen)) winners.set(k, s);
  }
  const values = rowCells.map((rc) => last.values.map((v) => {
    const w = winners.get(key({ ...rc, [last.flag]: v }));
    return w ? value(w) : null;
  }));
  let best: { row: number; col: number } | undefined;
  values.forEach((row, r) => row.forEach((v, c) => {
    if (v !== null && (!best || v > values[best.row]![best.col]!)) best = { row: r, col: c };
  }));
  const grid: SweepGrid = {
    title: `best strategy per cell, ${useOps ? 'ops/s' : 'MiB/s'} (median)`,
    rowLabel: rowAxes.map((a) => a.flag).join(' ') || '(one row)',
    colLabel: last.flag,
    rows: rowCells.map((c) => rowAxes.map((a) => c[a.flag]).join(' ') || '-'),
    cols: last.values,
    values,
    unit: useOps ? 'ops/s' : 'MiB/s',
    best,
  };
  const bestCell = best ? { ...rowCells[best.row]!, [last.flag]: last.values[best.col]! } : undefined;
  return { grid, winners, bestCell };
}

export function renderGrid(grid: SweepGrid, winners: Map<string, StrategyStats>): string {
  const width = Math.max(10, ...grid.cols.map((c) => c.length + 2));
  const rowWidth = Math.max(grid.rowLabel.length, ...grid.rows.map((r) => r.length)) + 2;
  const lines = [grid.title, '', `${grid.rowLabel.padEnd(rowWidth)}${grid.cols.map((c) => `${grid.colLabel.replace(/^--/, '')}=${c}`.padStart(width + 6)).join('')}`];
  grid.values.forEach((row, r) => {
    const cells = row.map((v, c) => {
      const mark = grid.best && grid.best.row === r && grid.best.col === c ? ' *' : '  ';
      return `${v === null ? 'failed' : v.toFixed(1)}${mark}`.padStart(width + 6);
    });
    lines.push(`${grid.rows[r]!.padEnd(rowWidth)}${cells.join('')}`);
  });
  lines.push('', '* best cell. Winning strategy per cell:');
  for (const w of winners.values()) lines.push(`  ${cellLabel(w.strategy, w.cell)}`);
  return lines.join('\n');
}

/** SDK settings that match the best measured cell. */
export function recommendSdkSettings(
  best: StrategyStats, cellConfig: { blockSizeBytes?: number; concurrency: number; thresholdBytes?: number; objectSizeBytes: number; processes: number; maxSockets: number },
): string[] {
  const lines = [`recommended for this target (best cell: ${cellLabel(best.strategy, best.cell)}):`];
  if (best.strategy === 'small-files' || best.strategy === 'sdk-small-files') {
    lines.push(`  ${cellConfig.processes} process(es) x ${cellConfig.maxSockets} socket(s) = ${cellConfig.processes * cellConfig.maxSockets} uploads in flight`);
    lines.push('  SDK: BlockBlobClient.upload per blob, with that many calls in flight (maxSingleShotSize above the file size)');
    return lines;
  }
  const blockSize = cellConfig.blockSizeBytes ?? Math.ceil(cellConfig.objectSizeBytes / cellConfig.concurrency);
  lines.push(`  blockSize: ${blockSize} (${formatBytes(blockSize)})`);
  lines.push(`  concurrency: ${cellConfig.concurrency}`);
  if (cellConfig.blockSizeBytes !== undefined) {
    const single = cellConfig.thresholdBytes && cellConfig.thresholdBytes > 0 ? cellConfig.thresholdBytes : blockSize;
    lines.push(`  maxSingleShotSize: ${single} (${formatBytes(single)})${cellConfig.thresholdBytes ? '' : ' — not swept: blobs up to one block go in one request'}`);
  } else {
    lines.push('  maxSingleShotSize: n/a for downloads (downloadToBuffer / downloadToFile)');
  }
  return lines;
}
