// node:http and node:https through require, not an ESM import, and only when first asked for: an
// ESM import evaluates every lazy export of node:http (WebSocket, EventSource, …), which loads
// Node's bundled undici (~20-25 ms of a start; a bare `node -e 0` takes ~27 ms here), and a bundle
// hoists the import to its top even from a lazily imported module. A worker on the raw client (the
// default) never loads either: node:http, its server half, node:https and node:tls were ~10 ms of
// each worker's start (BENCHMARKS.md, "Start-up").
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
let httpModule: typeof import('node:http') | undefined;
let httpsModule: typeof import('node:https') | undefined;
export const nodeHttp = (): typeof import('node:http') => (httpModule ??= require('node:http') as typeof import('node:http'));
export const nodeHttps = (): typeof import('node:https') => (httpsModule ??= require('node:https') as typeof import('node:https'));
let tlsModule: typeof import('node:tls') | undefined;
export const nodeTls = (): typeof import('node:tls') => (tlsModule ??= require('node:tls') as typeof import('node:tls'));
