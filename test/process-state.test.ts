// Process state lives behind one seam: a module-level `let` (or `var`) only in a process's entry
// file, which owns what its process holds. Everywhere else state is handed in (a worker's
// KeptBuffers, made once by workers/worker.ts, goes to each job and its kind), made once through
// startup/lazy.ts's `once`, or held by an object the module names; so what a call does depends on
// what it is given, not on which module ran first. swc parses each file: a `let` in a function is
// not at module level.
import { parseSync } from '@swc/core';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');

/** The files a process starts from: what they hold at module level is their process's. */
const ENTRIES = [
  'src/cli.ts',
  'src/download.ts',
  'src/upload.ts',
  'src/workers/worker.ts',
  'src/storage/azurite-process.ts',
];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

interface Declaration {
  type: string;
  kind?: string;
  span: { start: number };
  declaration?: Declaration;
  declarations?: { id: { type: string; value?: string } }[];
}

/** `let` and `var` declared at a module's top level (exported or not), as `name (kind)`. */
function moduleLevelMutables(code: string): string[] {
  const module = parseSync(code, { syntax: 'typescript', target: 'es2024' });
  return (module.body as unknown as Declaration[]).flatMap((node) => {
    const decl = node.type === 'ExportDeclaration' ? node.declaration! : node;
    if (decl.type !== 'VariableDeclaration' || decl.kind === 'const') return [];
    return (decl.declarations ?? []).map((d) => `${d.id.value ?? d.id.type} (${decl.kind})`);
  });
}

describe('process state', () => {
  it('the rule sees a module-level let or var, exported or not, and not one inside a function', () => {
    const code =
      'let a = 1;\nexport let b: number | undefined;\nvar c = 0;\nconst d = 2;\n' +
      'export function f() { let e = 3; return e; }\nclass G { h() { let i = 4; return i; } }\n';
    expect(moduleLevelMutables(code)).toEqual(['a (let)', 'b (let)', 'c (var)']);
  });

  it('names only entry files that exist', () => {
    const all = sources(join(ROOT, 'src')).map((f) => relative(ROOT, f));
    expect(ENTRIES.filter((e) => !all.includes(e))).toEqual([]);
  });

  it('no module-level let or var in src/ outside the process entry files', () => {
    const found = sources(join(ROOT, 'src'))
      .map((file) => relative(ROOT, file))
      .filter((file) => !ENTRIES.includes(file))
      .flatMap((file) =>
        moduleLevelMutables(readFileSync(join(ROOT, file), 'utf8')).map((m) => `${file}: ${m}`),
      );
    expect(found).toEqual([]);
  });
});
