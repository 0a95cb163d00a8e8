// What the tree writes once: the median (analysis/stats.ts, which bench/ imports too), the byte
// formatter (vocabulary/sizes.ts) and the duration formatter (vocabulary/durations.ts). A second copy
// drifts: the medians' intervals already answered differently below six values, and two byte
// formatters printed one size two ways.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : /\.(ts|mjs)$/.test(e.name) ? [join(dir, e.name)] : [],
  );

const files = [...sources(join(ROOT, 'src')), ...sources(join(ROOT, 'bench'))].map((f) => ({
  file: relative(ROOT, f),
  text: readFileSync(f, 'utf8'),
}));

/** The file of every match of `pattern` (global, multiline) in src/ and bench/, once per match. */
const where = (pattern: RegExp) =>
  files.flatMap(({ file, text }) => [...text.matchAll(pattern)].map(() => file));

/** A function, or a function-valued const, bound to one of these names. */
function defines(names: string, argument = ''): RegExp {
  const fn = `(?:async\\s+)?function\\s+(?:${names})\\s*\\(${argument}`;
  const value = `(?:async\\s*)?(?:function\\b|\\(${argument}[^)]*\\)[^=]*=>|\\w+\\s*=>)`;
  const arrow = `(?:const|let|var)\\s+(?:${names})\\s*=\\s*${value}`;
  return new RegExp(`^\\s*(?:export\\s+)?(?:${fn}|${arrow})`, 'gm');
}

describe('written once in src/ and bench/', () => {
  it('one median: a function named median, and no inline middle-of-sorted-values elsewhere', () => {
    expect(where(defines('median'))).toEqual(['src/analysis/stats.ts']);
    expect(where(/\[mid\s*-\s*1\]/g)).toEqual(['src/analysis/stats.ts']);
  });

  it('one byte formatter: the binary units are listed in vocabulary/sizes.ts alone', () => {
    expect(where(defines('formatBytes|bytes|formatSize|humanBytes'))).toEqual(['src/vocabulary/sizes.ts']);
    // formatBytes, and formatSizeExact's bound as the user would type it back.
    expect(where(/\[\s*'B',\s*'KiB',\s*'MiB'/g)).toEqual([
      'src/vocabulary/sizes.ts',
      'src/vocabulary/sizes.ts',
    ]);
  });

  it('one duration formatter for people, beside the exact one --help writes for the parser', () => {
    // Functions of a number of milliseconds: progress's `seconds = () =>` is a clock, not a formatter.
    const ofMs = '\\s*\\w+\\s*:\\s*number';
    const formatters = where(defines('seconds|formatSeconds|formatDuration\\w*|formatMs', ofMs));
    expect(formatters).toEqual(['src/vocabulary/durations.ts', 'src/vocabulary/durations.ts']);
  });

  it('the statistics library imports nothing, so bench/ runs it from source', () => {
    expect(where(/^import\s/gm).filter((file) => file === 'src/analysis/stats.ts')).toEqual([]);
    expect(where(/from '\.\.\/\.\.\/src\/analysis\/stats\.ts'/g).length).toBeGreaterThan(3);
  });
});
