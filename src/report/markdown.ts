// The report in Markdown: the recommendation first, then the ranked table, verdicts, warnings and
// the sweep grid as lists and tables, so nothing collapses into one paragraph.
import type { Report } from '../analysis/report-model.js';
import { PHASES } from '../transport/phases.js';
import { axesOf, bytes, checkWord, count, DASH, money, num, rateOf } from './format.js';
import { completionLines } from './completion.js';
import { environmentLine, manyBlobLine } from './console.js';
import { tuneLines } from './tune.js';
import { thresholdMarkdown } from './thresholds.js';

const cell = (s: string) => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const row = (cells: string[]) => `| ${cells.map(cell).join(' | ')} |`;

export function renderMarkdown(r: Report): string {
  const h = r.header;
  const lines = [`## ${h.title}`, ''];
  lines.push(`- Target: ${h.target}${h.targetOnThisMachine ? ' (on this machine)' : ''}`);
  if (h.objectSizeBytes !== undefined) lines.push(`- Object: ${bytes(h.objectSizeBytes)} (${h.objectSizeBytes} bytes)`);
  lines.push(`- Measured runs: ${h.runsPerContender.map((c) => `${c.label} ${c.runs}`).join(', ')}`);
  lines.push(`- Environment: ${environmentLine(r)}`);
  if (r.recommendation) lines.push('', `**${r.recommendation.text}**`);
  if (r.tune) {
    // The same lines as the console, as a list: Markdown would fold them into one paragraph.
    lines.push('', '### Tune', '', ...tuneLines(r.tune, r.unit).map((l) => (l.startsWith('  ') ? `  - \`${l.trim()}\`` : `- ${l}`)));
  }
  const axes = r.sweep ? axesOf(r.contenders) : [];
  const tiers = r.contenders[0]?.cost.tiers.map((t) => t.tier) ?? [];
  lines.push('', row(['#', 'strategy', ...axes, 'runs', 'time ms (median)', '95% CI ms', r.unit, 'requests per object', ...tiers.map((t) => `$ per 1,000 objects (${t})`), 'p50 first byte ms', 'p99 first byte ms', ...PHASES.map((p) => `${p} %`), 'retries', 'failed requests', 'verified']));
  lines.push(`|${' --- |'.repeat(12 + axes.length + tiers.length + PHASES.length)}`);
  for (const s of r.contenders) {
    const ci = s.wallMs.n >= 2 ? `${num(s.wallMs.ci95Low)}–${num(s.wallMs.ci95High)}` : DASH;
    lines.push(row([
      `${s.rank}${s.tied ? '=' : ''}`, axes.length ? s.strategy : s.label, ...axes.map((a) => s.cell?.[a] ?? DASH), String(s.runs), num(s.wallMs.median), ci, num(rateOf(s)), count(s.cost.requestsPerObject),
      ...tiers.map((t) => money(s.cost.tiers.find((x) => x.tier === t)?.per1000Objects)), num(s.latencyMs.firstByte?.p50), num(s.latencyMs.firstByte?.p99),
      ...PHASES.map((p) => (s.phaseShare[p] === undefined ? DASH : (s.phaseShare[p]! * 100).toFixed(1))), String(s.retries), String(s.failedRequests), checkWord(s),
    ]));
  }
  if (r.verdicts.length) lines.push('', '### Verdict', '', ...r.verdicts.map((v) => `- ${v.text}`));
  lines.push(...thresholdMarkdown(r));
  if (r.warnings.length) lines.push('', '### Warnings', '', ...r.warnings.map((w) => `- ${w.text}`));
  if (r.warmupFaults.length) lines.push('', '### Warm-up', '', ...r.warmupFaults.map((f) => `- ${f.contender} ${f.text}`));
  const many = r.contenders.map(manyBlobLine).filter((l) => l !== undefined);
  if (many.length) lines.push('', ...many.map((l) => `- ${l}`));
  const completion = completionLines(r.contenders);
  if (completion.length) lines.push('', '### Object completion', '', ...completion.map((l) => `- ${l}`));
  if (r.sweep && r.sweep.grid.cols.length) {
    const g = r.sweep.grid;
    lines.push('', `### Sweep: ${g.title}`, '', row([g.rowLabel, ...g.cols.map((c) => `${g.colLabel} ${c}`)]), `|${' --- |'.repeat(g.cols.length + 1)}`);
    g.values.forEach((vals, i) => lines.push(row([g.rows[i]!, ...vals.map((v, j) => `${v === null ? 'failed' : num(v)}${g.best?.row === i && g.best.col === j ? ' ★' : g.tied?.some((t) => t.row === i && t.col === j) ? ' =' : ''}`)])));
    lines.push('', '★ best cell; = no significant difference from it.');
    if (r.sweep.sdkAdvice.length) lines.push('', ...r.sweep.sdkAdvice.map((l) => `- ${l.trim()}`));
  }
  if (r.serverClock.length) {
    lines.push('', "### Server clock (the target's own span of each contender's data requests, median)", '');
    for (const g of r.serverClock) lines.push(`- ${g.contender}: client ${num(g.clientMs)} ms, server ${num(g.serverMs)} ms (${g.ms >= 0 ? '+' : ''}${num(g.ms)} ms; bound ${num(g.boundMs)} ms)`);
  }
  lines.push('', `Prices: ${r.prices.name}, as of ${r.prices.asOf}.`);
  return lines.join('\n');
}
