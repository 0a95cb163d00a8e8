// Timing against ground truth: a server that holds the first byte for a known delay and paces the
// body at a known rate. The engine's reported firstByte and download must match what was injected,
// within tolerances that allow for a loaded 2-core machine, and phases must add up to the total.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DownloadConfig } from '../src/config/load.js';
import type { HttpClientName } from '../src/config/options.js';
import { runDownload } from '../src/engine/download.js';
import { setLogLevel } from '../src/log/logger.js';
import { close, deterministicBuffer, listen } from './helpers/http-servers.js';
import { testConfig } from './helpers/config.js';
import { runFailed } from '../src/results/schema.js';

const HOLD_MS = 50;
const CHUNK_BYTES = 64 * 1024;
const CHUNKS = 10;
const PACE_MS = 25; // one chunk every 25 ms after the first: 9 gaps = 225 ms of body
const SIZE = CHUNK_BYTES * CHUNKS;
const body = deterministicBuffer(SIZE);
let server: http.Server;
let url: string;

beforeAll(async () => {
  setLogLevel('error');
  server = http.createServer((req, res) => {
    if (req.method === 'HEAD') {
      res.writeHead(200, { 'content-length': SIZE });
      return res.end();
    }
    setTimeout(() => {
      res.writeHead(200, { 'content-length': SIZE });
      res.flushHeaders();
      let i = 0;
      const send = () => {
        res.write(body.subarray(i * CHUNK_BYTES, (i + 1) * CHUNK_BYTES));
        i++;
        if (i === CHUNKS) res.end();
        else setTimeout(send, PACE_MS);
      };
      send();
    }, HOLD_MS);
  });
  url = `${await listen(server)}/paced`;
});
afterAll(() => close(server));

const config = (trace: boolean, httpClient: HttpClientName): DownloadConfig =>
  testConfig('download', {
    logLevel: 'error',
    sourceMethod: 'single',
    concurrency: 1,
    fileSizeBytes: 0,
    processes: 1,
    maxSockets: 1,
    sink: 'discard',
    bufferSizeBytes: 64 * 1024,
    httpClient,
    container: 'unused',
    cleanup: false,
    credentials: { kind: 'url', url },
    runs: 3,
    warmup: 0,
    format: 'console',
    maxRetries: 0,
    timeoutMs: 5000,
    trace,
  });

// Both GET clients: ours (raw, the default) and node:http.
describe.each(['raw', 'node'] as const)('reported phases against injected delays (%s client)', (client) => {
  it(
    'firstByte matches the held first byte, download the paced body, and phases ' + 'sum to the total',
    async () => {
      const run = await runDownload(config(true, client));
      expect(run.results).toHaveLength(3);
      for (const r of run.results) {
        expect(runFailed(r)).toBe(false);
        expect(r.notVerified).toMatch(/plain URL/);
        const rec = r.records.at(0)!;
        const injectedBodyMs = (CHUNKS - 1) * PACE_MS;
        // Timers fire no earlier than asked; the upper slack absorbs scheduling on a busy machine.
        expect(rec.phases.firstByte!).toBeGreaterThanOrEqual(HOLD_MS - 2);
        expect(rec.phases.firstByte!).toBeLessThan(HOLD_MS + 40);
        expect(rec.phases.download!).toBeGreaterThanOrEqual(injectedBodyMs - 5);
        expect(rec.phases.download!).toBeLessThan(injectedBodyMs + 80);
        // The body rate we report is the injected pace, within the same slack. The first chunk leaves
        // with the head, so the paced part is what came after it: 9 chunks over 9 gaps.
        const reportedRateBps = (rec.bytes - CHUNK_BYTES) / (rec.phases.download! / 1000);
        const injectedRateBps = (SIZE - CHUNK_BYTES) / (injectedBodyMs / 1000);
        expect(reportedRateBps / injectedRateBps).toBeGreaterThan(0.7);
        expect(reportedRateBps / injectedRateBps).toBeLessThan(1.03);
        const sum = Object.values(rec.phases).reduce((a, b) => a + b, 0);
        expect(Math.abs(sum - rec.totalMs)).toBeLessThan(0.01);
        // The strategy's duration holds the request: nothing is lost between the two clocks.
        expect(r.wallMs).toBeGreaterThanOrEqual(rec.totalMs - 0.5);
        expect(r.wallMs - rec.totalMs).toBeLessThan(20);
      }
    },
  );

  it('with tracing off the total still covers hold + body (plus connection set-up)', async () => {
    const run = await runDownload(config(false, client));
    for (const r of run.results) {
      const rec = r.records.at(0)!;
      expect(rec.phases).toEqual({});
      const injected = HOLD_MS + (CHUNKS - 1) * PACE_MS;
      expect(rec.totalMs).toBeGreaterThanOrEqual(injected - 5);
      // The total also holds connect and scheduling, which a loaded 2-core CI machine stretches.
      expect(rec.totalMs).toBeLessThan(injected + 200);
    }
  });
});
