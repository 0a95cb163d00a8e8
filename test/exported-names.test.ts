// One declaration of each exported type name in src/: two modules exporting one name with two
// meanings (a CLI command and a results file's command name) make every import a guess at which
// is meant. A re-export (`export type { X } from`) is the same declaration, not a second one.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..', 'src');

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );

/** Name -> the files that declare it: `export type X`, `export interface X`, a class or an enum. */
function exportedTypeDeclarations(): Map<string, string[]> {
  const byName = new Map<string, string[]>();
  const declaration = /^export\s+(?:declare\s+)?(?:abstract\s+)?(?:type|interface|class|enum)\s+([\w$]+)/gm;
  for (const file of sources(SRC)) {
    for (const m of readFileSync(file, 'utf8').matchAll(declaration)) {
      byName.set(m[1]!, [...(byName.get(m[1]!) ?? []), relative(SRC, file)]);
    }
  }
  return byName;
}

describe('exported type names', () => {
  it('each is declared once in src/', () => {
    const twice = [...exportedTypeDeclarations()].filter(([, files]) => files.length > 1);
    expect(twice).toEqual([]);
  });

  it('the scan sees the declarations it is meant to', () => {
    const names = exportedTypeDeclarations();
    expect(names.get('RunRecord')).toEqual(['results/schema.ts']);
    expect(names.get('Verification')).toEqual(['results/record.ts']);
    expect(names.get('StopGrace')).toEqual(['engine/stop-grace.ts']);
    expect(names.size).toBeGreaterThan(100);
  });
});
