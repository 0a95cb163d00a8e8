// Every report from the one Report model: the table printed after a run and `report` on the saved
// file format the same object, so they say the same thing. Documents are never pooled as if they
// were more runs of one client: two files are two reports (or `compare`).
import type { Report } from '../analysis/report-model.js';
import type { ReportFormat } from '../config/options.js';
import { renderConsole, type ConsoleOptions } from './console.js';
import { renderCsv } from './csv.js';
import { renderMarkdown } from './markdown.js';
import { toJson } from './safe-text.js';

export interface RenderOptions extends ConsoleOptions {
  /** The run's redacted configuration, shown folded in the HTML report. */
  config?: Record<string, unknown>;
}

export async function renderReport(
  report: Report,
  format: ReportFormat,
  opts: RenderOptions = {},
): Promise<string> {
  switch (format) {
    case 'md':
      return renderMarkdown(report);
    case 'csv':
      return renderCsv(report);
    // The model itself, versioned (schemaVersion), every figure a number; README documents the fields.
    // Its tables lay the same figures out for the other formats: the JSON holds each figure once.
    case 'json': {
      const { tables: _, ...figures } = report;
      return toJson(figures);
    }
    case 'html': {
      const { renderHtml } = await import('./html.js');
      return renderHtml({ report, ...(opts.config ? { config: opts.config } : {}) });
    }
    case 'console':
      return renderConsole(report, opts);
    case 'junit':
      return (await import('./junit.js')).reportJunit(report);
  }
}
