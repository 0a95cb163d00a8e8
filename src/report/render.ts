// Every report from a results document alone: the table printed after a run and `report` on the
// saved file come from this one function, so they print the same thing. Documents are never pooled
// as if they were more runs of one client: two files are two reports (or `compare`).
import { analyze } from '../analysis/analyze.js';
import { buildGrid, sdkAdvice } from '../analysis/sweep.js';
import { rankStats, verdictLines, warnings } from '../analysis/verdict.js';
import type { ReportFormat } from '../config/options.js';
import type { ResultsFile } from '../results/schema.js';
import { renderConsole, renderCsv, renderMarkdown } from './console.js';
import { renderGrid } from './sweep.js';

export interface ReportTitle {
  title: string;
  target: string;
}

/** The one object size every download run delivered, when there is one. */
function commonObjectSize(doc: ResultsFile): number | undefined {
  if (doc.command !== 'download') return undefined;
  const sizes = new Set(doc.runs.map((r) => r.objectSizeBytes));
  return sizes.size === 1 ? [...sizes][0] : undefined;
}

/** Embedded Azurite, or a URL on a loopback address: the target competes with the client for CPU. */
function targetOnThisMachine(d: ResultsFile): boolean {
  return (d.environment.targetKind === 'embedded-azurite' || /\b(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?\b/.test(d.environment.target));
}

export async function renderReport(doc: ResultsFile, format: ReportFormat, head: ReportTitle): Promise<string> {
  const stats = analyze(doc.runs);
  const header = { ...head, mode: doc.command, objectSizeBytes: commonObjectSize(doc), targetOnThisMachine: targetOnThisMachine(doc) };
  const axes = doc.sweep;
  const sweep = axes?.length ? buildGrid(stats, axes) : undefined;
  switch (format) {
    case 'md': return renderMarkdown(stats, header);
    case 'csv': return renderCsv(stats);
    case 'json': {
      const ranking = rankStats(stats);
      const verdict = { ranking, verdict: verdictLines(ranking), warnings: warnings(stats, header.targetOnThisMachine) };
      return JSON.stringify(sweep ? { ...verdict, grid: sweep.grid, advice: sdkAdvice(stats, sweep.best) } : verdict, null, 2);
    }
    case 'html': {
      const { renderHtml } = await import('./html.js');
      return renderHtml({ title: head.title, docs: [doc], stats, sweep: sweep?.grid, targetOnThisMachine: header.targetOnThisMachine });
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
