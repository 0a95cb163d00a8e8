// The docs describe what the code does now; what was tried, when, and under which issue lives in git
// history and the issue notes. This fails on a reference to an issue or a seed by number, or a date,
// in any file of SCANNED, naming the file, the line and what matched.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');

/**
 * Files and folders checked, relative to the repository root (a folder: every text file below it).
 * To the lead: src/, test/ and bench/ join the list by uncommenting their lines once their comments
 * and test names are scrubbed; nothing else changes.
 */
const SCANNED: readonly string[] = [
  'README.md',
  'ARCHITECTURE.md',
  'BENCHMARKS.md',
  'docs',
  'src',
  'test',
  'bench',
];

/** This file names the patterns it looks for, so it is the one file never scanned. */
const SELF = relative(ROOT, import.meta.filename);

const TEXT = /\.(md|ts|js|mjs|cjs|json|ya?ml|sh|txt)$/;

/** What history looks like: "issue 28", "issues 28 and 29", "issue #28", "seed 002", "2026-11-27". */
const PATTERNS: readonly { name: string; re: RegExp }[] = [
  { name: 'an issue number', re: /\bissues? #?\d+/gi },
  { name: 'a seed number', re: /\bseed #?0\d+/gi },
  { name: 'a date', re: /\b\d{4}-\d{2}-\d{2}\b/g },
];

/**
 * The dates that belong, as data rather than history: the price table's as-of date (the rate table
 * names the day its list prices were read: `as of 2024-11-01`, `"asOf": "2024-11-01"`, `asOf: '…'`);
 * Azure's API versions, which are dates by Azure's design (a REST `api-version=`, a storage service
 * version: `sv=` in a SAS, `x-ms-version`, the `STORAGE_API_VERSION` constant); a SAS's expiry
 * (`se=`) in a test's token; and everything between the bench's generated-report markers, which
 * `npm run bench -- --update` rewrites with its run's time. Each names the field that holds the date,
 * so a bare date in prose is still found.
 */
const ALLOWED: readonly RegExp[] = [
  /\bas of \d{4}-\d{2}-\d{2}\b/gi,
  /\basOf['"]?:\s*['"]\d{4}-\d{2}-\d{2}['"]/g,
  /\b(?:api-version|x-ms-version|sv|se)(?:=|['"\]]*\s*(?::|!==|===)\s*['"])\d{4}-\d{2}-\d{2}\b/g,
  /\b[A-Z_]*API_VERSION\s*=\s*'\d{4}-\d{2}-\d{2}'/g,
];
const GENERATED = /<!-- bench:begin -->[\s\S]*?<!-- bench:end -->/g;

function files(path: string): string[] {
  const full = join(ROOT, path);
  if (!statSync(full, { throwIfNoEntry: false })) return [];
  if (!statSync(full).isDirectory()) return [path];
  return readdirSync(full, { withFileTypes: true })
    .filter((e) => e.name !== 'node_modules' && !e.name.startsWith('.'))
    .flatMap((e) =>
      e.isDirectory() ? files(join(path, e.name)) : TEXT.test(e.name) ? [join(path, e.name)] : [],
    );
}

/** Every match in one text, as `file:line: what (matched text)`, the allowed parts blanked first. */
function historyIn(file: string, text: string): string[] {
  // Blank what is allowed, keeping its newlines so that line numbers stay right.
  const blank = (s: string) => s.replace(/[^\n]/g, ' ');
  let checked = text.replace(GENERATED, blank);
  for (const re of ALLOWED) checked = checked.replace(re, blank);
  const found: string[] = [];
  for (const { name, re } of PATTERNS) {
    for (const m of checked.matchAll(re)) {
      const line = checked.slice(0, m.index).split('\n').length;
      found.push(`${file}:${line}: ${name} (${m[0]})`);
    }
  }
  return found;
}

describe('the docs carry no history', () => {
  it('name no issue or seed number and no date, outside the dates that are data and the bench tables', () => {
    const scanned = SCANNED.flatMap(files).filter((f) => f !== SELF);
    expect(scanned).toContain('README.md');
    expect(scanned.filter((f) => f.startsWith('docs/')).length).toBeGreaterThan(0);
    const found = scanned.flatMap((f) => historyIn(f, readFileSync(join(ROOT, f), 'utf8')));
    expect(found).toEqual([]);
  });

  it('the check finds each kind, and leaves prices, Azure versions and the generated tables alone', () => {
    const text = [
      'Fixed in issue 28 and issues 29 and 30, see issue #31.',
      'As seed 002 called it.',
      'Measured 2026-11-27.',
      'Azure list prices, as of 2024-11-01; { "asOf": "2024-11-01" }; { asOf: \'2024-11-01\' }',
      "?api-version=2019-08-01, params['api-version'] !== '2019-08-01', sv=2025-01-05&se=2030-01-01",
      "{ sv: '2024-11-04' }; const STORAGE_API_VERSION = '2025-01-05';",
      'Moved to version 2025-01-05 as of the sv change.',
      '<!-- bench:begin -->',
      '## blob-cacher benchmark, 2026-11-27T08:32:35.269Z',
      '<!-- bench:end -->',
    ].join('\n');
    expect(historyIn('x.md', text)).toEqual([
      'x.md:1: an issue number (issue 28)',
      'x.md:1: an issue number (issues 29)',
      'x.md:1: an issue number (issue #31)',
      'x.md:2: a seed number (seed 002)',
      'x.md:3: a date (2026-11-27)',
      'x.md:7: a date (2025-01-05)',
    ]);
  });
});
