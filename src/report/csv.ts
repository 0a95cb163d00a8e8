// The report as CSV: the ranked table's every column (analysis/ranked-table.ts), one row per
// contender, each swept option in its own column; an empty cell where a figure does not exist.
import type { Report } from '../analysis/report-model.js';
import { columnsFor, csvValue } from './cells.js';
import { csvCell } from './safe-text.js';

export function renderCsv(r: Report): string {
  const columns = columnsFor(r.tables.ranked, 'csv');
  const rows = r.contenders.map((_, i) => columns.map((c) => csvCell(csvValue(c, c.values[i]))));
  return [columns.map((c) => csvCell(c.id)), ...rows].map((row) => row.join(',')).join('\n');
}
