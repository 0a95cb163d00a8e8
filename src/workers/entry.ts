// Where a worker process starts: worker.js beside the built pool, or worker.ts when the pool itself
// runs from source (under vitest), so a test never forks stale build output.
import { fileURLToPath } from 'node:url';

/**
 * A worker's young generation: 4 MiB semi-spaces instead of V8's default (16 MiB and more). A
 * worker's live heap is small but its request garbage grows the heap under the default; with this,
 * its RSS stays lower at the same throughput (each worker's peak RSS: bench cases 5 and 10). Not a
 * cap: the old generation still grows as the live set needs. A flag the parent was given wins.
 */
const WORKER_V8_FLAGS = ['--max-semi-space-size=4'];

export function withWorkerFlags(execArgv: readonly string[]): string[] {
  const given = (flag: string) =>
    execArgv.some((a) => a.split('=')[0]!.replace(/_/g, '-') === flag.split('=')[0]);
  return [...WORKER_V8_FLAGS.filter((f) => !given(f)), ...execArgv];
}

/**
 * The worker's script, and the Node flags to fork it with: ours (WORKER_V8_FLAGS), the parent's
 * own, and from source the hook (Node 24 strips the types itself; tsconfig's erasableSyntaxOnly
 * keeps src/ strippable).
 */
export function workerEntry(): { path: string; execArgv: string[] } {
  if (!import.meta.url.endsWith('.ts')) {
    return {
      path: fileURLToPath(new URL('./worker.js', import.meta.url)),
      execArgv: withWorkerFlags(process.execArgv),
    };
  }
  // Registered in the worker before worker.ts loads; a data: URL may import builtins and absolute URLs
  // only. The hook is storage/child-entry.ts's (the embedded Azurite's process starts the same way),
  // named by its URL: this module is read at every command's start, and a start from dist/ never
  // reads that one.
  const hook = new URL('../storage/child-entry.ts', import.meta.url).href;
  const register =
    `import { registerHooks } from 'node:module'; import { resolveSource } from ${JSON.stringify(hook)};` +
    ' registerHooks({ resolve: resolveSource });';
  return {
    path: fileURLToPath(new URL('./worker.ts', import.meta.url)),
    execArgv: [
      ...withWorkerFlags(process.execArgv),
      '--import',
      `data:text/javascript,${encodeURIComponent(register)}`,
    ],
  };
}
