// The comparison of two results files in every format: it only formats the CompareReport that
// analysis/compare.ts built (console text, Markdown, CSV, JSON, HTML).
import type { CompareReport } from '../analysis/compare.js';
import type { ReportFormat } from '../config/options.js';
import { escapeHtml as e } from './format.js';
import { DASH, fixed, num } from './format.js';
import { csvCell, forMarkdown as md, forTerminal as t, toJson } from './safe-text.js';
import { renderJunit } from './junit.js';

const ratioText = (c: CompareReport['changes'][number]) =>
  `${fixed(c.ratio, 2)}x (${fixed(c.ratioLow, 2)}–${fixed(c.ratioHigh, 2)})`;
const change = (v: number) => (Number.isFinite(v) ? `${v > 0 ? '+' : ''}${v.toFixed(1)}%` : DASH);
const verdictText = (c: CompareReport['changes'][number]) =>
  c.significant ? `${c.verdict} (p=${c.p.toFixed(3)})` : `~ (${c.note})`;

function consoleText(r: CompareReport): string {
  const lines = [`compare ${t(r.base.label)} -> ${t(r.next.label)}`, ''];
  lines.push(
    `${'strategy'.padEnd(16)}${'base ms'.padStart(10)}${'new ms'.padStart(10)}${'change'.padStart(9)}  ` +
      `${'new/base (95% CI)'.padEnd(22)}verdict`,
  );
  for (const c of r.changes) {
    lines.push(
      `${t(c.strategy).padEnd(16)}${fixed(c.baseMs, 1).padStart(10)}${fixed(c.newMs, 1).padStart(10)}` +
        `${change(c.changePct).padStart(9)}  ${ratioText(c).padEnd(22)}${verdictText(c)}`,
    );
    for (const p of c.phases)
      lines.push(
        `  ${`${p.metric} p50`.padEnd(14)}${num(p.baseP50Ms).padStart(10)}${num(p.newP50Ms).padStart(10)}` +
          `${change(p.changePct).padStart(9)}`,
      );
    const o = c.objectCompletion;
    if (o) {
      lines.push(
        `  ${'object p99'.padEnd(14)}${num(o.baseP99Ms).padStart(10)}${num(o.newP99Ms).padStart(10)}` +
          `${change(o.p99ChangePct).padStart(9)}`,
      );
      lines.push(
        `  ${'object max'.padEnd(14)}${num(o.baseMaxMs).padStart(10)}${num(o.newMaxMs).padStart(10)}` +
          `${change(o.maxChangePct).padStart(9)}`,
      );
    }
  }
  if (r.onlyInBase.length) lines.push(t(`only in ${r.base.label}: ${r.onlyInBase.join(', ')}`));
  if (r.onlyInNew.length) lines.push(t(`only in ${r.next.label}: ${r.onlyInNew.join(', ')}`));
  if (r.environmentDifferences.length)
    lines.push(
      '',
      t(
        `warning: the two ran in different environments: ` +
          `${r.environmentDifferences.map((d) => `${d.field} ${d.base} vs ${d.next}`).join('; ')}`,
      ),
    );
  return lines.join('\n');
}

function markdown(r: CompareReport): string {
  const lines = [
    `## compare ${md(r.base.label)} → ${md(r.next.label)}`,
    '',
    '| strategy | base ms | new ms | change | new/base (95% CI) | verdict |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  for (const c of r.changes)
    lines.push(
      `| ${md(c.strategy)} | ${num(c.baseMs)} | ${num(c.newMs)} | ${change(c.changePct)} | ` +
        `${ratioText(c)} | ${verdictText(c)} |`,
    );
  const objects = r.changes.filter((c) => c.objectCompletion);
  if (objects.length) {
    lines.push(
      '',
      '| strategy | object p99 ms base | new | change | object max ms base | new | change |',
      '| --- | --- | --- | --- | --- | --- | --- |',
    );
    for (const c of objects) {
      const o = c.objectCompletion!;
      lines.push(
        `| ${md(c.strategy)} | ${num(o.baseP99Ms)} | ${num(o.newP99Ms)} | ${change(o.p99ChangePct)} | ` +
          `${num(o.baseMaxMs)} | ${num(o.newMaxMs)} | ${change(o.maxChangePct)} |`,
      );
    }
  }
  if (r.onlyInBase.length)
    lines.push('', `- only in ${md(r.base.label)}: ${r.onlyInBase.map(md).join(', ')}`);
  if (r.onlyInNew.length) lines.push('', `- only in ${md(r.next.label)}: ${r.onlyInNew.map(md).join(', ')}`);
  if (r.environmentDifferences.length)
    lines.push(
      '',
      '### Environments differ',
      '',
      ...r.environmentDifferences.map((d) => `- ${md(d.field)}: ${md(d.base)} vs ${md(d.next)}`),
    );
  return lines.join('\n');
}

function csv(r: CompareReport): string {
  // Object completion's columns where some contender has it on both sides (files that measured it).
  const objects = r.changes.some((c) => c.objectCompletion);
  const head = [
    'strategy',
    'base_ms',
    'new_ms',
    'change_pct',
    'ratio',
    'ratio_ci95_low',
    'ratio_ci95_high',
    'p',
    'significant',
    'verdict',
    'note',
    ...(objects
      ? ['object_p99_base_ms', 'object_p99_new_ms', 'object_max_base_ms', 'object_max_new_ms']
      : []),
  ];
  const rows = r.changes.map((c) => [
    c.strategy,
    c.baseMs,
    c.newMs,
    c.changePct,
    c.ratio,
    c.ratioLow,
    c.ratioHigh,
    c.p,
    c.significant,
    c.verdict,
    c.note,
    ...(objects
      ? [
          c.objectCompletion?.baseP99Ms,
          c.objectCompletion?.newP99Ms,
          c.objectCompletion?.baseMaxMs,
          c.objectCompletion?.newMaxMs,
        ]
      : []),
  ]);
  return [head, ...rows].map((row) => row.map(csvCell).join(',')).join('\n');
}

function html(r: CompareReport): string {
  const objectCell = (c: CompareReport['changes'][number]) => {
    const o = c.objectCompletion;
    return o
      ? `p99 ${num(o.baseP99Ms)} → ${num(o.newP99Ms)} (${change(o.p99ChangePct)}), max ` +
          `${num(o.baseMaxMs)} → ${num(o.newMaxMs)} (${change(o.maxChangePct)})`
      : DASH;
  };
  const rows = r.changes.map(
    (c) =>
      `<tr data-strategy="${e(c.strategy)}"><td>${e(c.strategy)}</td><td ` +
      `class="num">${num(c.baseMs)}</td><td class="num">${num(c.newMs)}</td><td ` +
      `class="num">${change(c.changePct)}</td><td ` +
      `class="num">${e(ratioText(c))}</td><td>${e(verdictText(c))}</td><td>${e(objectCell(c))}</td></tr>`,
  );
  const env = r.environmentDifferences.length
    ? `<p class="warn">The two ran in different environments: ` +
      `${e(r.environmentDifferences.map((d) => `${d.field} ${d.base} vs ${d.next}`).join('; '))}</p>`
    : '';
  const only = [
    ...(r.onlyInBase.length ? [`only in ${r.base.label}: ${r.onlyInBase.join(', ')}`] : []),
    ...(r.onlyInNew.length ? [`only in ${r.next.label}: ${r.onlyInNew.join(', ')}`] : []),
  ];
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${e(`compare ${r.base.label} → ${r.next.label}`)}</title>
<style>\
body{font:14px/1.5 system-ui,sans-serif;max-width:1040px;margin:24px auto;padding:0 24px;color:#1f2328}\
table{border-collapse:collapse;width:100%}\
th,td{border-bottom:1px solid #d8dee4;padding:6px 8px;text-align:left}\
.num{text-align:right;font-variant-numeric:tabular-nums}\
.warn{background:#fff8c5;border:1px solid #eed888;border-radius:6px;padding:8px 10px}</style></head>
<body><h1>${e(`compare ${r.base.label} → ${r.next.label}`)}</h1>${env}
<table><thead><tr><th>strategy</th><th class="num">base ms</th><th class="num">new ms</th><th class="num">\
change</th><th class="num">new/base (95% CI)</th><th>verdict</th><th>object completion, ms</th></tr></thead>\
<tbody>${rows.join('')}</tbody></table>
${only.map((l) => `<p>${e(l)}</p>`).join('')}</body></html>
`;
}

export function renderCompare(r: CompareReport, format: ReportFormat): string {
  switch (format) {
    case 'console':
      return consoleText(r);
    case 'md':
      return markdown(r);
    case 'csv':
      return csv(r);
    case 'json':
      return toJson(r);
    case 'html':
      return html(r);
    // Each contender a test: it fails where the new file is significantly slower than the base.
    case 'junit':
      return renderJunit(
        [
          {
            name: 'compare',
            properties: [
              { name: 'base', value: r.base.label },
              { name: 'new', value: r.next.label },
            ],
            cases: r.changes.map((c) => ({
              name: c.strategy,
              classname: 'blob-cacher.compare',
              timeS: c.newMs / 1000,
              ...(c.verdict === 'slower'
                ? {
                    failure: {
                      message: `${c.strategy} is slower: ${change(c.changePct)}`,
                      type: 'slower',
                      detail: `${ratioText(c)}, ${verdictText(c)}`,
                    },
                  }
                : {}),
            })),
          },
        ],
        r.next.createdAt,
      );
  }
}
