// A target is one interface: what differs among a blob service, the embedded Azurite and a plain URL
// is declared in src/storage/ (the Target's methods, traitsOf's facts), so nothing outside it asks
// which target it holds. This parses every source file (swc: comments and strings that merely
// mention a tag are not tests) and finds each comparison of a `.kind` with 'url' or 'blob', and each
// switch over a `.kind` with such a case, outside the places that declare those tags.
import { parseSync } from '@swc/core';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const TAGS: ReadonlySet<string> = new Set(['url', 'blob']);

/** Where the tags are declared and may be tested: the targets, and the credentials that name them. */
const DECLARED_IN = ['src/storage/', 'src/vocabulary/credentials.ts'];

function* sources(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) yield* sources(path);
    else if (path.endsWith('.ts')) yield path;
  }
}

type Node = { type?: string; [key: string]: unknown };

const isKind = (n: unknown): boolean => {
  const m = n as Node | undefined;
  if (m?.type === 'OptionalChainingExpression') return isKind(m.base);
  return (
    m?.type === 'MemberExpression' &&
    (m.property as Node).type === 'Identifier' &&
    (m.property as { value: string }).value === 'kind'
  );
};
const isTag = (n: unknown): boolean => {
  const s = n as Node | undefined;
  return s?.type === 'StringLiteral' && TAGS.has(s.value as string);
};

/** Each test of a tag in a parsed module, as the tag it tests. */
function tagTests(node: unknown, out: string[]): string[] {
  if (Array.isArray(node)) {
    for (const n of node) tagTests(n, out);
    return out;
  }
  if (!node || typeof node !== 'object') return out;
  const n = node as Node;
  if (n.type === 'BinaryExpression' && ['===', '!==', '==', '!='].includes(n.operator as string)) {
    if (isKind(n.left) && isTag(n.right)) out.push(`.kind ${n.operator} '${(n.right as Node).value}'`);
    if (isKind(n.right) && isTag(n.left)) out.push(`'${(n.left as Node).value}' ${n.operator} .kind`);
  }
  if (n.type === 'SwitchStatement' && isKind(n.discriminant)) {
    for (const c of n.cases as Node[])
      if (isTag(c.test)) out.push(`switch (.kind) case '${(c.test as Node).value}'`);
  }
  for (const [key, value] of Object.entries(n)) if (key !== 'span') tagTests(value, out);
  return out;
}

function testsOutsideStorage(): string[] {
  const found: string[] = [];
  for (const path of sources(join(ROOT, 'src'))) {
    const file = relative(ROOT, path).split('\\').join('/');
    if (DECLARED_IN.some((d) => file.startsWith(d))) continue;
    const ast = parseSync(readFileSync(path, 'utf8'), { syntax: 'typescript' });
    for (const t of tagTests(ast, [])) found.push(`${file}: ${t}`);
  }
  return found;
}

/** The same search over one snippet, to show what it catches. */
const testsIn = (code: string) => tagTests(parseSync(code, { syntax: 'typescript' }), []);

describe('target kinds', () => {
  it("are tested nowhere outside src/storage/ (ask the target's traits or methods instead)", () => {
    // Where one is flagged: declare what differs as a trait (storage/target-info.ts) or a method of
    // Target (storage/target.ts) and ask it there.
    expect(testsOutsideStorage()).toEqual([]);
  });

  it('are found as comparisons either way round and as switch cases, and only on a .kind', () => {
    const code = [
      "if (job.target.kind === 'blob') a();",
      "const u = 'url' !== info.kind;",
      "const o = c?.kind === 'url';",
      "switch (t.kind) { case 'url': break; case 'other': break; }",
      "if (mode === 'url' || x.kind === 'key') b();",
    ].join('\n');
    expect(testsIn(code)).toEqual([
      ".kind === 'blob'",
      "'url' !== .kind",
      ".kind === 'url'",
      "switch (.kind) case 'url'",
    ]);
  });

  it('are still tested inside src/storage/, where they are declared', () => {
    const inStorage = [...sources(join(ROOT, 'src/storage'))].flatMap((p) =>
      tagTests(parseSync(readFileSync(p, 'utf8'), { syntax: 'typescript' }), []),
    );
    expect(inStorage.length).toBeGreaterThan(0);
  });
});
