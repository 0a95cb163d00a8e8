// What a process does at its first lines, in the one module every entry loads first (a start reads
// no second file for it): Node's compile cache, and the children started early (the first worker,
// the embedded Azurite) so that their starts overlap the coordinator's own set-up. The rest of
// start-up lives beside this file: builtins required on first use (lazy.ts); the bundles the
// entries start from are scripts/bundle.ts's, and test/startup-imports.test.ts holds a start to
// what it may load.
//
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

/**
 * A child started before it is needed, for the first user to take: one per kind of child and
 * process, held by the module that makes it (it is the process's, by its nature).
 */
export class EarlyStart<T> {
  private held?: T;
  /** Taken (or found unusable) by its user: a late start is none. */
  private taken = false;

  /** Starts it now with `make`, unless one is held or its user already came. */
  start(make: () => T): void {
    if (this.held !== undefined || this.taken) return;
    this.held = make();
  }

  /** The one started early, if any, for the first user; from here on, `start` starts none. */
  take(): T | undefined {
    const held = this.held;
    this.held = undefined;
    this.taken = true;
    return held;
  }
}
