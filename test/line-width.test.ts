// No line of code in src/, test/, bench/ or scripts/ runs over 120 characters: a reader sees a line
// whole in a side-by-side diff. The formatter wraps code at 110; strings and comments it cannot
// wrap are split by hand. No file is exempt.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const MAX = 120;
const FOLDERS = ['src', 'test', 'bench', 'scripts'];

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.name === 'golden'
      ? []
      : e.isDirectory()
        ? sources(join(dir, e.name))
        : e.name.endsWith('.ts')
          ? [join(dir, e.name)]
          : [],
  );

describe('line width', () => {
  const all = FOLDERS.flatMap((d) => sources(join(root, d))).map((f) => ({
    file: relative(root, f),
    long: readFileSync(f, 'utf8')
      .split('\n')
      .flatMap((l, i) => (l.length > MAX ? [i + 1] : [])),
  }));

  it(`no line over ${MAX} characters`, () => {
    expect(all.length).toBeGreaterThan(0);
    const over = all.filter((f) => f.long.length);
    expect(over.map((f) => `${f.file}: lines ${f.long.join(', ')}`)).toEqual([]);
  });
});
