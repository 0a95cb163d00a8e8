// The layer rule of the report model, checked on the sources: renderers import only types from
// analysis/ (analysis runs once, into the Report); results/ and analysis/ never import report/;
// results/ never imports analysis/. So there is no cycle among the three.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..', 'src');

/** Every import or re-export of a module, with whether it is type-only. */
function importsOf(folder: string): { file: string; from: string; typeOnly: boolean }[] {
  return readdirSync(join(SRC, folder))
    .filter((f) => f.endsWith('.ts'))
    .flatMap((file) => {
      const text = readFileSync(join(SRC, folder, file), 'utf8');
      // Static imports and exports, and dynamic import('...') calls.
      const statics = [...text.matchAll(/^(import|export)\s+(type\s+)?[^;]*?from\s+'([^']+)'/gms)].map(
        (m) => ({ file, from: m[3]!, typeOnly: m[2] !== undefined }),
      );
      const dynamics = [...text.matchAll(/import\('([^']+)'\)/g)].map((m) => ({
        file,
        from: m[1]!,
        typeOnly: false,
      }));
      return [...statics, ...dynamics];
    });
}

describe('report layers', () => {
  it('a renderer imports nothing but types from analysis/', () => {
    const values = importsOf('report').filter((i) => i.from.startsWith('../analysis/') && !i.typeOnly);
    expect(values).toEqual([]);
    // The check sees the imports it is meant to: the renderers do use the model's types.
    expect(importsOf('report').some((i) => i.from === '../analysis/report-model.js' && i.typeOnly)).toBe(
      true,
    );
  });

  it('analysis/ and results/ never import report/; results/ never imports analysis/', () => {
    expect(importsOf('analysis').filter((i) => i.from.startsWith('../report/'))).toEqual([]);
    expect(
      importsOf('results').filter(
        (i) => i.from.startsWith('../report/') || i.from.startsWith('../analysis/'),
      ),
    ).toEqual([]);
  });
});
