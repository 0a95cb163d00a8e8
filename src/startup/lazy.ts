// node:http and node:https through require, not an ESM import, and only when first asked for: an
// ESM import evaluates every lazy export of node:http (WebSocket, EventSource, …), which loads
// Node's bundled undici (close to a bare Node start's own cost), and a bundle hoists the import to
// its top even from a lazily imported module. A worker on the raw client (the default) never loads
// either: node:http, its server half, node:https and node:tls are a visible share of each worker's
// start (bench case 8 breaks a start down by module). node:fs/promises likewise where only a file
// sink or a scratch directory needs it: a worker on the memory sink never loads it (nor the readline
// and watcher internals it brings). And node:crypto (its ~17 internal modules), where a hash, a
// signature, a fixture's bytes or a random name is first made: `report`, `compare` and a discard
// sink's worker make none.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/**
 * `make`'s answer, made the first time the returned function is called and the same ever after;
 * `loaded` says whether it was made. What a process loads or makes lazily is held here, in the
 * closure, not in a module variable of its user: it is made once, whichever caller comes first.
 */
export function once<T>(make: () => T): (() => T) & { loaded(): boolean } {
  let made: { value: T } | undefined;
  return Object.assign(() => (made ??= { value: make() }).value, { loaded: () => made !== undefined });
}

/** A builtin module, required the first time the returned function is called. */
const onFirstUse = <T>(id: string) => once(() => require(id) as T);

export const nodeHttp = onFirstUse<typeof import('node:http')>('node:http');
export const nodeHttps = onFirstUse<typeof import('node:https')>('node:https');
export const nodeTls = onFirstUse<typeof import('node:tls')>('node:tls');
export const nodeFsPromises = onFirstUse<typeof import('node:fs/promises')>('node:fs/promises');
export const nodeZlib = onFirstUse<typeof import('node:zlib')>('node:zlib');
/**
 * `nodeCrypto.loaded()`: whether this process has loaded it (payload/md5.ts hashes small inputs itself until
 * then).
 */
export const nodeCrypto = onFirstUse<typeof import('node:crypto')>('node:crypto');
