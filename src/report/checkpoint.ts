// A checkpoint's figures (analysis/checkpoint.ts) for each renderer: console lines, a Markdown
// section, CSV columns on each contender's row, an HTML section. Formatting only.
import type { Report } from '../analysis/report-model.js';
import type { CheckpointContender, CheckpointRank, Figure } from '../analysis/checkpoint.js';
import { formatBytes } from '../vocabulary/sizes.js';
import { escapeHtml as e, fixed, num } from './format.js';
import { forMarkdown as md, forTerminal } from './safe-text.js';

/** Past this many ranks the console shows each rank's row only with --details. */
const RANKS_SHOWN = 8;

const fig = (f: Figure) =>
  f.low === f.high ? num(f.median) : `${num(f.median)} (${num(f.low)}–${num(f.high)})`;
const pct = (v: number) => `${(v * 100).toFixed(0)}%`;
const share = (f: Figure) =>
  f.low === f.high ? pct(f.median) : `${pct(f.median)} (${pct(f.low)}–${pct(f.high)})`;

const SUMMARY_HEAD = [
  'contender',
  'consistent ms',
  'write MiB/s',
  'read MiB/s',
  'straggler share',
  'slowest/median',
  'read-back',
];

function summaryRow(c: CheckpointContender): string[] {
  return [
    c.contender,
    fig(c.consistentMs),
    fig(c.writeMiBps),
    c.readMiBps ? fig(c.readMiBps) : '—',
    share(c.stragglerShare),
    `${fixed(c.slowestOverMedian.median, 2)}x`,
    `${c.readVerified}/${c.runs} matched`,
  ];
}

const RANK_HEAD = ['rank', 'write MiB/s', 'write done ms', 'read MiB/s', 'read done ms', 'slowest in'];

const rankRow = (k: CheckpointRank): string[] => [
  String(k.rank),
  num(k.writeMiBps),
  num(k.writeEndMs),
  num(k.readMiBps),
  num(k.readEndMs),
  `${k.slowestIn} run(s)`,
];

/** Ranks and shard, and the block size where every contender that stages blocks has the same one. */
function lede(all: readonly CheckpointContender[]): string {
  const c = all[0]!;
  const sizes = new Set(all.flatMap((x) => (x.blockSizeBytes ? [x.blockSizeBytes] : [])));
  const blocks = sizes.size === 1 ? `, blocks of ${formatBytes([...sizes][0]!)}` : '';
  return `${c.ranks} rank(s) x ${formatBytes(c.shardSizeBytes)} shard${blocks}`;
}

const MEANING =
  'consistent: barrier to the last shard committed; write/read MiB/s: every shard over that phase; ' +
  "straggler share: the part of the consistent time after the median rank's last write";

function aligned(table: string[][]): string[] {
  const widths = table[0]!.map((_, i) => Math.max(...table.map((r) => r[i]!.length)));
  const cell = (c: string, i: number) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!));
  return table.map((r) => r.map(cell).join('  ').trimEnd());
}

export function checkpointLines(r: Report, details: boolean): string[] {
  const k = r.checkpoint;
  if (!k) return [];
  const lines = ['', forTerminal(`checkpoint: ${lede(k.contenders)} (medians, 95% interval over runs)`)];
  lines.push(...aligned([SUMMARY_HEAD, ...k.contenders.map(summaryRow)].map((row) => row.map(forTerminal))));
  lines.push(forTerminal(MEANING));
  for (const c of k.contenders) {
    if (!details && c.ranks > RANKS_SHOWN) continue;
    lines.push('', `${forTerminal(c.contender)} per rank (medians over runs):`);
    lines.push(...aligned([RANK_HEAD, ...c.perRank.map(rankRow)]).map((l) => `  ${l}`));
  }
  if (k.verdicts.length)
    lines.push('', ...k.verdicts.map((v) => `checkpoint verdict: ${forTerminal(v.text)}`));
  return lines;
}

export function checkpointMarkdown(r: Report): string[] {
  const k = r.checkpoint;
  if (!k) return [];
  const table = (head: string[], rows: string[][]) => [
    `| ${head.join(' | ')} |`,
    `|${' --- |'.repeat(head.length)}`,
    ...rows.map((row) => `| ${row.map(md).join(' | ')} |`),
  ];
  return [
    '',
    '### Checkpoint',
    '',
    md(`${lede(k.contenders)}. ${MEANING}.`),
    '',
    ...table(SUMMARY_HEAD, k.contenders.map(summaryRow)),
    ...k.contenders.flatMap((c) => [
      '',
      `**${md(c.contender)}** per rank`,
      '',
      ...table(RANK_HEAD, c.perRank.map(rankRow)),
    ]),
    ...(k.verdicts.length ? ['', ...k.verdicts.map((v) => `- ${md(v.text)}`)] : []),
  ];
}

export function checkpointSection(r: Report): string {
  const k = r.checkpoint;
  if (!k) return '';
  const table = (cls: string, head: string[], rows: string[][]) =>
    `<table class="${cls}"><thead><tr>${head.map((h) => `<th>${e(h)}</th>`).join('')}</tr></thead>` +
    `<tbody>${rows.map((row) => `<tr>${row.map((c) => `<td>${e(c)}</td>`).join('')}</tr>`).join('')}` +
    '</tbody></table>';
  const ranks = k.contenders
    .map(
      (c) =>
        `<h3>${e(c.contender)} per rank</h3>${table('checkpoint-ranks', RANK_HEAD, c.perRank.map(rankRow))}`,
    )
    .join('');
  const verdicts = k.verdicts.length
    ? `<ul>${k.verdicts.map((v) => `<li>${e(v.text)}</li>`).join('')}</ul>`
    : '';
  return (
    '<section id="checkpoint"><h2>Checkpoint</h2>' +
    `<p class="lede">${e(`${lede(k.contenders)}. ${MEANING}.`)}</p>` +
    `${table('checkpoint', SUMMARY_HEAD, k.contenders.map(summaryRow))}${verdicts}${ranks}</section>`
  );
}
