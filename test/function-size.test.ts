// No function in src/ runs over 60 lines or 3,000 characters: every function, method and arrow is
// found by parsing each file (Node strips the types in place, so positions are the source's own)
// and measured from its first character to its last. No file is exempt.
import { readdirSync, readFileSync } from 'node:fs';
import { stripTypeScriptTypes } from 'node:module';
import { join, relative, resolve } from 'node:path';
import { parse, type Node } from 'acorn';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const MAX_LINES = 60;
const MAX_CHARS = 3_000;

const sources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );

/** Every node of the tree below `node`, depth first. */
function* nodes(node: unknown): Generator<Node> {
  if (Array.isArray(node)) for (const n of node) yield* nodes(n);
  else if (node && typeof node === 'object') {
    if (typeof (node as Node).type === 'string') yield node as Node;
    for (const v of Object.values(node)) if (v && typeof v === 'object') yield* nodes(v);
  }
}

interface Long {
  where: string;
  lines: number;
  chars: number;
}

function longFunctions(file: string): Long[] {
  const text = readFileSync(file, 'utf8');
  const js = stripTypeScriptTypes(text, { mode: 'strip' });
  const tree = parse(js, { ecmaVersion: 'latest', sourceType: 'module', locations: true });
  const seen = new Set<Node>();
  const out: Long[] = [];
  for (const n of nodes(tree)) {
    if (!n.type.includes('Function') || seen.has(n)) continue;
    seen.add(n);
    const lines = n.loc!.end.line - n.loc!.start.line + 1;
    const chars = n.end - n.start;
    if (lines > MAX_LINES || chars > MAX_CHARS) {
      out.push({ where: `${relative(root, file)}:${n.loc!.start.line}`, lines, chars });
    }
  }
  return out;
}

describe('function size in src/', () => {
  const all = sources(join(root, 'src')).map((f) => ({ file: relative(root, f), long: longFunctions(f) }));

  it(`no function over ${MAX_LINES} lines or ${MAX_CHARS} characters`, () => {
    expect(all.length).toBeGreaterThan(0);
    const over = all.flatMap((f) => f.long);
    expect(over.map((l) => `${l.where} (${l.lines} lines, ${l.chars} characters)`)).toEqual([]);
  });

  it('the parse finds functions of every form (declarations, arrows, methods)', () => {
    const js = 'function a() {}\nconst b = () => 1;\nclass C { m() {} }\nconst o = { p() {} };';
    const found = [...nodes(parse(js, { ecmaVersion: 'latest', sourceType: 'module' }))].filter((n) =>
      n.type.includes('Function'),
    );
    expect(found).toHaveLength(4);
  });
});
