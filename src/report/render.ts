// Every report from results documents alone: the table printed after a run and `report` on the
// saved file come from this one function, so they print the same thing.
import { analyze } from '../analysis/analyze.js';
import { buildGrid, sdkAdvice } from '../analysis/sweep.js';
import type { ReportFormat } from '../config/options.js';
import type { ResultsFile } from '../results/schema.js';
import { renderConsole, renderCsv, renderMarkdown } from './console.js';
import { renderGrid } from './sweep.js';

export interface ReportTitle {
  title: string;
  target: string;
}

/** The one object size every download run delivered, when there is one. */
function commonObjectSize(docs: readonly ResultsFile[]): number | undefined {
  if (docs[0]?.command !== 'download') return undefined;
  const sizes = new Set(docs.flatMap((d) => d.runs.map((r) => r.objectSizeBytes)));
  return sizes.size === 1 ? [...sizes][0] : undefined;
}

export async function renderReport(docs: readonly ResultsFile[], format: ReportFormat, head: ReportTitle): Promise<string> {
  const stats = analyze(docs.flatMap((d) => d.runs));
  const header = { ...head, mode: docs[0]?.command ?? 'download', objectSizeBytes: commonObjectSize(docs) };
  const axes = docs.length === 1 ? docs[0]!.sweep : undefined;
  const sweep = axes?.length ? buildGrid(stats, axes) : undefined;
  switch (format) {
    case 'md': return renderMarkdown(stats, header);
    case 'csv': return renderCsv(stats);
    case 'json': return JSON.stringify(sweep ? { grid: sweep.grid, stats } : stats, null, 2);
    case 'html': {
      const { renderHtml } = await import('./html.js');
      return renderHtml({ title: head.title, docs: [...docs], stats, sweep: sweep?.grid });
    }
    case 'console': {
      const table = renderConsole(stats, header);
      if (!sweep) return table;
      // The answer last, where the eye lands: the grid and what it advises.
      const advice = sdkAdvice(stats, sweep.best);
      return [table, '', renderGrid(sweep), ...(advice.length ? ['', ...advice] : [])].join('\n');
    }
  }
}
