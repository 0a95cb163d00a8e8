// Node's module compile cache (Node 22.1+): V8's code for each module, kept on disk between starts,
// so a start reads compiled code instead of compiling the bundle and the npm packages
// again. Node's own default place (<tmpdir>/node-compile-cache); NODE_COMPILE_CACHE=<dir> moves it
// and NODE_DISABLE_COMPILE_CACHE=1 turns it off, as for any Node program.
import module from 'node:module';

/**
 * Turns the cache on for this process's later imports, and for the workers it forks: they inherit
 * NODE_COMPILE_CACHE, so their entry is cached too. Where it cannot be used (a read-only tmpdir) the
 * start is as before.
 */
export function useCompileCache(env: NodeJS.ProcessEnv = process.env): void {
  const enabled = module.enableCompileCache?.();
  if (
    enabled?.directory &&
    env.NODE_COMPILE_CACHE === undefined &&
    env.NODE_DISABLE_COMPILE_CACHE === undefined
  )
    env.NODE_COMPILE_CACHE = enabled.directory;
}
