// Where a worker process starts: worker.js beside the built pool, or worker.ts when the pool itself
// runs from source (under vitest), so a test never forks stale build output.
import { existsSync } from 'node:fs';
import type { ResolveHookSync } from 'node:module';
import { fileURLToPath } from 'node:url';

/** src/ (or dist/): the hook leaves imports from anywhere else, node_modules above all, alone. */
const SOURCES = new URL('..', import.meta.url).href;

/**
 * Resolve hook for running src/ directly: sources import './x.js' (what tsc emits), so a relative
 * '.js' that does not exist is taken as the '.ts' beside it. Node compiles the TypeScript itself.
 */
export const resolveSource: ResolveHookSync = (specifier, context, nextResolve) => {
  if (specifier.startsWith('.') && specifier.endsWith('.js') && context.parentURL?.startsWith(SOURCES)
    && !existsSync(fileURLToPath(new URL(specifier, context.parentURL)))) {
    return nextResolve(`${specifier.slice(0, -3)}.ts`, context);
  }
  return nextResolve(specifier, context);
};

/**
 * A worker's young generation: 4 MiB semi-spaces instead of V8's default (16 MiB and more). A
 * worker's live heap is small (16 MiB after 50,000 uploads of 100 KiB) but its request garbage
 * grew the heap to ~290 MiB of RSS; with this, 180 MiB, at the same throughput (100 KiB PUTs, 256
 * MiB GETs from nginx, the SDK's downloadToBuffer: A/B in BENCHMARKS.md). Not a cap: the old
 * generation still grows as the live set needs. A flag the parent was given wins.
 */
const WORKER_V8_FLAGS = ['--max-semi-space-size=4'];

export function withWorkerFlags(execArgv: readonly string[]): string[] {
  const given = (flag: string) => execArgv.some((a) => a.split('=')[0]!.replace(/_/g, '-') === flag.split('=')[0]);
  return [...WORKER_V8_FLAGS.filter((f) => !given(f)), ...execArgv];
}

/**
 * The worker's script, and the Node flags to fork it with: ours (WORKER_V8_FLAGS), the parent's
 * own, and from source the hook (Node 24 strips the types itself; tsconfig's erasableSyntaxOnly
 * keeps src/ strippable).
 */
export function workerEntry(): { path: string; execArgv: string[] } {
  if (!import.meta.url.endsWith('.ts')) {
    return { path: fileURLToPath(new URL('./worker.js', import.meta.url)), execArgv: withWorkerFlags(process.execArgv) };
  }
  // Registered in the worker before worker.ts loads; a data: URL may import builtins and absolute URLs only.
  const register = `import { registerHooks } from 'node:module'; import { resolveSource } from ${JSON.stringify(import.meta.url)};`
    + ' registerHooks({ resolve: resolveSource });';
  return {
    path: fileURLToPath(new URL('./worker.ts', import.meta.url)),
    execArgv: [
      ...withWorkerFlags(process.execArgv),
      '--import', `data:text/javascript,${encodeURIComponent(register)}`,
    ],
  };
}
