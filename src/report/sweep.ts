// A sweep as text: the grid of the best strategy's median per cell, the winner of each cell, and
// the SDK advice that analysis drew from measured SDK cells.
import { cellLabel } from '../analysis/analyze.js';
import type { SweepVerdict } from '../analysis/sweep.js';

export function renderGrid({ grid, winners, tied }: SweepVerdict): string {
  const headers = grid.cols.map((c) => `${grid.colLabel.replace(/^--/, '')}=${c}`);
  const width = Math.max(10, ...headers.map((h) => h.length)) + 3;
  const rowWidth = Math.max(grid.rowLabel.length, ...grid.rows.map((r) => r.length)) + 2;
  const lines = [grid.title, '', `${grid.rowLabel.padEnd(rowWidth)}${headers.map((h) => h.padStart(width)).join('')}`];
  grid.values.forEach((row, r) => {
    const cells = row.map((v, c) => {
      const isBest = grid.best && grid.best.row === r && grid.best.col === c;
      const isTied = grid.tied?.some((t) => t.row === r && t.col === c);
      const mark = isBest ? ' *' : isTied ? ' =' : '  ';
      return `${v === null ? 'failed' : v.toFixed(1)}${mark}`.padStart(width);
    });
    lines.push(`${grid.rows[r]!.padEnd(rowWidth)}${cells.join('')}`);
  });
  lines.push('', `* best cell${tied.length > 1 ? '; = no significant difference from it (Mann-Whitney U over the runs, 5%): any of these will do' : ''}. Winning strategy per cell:`);
  for (const w of winners) lines.push(`  ${cellLabel(w.strategy, w.cell)}`);
  if (tied.length > 1) lines.push('', `best cells: ${tied.map((w) => cellLabel(w.strategy, w.cell)).join('; ')}`);
  return lines.join('\n');
}
