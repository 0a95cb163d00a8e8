// node:http and node:https through require, not an ESM import: importing them as ESM evaluates every
// lazy export of node:http (WebSocket, EventSource, …), which loads Node's bundled undici, ~20-25 ms
// of every process's start (a bare `node -e 0` takes ~27 ms here). require() leaves them lazy.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
export const http = require('node:http') as typeof import('node:http');
export const https = require('node:https') as typeof import('node:https');
