// ARCHITECTURE.md says a contender is one strategy file and one registry line. This applies the diff
// that its "Adding a contender" section shows to a copy of src/, type-checks the copy, and runs the
// copy's CLI from source (Node strips the types; the hook maps './x.js' to './x.ts', as the workers
// run under vitest): the new, hedgeable contender with its own request count must reach --help,
// config validation, --hedge, the cost estimate, a run on the embedded Azurite, the recommendation
// and every report format, with no other edit.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { ONE_RUN } from './helpers/cli-env.js';
import { freshDirs } from './helpers/temp-dirs.js';

const ROOT = resolve(import.meta.dirname, '..');
const fresh = freshDirs('blob-cacher-contender-');

/** The ```diff block of ARCHITECTURE.md's "Adding a contender" section, as written there. */
function documentedDiff(): string {
  const md = readFileSync(join(ROOT, 'ARCHITECTURE.md'), 'utf8');
  const start = md.indexOf('## Adding a contender');
  const section = md.slice(start, md.indexOf('\n## ', start + 1));
  const block = /```diff\n([\s\S]*?\n)```/.exec(section);
  if (start < 0 || !block) throw new Error('ARCHITECTURE.md: no ```diff under "## Adding a contender"');
  return block[1]!;
}

let tree = '';
let work = '';

/** Node on the copy's sources, bounded: the hook maps './x.js' to the './x.ts' beside it. */
function node(args: readonly string[], env: Record<string, string> = {}) {
  const src = pathToFileURL(join(tree, 'src', 'storage', 'child-entry.ts')).href;
  const hook =
    "import { registerHooks } from 'node:module';" +
    ` import { resolveSource } from ${JSON.stringify(src)}; registerHooks({ resolve: resolveSource });`;
  const hooked = ['--import', `data:text/javascript,${encodeURIComponent(hook)}`];
  const r = spawnSync(process.execPath, [...hooked, ...args], {
    cwd: work,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...ONE_RUN, PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** The copy's CLI. */
const cli = (args: readonly string[]) => node([join(tree, 'src', 'cli.ts'), ...args]);

beforeAll(async () => {
  tree = await fresh();
  work = join(tree, 'work');
  mkdirSync(work);
  cpSync(join(ROOT, 'src'), join(tree, 'src'), { recursive: true });
  for (const f of ['package.json', 'tsconfig.json']) cpSync(join(ROOT, f), join(tree, f));
  symlinkSync(realpathSync(join(ROOT, 'node_modules')), join(tree, 'node_modules'));
  writeFileSync(join(tree, 'contender.diff'), documentedDiff());
  execFileSync('git', ['apply', 'contender.diff'], { cwd: tree, stdio: 'pipe' });
}, 60_000);

describe('the diff of ARCHITECTURE.md "Adding a contender", applied to a copy of the tree', () => {
  it('adds one strategy file and changes only the registry', () => {
    const files = [...documentedDiff().matchAll(/^\+\+\+ b\/(\S+)$/gm)].map((m) => m[1]);
    expect(files).toEqual(['src/strategies/download/halves.ts', 'src/strategies/index.ts']);
    expect(documentedDiff()).toMatch(/^--- \/dev\/null\n\+\+\+ b\/src\/strategies\/download\/halves\.ts$/m);
  });

  it('type-checks', () => {
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const args = [tsc, '-p', 'tsconfig.json', '--noEmit'];
    expect(() => execFileSync(process.execPath, args, { cwd: tree, stdio: 'pipe' })).not.toThrow();
  }, 60_000);

  it('--help lists it among the strategies and among those --hedge applies to', () => {
    const help = cli(['download', '--help']);
    expect(help.code).toBe(0);
    const text = help.stdout.replace(/\s+/g, ' ');
    expect(text).toMatch(/\(single, chunked, halves, round-robin, assemble, sdk, small-files,/);
    expect(text).toMatch(/--hedge <delay\|pNN> chunked, halves, round-robin, small-files: a request still/);
  });

  it('config validation takes it, with --hedge, and names it where --hedge is refused', () => {
    const refused = cli(['download', '--source-method', 'halves,sdk', '--hedge', 'p90']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      '--hedge duplicates slow GETs of chunked, halves, round-robin, small-files; --source-method sdk cannot',
    );
    const unknown = cli(['download', '--source-method', 'halve']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/single, chunked, halves, round-robin/);
  });

  it('the cost estimate counts its own requests: two reads a run, whatever --concurrency', () => {
    const url = (path: string) => JSON.stringify(pathToFileURL(join(tree, path)).href);
    const env = {
      SOURCE_METHOD: 'halves',
      FILE_SIZE: '1MiB',
      CONCURRENCY: '8',
      BLOB_CACHER_RUNS: '3',
      BLOB_CACHER_WARMUP: '1',
    };
    const script =
      `const { loadDownloadConfig } = await import(${url('src/config/load.ts')});` +
      ` const { sessionEstimate } = await import(${url('src/cli/output.ts')});` +
      ` const config = loadDownloadConfig({}, { env: ${JSON.stringify(env)} });` +
      ' console.log(await sessionEstimate("download", config, 1));';
    const r = node(['--input-type=module', '-e', script]);
    expect(r.stderr).toBe('');
    // 4 runs (3 and a warm-up) x 2 ranged GETs; counted as ranges by --concurrency it would be 32.
    expect(r.stdout).toMatch(/^estimate for this session: 8 reads, 0 writes, 0 list and 0 other operations/);
  });

  it('runs hedged on the embedded Azurite, and the recommendation and every report format name it', () => {
    const run = cli([
      'download',
      '--source-method',
      'halves',
      '--file-size',
      '1MiB',
      '--hedge',
      '1ms',
      '--runs',
      '2',
      '--results',
      'r.json',
    ]);
    expect(run.stderr + run.stdout).not.toMatch(/Error|error:/);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^1\s+halves\s/m);
    expect(run.stdout).toContain('Recommended: halves');
    type Run = { strategy: string; requests: number; hedge?: object };
    const results = JSON.parse(readFileSync(join(work, 'r.json'), 'utf8')) as { runs: Run[] };
    expect(results.runs.map((r) => [r.strategy, r.requests, r.hedge !== undefined])).toEqual([
      ['halves', 2, true],
      ['halves', 2, true],
    ]);
    const report = (format: string) => cli(['report', 'r.json', '--format', format]);
    type Json = { contenders: { label: string; hedge?: object }[]; recommendation: { strategy: string } };
    const json = JSON.parse(report('json').stdout) as Json;
    expect([
      json.contenders.map((c) => [c.label, c.hedge !== undefined]),
      json.recommendation.strategy,
    ]).toEqual([[['halves', true]], 'halves']);
    for (const format of ['console', 'md', 'csv', 'html', 'junit']) {
      const r = report(format);
      expect([format, r.code, r.stdout.includes('halves')]).toEqual([format, 0, true]);
    }
  }, 120_000);
});
