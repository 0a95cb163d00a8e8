// Where the embedded Azurite's process starts: its script beside the built module that forks it, or
// its .ts when that module itself runs from source (under vitest), so a test never forks stale build
// output. Its resolve hook is the workers' too: workers/entry.ts names it by URL for a worker run
// from source, rather than importing it at every command's start.
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
  if (
    specifier.startsWith('.') &&
    specifier.endsWith('.js') &&
    context.parentURL?.startsWith(SOURCES) &&
    !existsSync(fileURLToPath(new URL(specifier, context.parentURL)))
  ) {
    return nextResolve(`${specifier.slice(0, -3)}.ts`, context);
  }
  return nextResolve(specifier, context);
};

/**
 * The script `script` (a '.js' URL beside the module forking it) and the Node flags to fork it with:
 * `execArgv`, and from source the .ts with the hook (Node 24 strips the types itself; tsconfig's
 * erasableSyntaxOnly keeps src/ strippable).
 */
export function childEntry(
  script: URL,
  fromSource: boolean,
  execArgv: readonly string[],
): { path: string; execArgv: string[] } {
  if (!fromSource) return { path: fileURLToPath(script), execArgv: [...execArgv] };
  // Registered in the child before its script loads; a data: URL may import builtins and absolute URLs only.
  const register =
    "import { registerHooks } from 'node:module';" +
    ` import { resolveSource } from ${JSON.stringify(import.meta.url)};` +
    ' registerHooks({ resolve: resolveSource });';
  return {
    path: fileURLToPath(new URL(script.href.replace(/\.js$/, '.ts'))),
    execArgv: [...execArgv, '--import', `data:text/javascript,${encodeURIComponent(register)}`],
  };
}
