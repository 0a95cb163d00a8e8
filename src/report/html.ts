// Placeholder until the HTML report lands (being written in parallel): fails loudly, never fakes.
import type { StrategyStats } from '../results/analyze.js';
import type { ResultsFile } from '../results/schema.js';
import { ConfigError } from '../config/errors.js';

export function renderHtml(_input: { title: string; docs: ResultsFile[]; stats: StrategyStats[] }): string {
  throw new ConfigError('--format html is not available in this build; use console, md, csv or json');
}
