// Where a worker process starts: worker.js beside the built pool, or worker.ts when the pool itself
// runs from source (under vitest), so a test never forks stale build output.
import { childEntry } from '../storage/child-entry.js';

export { resolveSource } from '../storage/child-entry.js';

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
  return childEntry(new URL('./worker.js', import.meta.url), import.meta.url.endsWith('.ts'), withWorkerFlags(process.execArgv));
}
