// vitest's globalSetup: builds dist/ once before any test file, for the tests that spawn the CLI as a
// user runs it (node dist/cli.js), so that none of them depends on an earlier manual build or a stale
// one. Everything else, the engine and the workers it forks included, runs from src/.
import { execFileSync } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

export default function build(): void {
  const root = resolve(import.meta.dirname, '../..');
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  try {
    execFileSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: root, stdio: 'pipe' });
  } catch (err) {
    const { stdout = '', stderr = '' } = err as { stdout?: Buffer; stderr?: Buffer };
    throw new Error(`tsc -p tsconfig.json failed:\n${String(stdout)}${String(stderr)}`);
  }
  // As `npm run build` does (scripts/bundle.ts): the entries run by their shebang are executable
  // (tsc writes 0644; `npx blob-cacher` in a clone runs dist/cli.js itself).
  for (const entry of ['cli.js', 'download.js', 'upload.js']) chmodSync(join(root, 'dist', entry), 0o755);
  // The suite forks hundreds of worker processes from src/: with Node's compile cache each strips
  // and compiles its modules once, not once per process. Inherited by vitest's forks and their children.
  process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), 'blob-cacher-test-compile-cache');
}
