// A contender is a declaration: everything the rest of the tool knows about it is read from its
// strategy file, so nothing outside src/strategies/ may name one. This scans every source file's
// string literals (swc's parse: comments and identifiers are not literals) for the registry's names,
// and checks that the declarations agree with the kinds they name.
import { parseSync } from '@swc/core';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadKind } from '../src/kinds/index.js';
import { DOWNLOAD_STRATEGIES, strategyNamed, UPLOAD_STRATEGIES } from '../src/strategies/index.js';

const ROOT = resolve(import.meta.dirname, '..');
const NAMES: ReadonlySet<string> = new Set([...DOWNLOAD_STRATEGIES, ...UPLOAD_STRATEGIES].map((s) => s.name));

/** Where `head` and `list` are operations of a recorded log that `replay` sends. */
const REPLAY_FILES = ['src/plan/replay.ts', 'src/config/replay-log.ts', 'src/storage/replay-requests.ts'];

/**
 * Words that name a contender and something else too, and where they mean the other thing (a path
 * prefix under src/). A literal there is that other word; anywhere else it is a contender's name.
 */
const OTHER_MEANINGS: readonly { word: string; means: string; where: readonly string[] }[] = [
  {
    word: 'list',
    means:
      "the List Blobs kind of request, the listing workload, a billing class, comp=list, a mix's operation",
    where: [
      'src/kinds/',
      'src/plan/workload.ts',
      'src/verify/',
      'src/analysis/cost.ts',
      'src/analysis/prices.ts',
      // The billing classes' columns of the ranked table.
      'src/analysis/ranked-table.ts',
      'src/storage/list-blobs.ts',
      'src/plan/mix.ts',
      'src/config/mix.ts',
      'src/analysis/mix.ts',
      ...REPLAY_FILES,
    ],
  },
  {
    word: 'head',
    means: "the HEAD kind of request, the HEAD workload and its tally, a mix's or a replay's operation",
    where: [
      'src/kinds/',
      'src/verify/',
      'src/plan/workload.ts',
      'src/metrics/record-checks.ts',
      'src/plan/mix.ts',
      'src/engine/replay.ts',
      ...REPLAY_FILES,
    ],
  },
  { word: 'sdk-list', means: "the SDK's listing kind of request", where: ['src/kinds/'] },
  { word: 'sdk-head', means: "the SDK's getProperties kind of request", where: ['src/kinds/'] },
  { word: 'chunked', means: "HTTP's Transfer-Encoding: chunked", where: ['src/transport/http1.ts'] },
];

function* sources(dir: string): Generator<string> {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) yield* sources(path);
    else if (path.endsWith('.ts')) yield path;
  }
}

/** Every string literal of a parsed module: quoted strings, literal types, templates without `${}`. */
function literals(node: unknown, out: string[]): string[] {
  if (Array.isArray(node)) {
    for (const n of node) literals(n, out);
  } else if (node && typeof node === 'object') {
    const n = node as { type?: string; value?: unknown; quasis?: { cooked?: string }[] };
    if (n.type === 'StringLiteral' && typeof n.value === 'string') out.push(n.value);
    const only = n.type === 'TemplateLiteral' && n.quasis?.length === 1 ? n.quasis[0]!.cooked : undefined;
    if (only !== undefined) out.push(only);
    for (const [key, value] of Object.entries(node)) if (key !== 'span') literals(value, out);
  }
  return out;
}

/** Each file outside src/strategies/ with the contender names among its string literals. */
function namesOutsideStrategies(): { file: string; word: string }[] {
  const found: { file: string; word: string }[] = [];
  for (const path of sources(join(ROOT, 'src'))) {
    const file = relative(ROOT, path).split('\\').join('/');
    if (file.startsWith('src/strategies/')) continue;
    const ast = parseSync(readFileSync(path, 'utf8'), { syntax: 'typescript' });
    for (const word of new Set(literals(ast, []).filter((l) => NAMES.has(l)))) found.push({ file, word });
  }
  return found;
}

const otherMeaning = (f: { file: string; word: string }) =>
  OTHER_MEANINGS.some((m) => m.word === f.word && m.where.some((w) => f.file.startsWith(w)));

describe('contender names', () => {
  const found = namesOutsideStrategies();

  it('appear as string literals nowhere outside src/strategies/ (read a declaration instead)', () => {
    // Where one is flagged: declare the fact in the strategy's file and read it from the registry
    // (strategies/index.ts); where the word means something else there, add it to OTHER_MEANINGS.
    expect(found.filter((f) => !otherMeaning(f)).map((f) => `${f.file}: '${f.word}'`)).toEqual([]);
    expect(NAMES.size).toBeGreaterThan(10);
  });

  it('leave OTHER_MEANINGS no stale entry: each place it names still uses the word', () => {
    const used = (word: string, where: string) =>
      found.some((f) => f.word === word && f.file.startsWith(where));
    const stale = OTHER_MEANINGS.flatMap((m) =>
      m.where.filter((w) => !used(m.word, w)).map((w) => `${m.word} @ ${w}`),
    );
    expect(stale).toEqual([]);
  });

  it('are each one contender per direction; a name in both directions is found by its direction', () => {
    for (const list of [DOWNLOAD_STRATEGIES, UPLOAD_STRATEGIES]) {
      expect(new Set(list.map((s) => s.name)).size).toBe(list.length);
    }
    const both = DOWNLOAD_STRATEGIES.map((s) => s.name).filter((n) =>
      UPLOAD_STRATEGIES.some((u) => u.name === n),
    );
    expect(both).toEqual(['small-files', 'sdk-small-files']);
    for (const name of both) {
      expect(strategyNamed('download', name)).toBe(DOWNLOAD_STRATEGIES.find((s) => s.name === name));
      expect(strategyNamed('upload', name)).toBe(UPLOAD_STRATEGIES.find((s) => s.name === name));
      // An old results file's run carries its name alone: its legacy unit cannot depend on the direction.
      expect(strategyNamed('download', name)!.legacyUnit).toBe(strategyNamed('upload', name)!.legacyUnit);
    }
  });
});

describe('contender declarations', () => {
  it('writesSink says what the kind it names does', async () => {
    for (const s of DOWNLOAD_STRATEGIES) {
      expect(s.writesSink, s.name).toBe((await loadKind(s.kind)).writesSink === true);
    }
  });

  it('hedgeable only where every item is one request through our transport', async () => {
    for (const s of DOWNLOAD_STRATEGIES.filter((d) => d.hedgeable)) {
      const kind = await loadKind(s.kind);
      expect([s.name, kind.transport, kind.writesSink]).toEqual([s.name, true, true]);
    }
  });

  it('requests per run follow from the input, and each is billed as one class', () => {
    const input = {
      objectSizeBytes: 8 << 20,
      concurrency: 4,
      fileCount: 100,
      pageSize: 30,
      blobSizeBytes: 8 << 20,
      blockSizeBytes: 1 << 20,
    };
    const counts = Object.fromEntries([
      ...DOWNLOAD_STRATEGIES.map((s) => [s.name, s.requests(input)]),
      ...UPLOAD_STRATEGIES.map((s) => [`${s.name} up`, s.requests(input)]),
    ]);
    expect(counts).toMatchObject({
      single: { count: 1, billedAs: 'read' },
      chunked: { count: 4, billedAs: 'read' },
      list: { count: 4, billedAs: 'list' },
      head: { count: 100, billedAs: 'other' },
      'small-files': { count: 100, billedAs: 'read' },
      'small-files up': { count: 100, billedAs: 'write' },
      'blocks up': { count: 9, billedAs: 'write' },
    });
  });
});
