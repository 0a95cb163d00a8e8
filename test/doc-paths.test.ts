// Every file ARCHITECTURE.md and docs/ name exists: a path in backquotes (`engine/job.ts`,
// `src/storage/target-info.ts`, `test/helpers/config.ts`) is read from src/ when its first folder is
// one of src/'s, from the repository root otherwise. A moved or deleted file shows here instead of
// leaving the map pointing at nothing. Diff blocks are left out: they show files that do not exist.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const DOCS = ['ARCHITECTURE.md', ...readdirSync(join(root, 'docs')).map((f) => `docs/${f}`)].filter((f) =>
  f.endsWith('.md'),
);
const SRC_FOLDERS = new Set(
  readdirSync(join(root, 'src'), { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name),
);
const ROOT_FOLDERS = ['src', 'test', 'bench', 'scripts', 'docs'];

/** The text outside ```diff blocks. */
const withoutDiffs = (text: string): string => text.replace(/```diff\n[\s\S]*?\n```/g, '');

/** Paths of source files named in a document: `folder/.../file.ts` (or .js, .cjs, .md). */
function namedPaths(text: string): string[] {
  const found = withoutDiffs(text).matchAll(/\b((?:[a-z][\w-]*\/)+[\w.-]+\.(?:ts|js|cjs|md))\b/g);
  return [...new Set([...found].map((m) => m[1]!))];
}

/** Where a named path is: src/ for a folder of src/, the repository root for the top folders. */
function located(path: string): string | undefined {
  const first = path.split('/')[0]!;
  if (ROOT_FOLDERS.includes(first)) return path;
  if (SRC_FOLDERS.has(first)) return `src/${path}`;
  return undefined;
}

describe('paths named in ARCHITECTURE.md and docs/', () => {
  const named = DOCS.flatMap((doc) =>
    namedPaths(readFileSync(join(root, doc), 'utf8')).map((path) => ({ doc, path, at: located(path) })),
  );

  it('reads a path of every document it checks', () => {
    expect(named.filter((n) => n.doc === 'ARCHITECTURE.md').length).toBeGreaterThan(50);
    expect(named.some((n) => n.path.startsWith('src/'))).toBe(true);
  });

  it('names only files that exist', () => {
    const missing = named.filter((n) => n.at !== undefined && !existsSync(join(root, n.at)));
    expect(missing.map((n) => `${n.doc}: ${n.path}`)).toEqual([]);
  });
});
