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
 * The worker's script, and the Node flags to fork it with: the parent's own, and from source the hook
 * (Node 24 strips the types itself; tsconfig's erasableSyntaxOnly keeps src/ strippable).
 */
export function workerEntry(): { path: string; execArgv: string[] } {
  if (!import.meta.url.endsWith('.ts')) {
    return { path: fileURLToPath(new URL('./worker.js', import.meta.url)), execArgv: process.execArgv };
  }
  // Registered in the worker before worker.ts loads; a data: URL may import builtins and absolute URLs only.
  const register = `import { registerHooks } from 'node:module'; import { resolveSource } from ${JSON.stringify(import.meta.url)};`
    + ' registerHooks({ resolve: resolveSource });';
  return {
    path: fileURLToPath(new URL('./worker.ts', import.meta.url)),
    execArgv: [
      ...process.execArgv,
      '--import', `data:text/javascript,${encodeURIComponent(register)}`,
    ],
  };
}
