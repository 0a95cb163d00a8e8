// Does the verdict hold up? Real runs against a local server: the same contender
// twice (A/A) must come out "no significant difference" at least 95% of the time, and a 20%
// slowdown injected by the server (A/B) must be detected at n=10 at least 90% of the time.
// Runs are measured once per server; the trials draw disjoint sets of 10 from them.
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mannWhitney, significantlyFaster } from '../src/analysis/significance.js';
import { ALPHA } from '../src/analysis/stats.js';
import { runDownload } from '../src/engine/download.js';
import { runFailed } from '../src/results/schema.js';
import { setLogLevel } from '../src/log/logger.js';
import { close, deterministicBuffer, listen } from './helpers/http-servers.js';
import { testConfig } from './helpers/config.js';

const SIZE = 64 * 1024;
const CHUNKS = 5;
const body = deterministicBuffer(SIZE);

/** Sends the body in CHUNKS pieces, `paceMs` apart: a run lasts about CHUNKS x paceMs. */
function pacedServer(paceMs: number): http.Server {
  return http.createServer((req, res) => {
    res.writeHead(200, { 'content-length': SIZE, 'accept-ranges': 'bytes' });
    if (req.method === 'HEAD') return res.end();
    let i = 0;
    const step = Math.ceil(SIZE / CHUNKS);
    const timer = setInterval(() => {
      res.write(body.subarray(i * step, (i + 1) * step));
      if (++i >= CHUNKS) {
        clearInterval(timer);
        res.end();
      }
    }, paceMs);
  });
}

const RUNS = 60;
async function timesFrom(url: string): Promise<number[]> {
  const config = testConfig('download', {
    logLevel: 'error',
    sourceMethod: 'single',
    concurrency: 1,
    fileSizeBytes: SIZE,
    processes: 1,
    maxSockets: 1,
    sink: 'discard',
    bufferSizeBytes: 64 * 1024,
    container: 'unused',
    cleanup: false,
    credentials: { kind: 'url', url },
    httpClient: 'raw',
    runs: RUNS,
    warmup: 2,
    format: 'console',
    maxRetries: 0,
    timeoutMs: 30_000,
    trace: true,
  });
  const run = await runDownload(config);
  const measured = run.results.filter((r) => !r.warmup);
  expect(measured.some(runFailed)).toBe(false);
  return measured.map((r) => r.wallMs);
}

/**
 * Deterministic shuffles (mulberry32, seeds spread by a golden-ratio multiply): independent enough
 * that the trials' rate has a binomial spread. A plain LCG on consecutive seeds gave correlated
 * shuffles and rates that wandered past the test's own size.
 */
function shuffled<T>(values: readonly T[], seed: number): T[] {
  let s = Math.imul(seed, 0x9e3779b1) | 0;
  const next = () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = [...values];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(next() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

// Random splits of one set of runs: the rate is the test's own size (4.33% for the exact test at 10
// a side), and 20,000 splits put it within ±0.3% (95%), so the 5% bound is not a coin toss.
const TRIALS = 20_000;
const N = 10;
let base: number[];
let slower: number[];
const servers: http.Server[] = [];

beforeAll(async () => {
  setLogLevel('error');
  const a = pacedServer(10);
  const b = pacedServer(12);
  servers.push(a, b);
  base = await timesFrom(`${await listen(a)}/x`);
  slower = await timesFrom(`${await listen(b)}/x`);
}, 120_000);
afterAll(async () => {
  for (const s of servers) await close(s);
});

describe('verdicts against real runs', () => {
  it('A/A: the same contender twice is "no significant difference" at least 95% of the time', () => {
    let alarms = 0;
    for (let t = 0; t < TRIALS; t++) {
      const draw = shuffled(base, t + 1);
      if (mannWhitney(draw.slice(0, N), draw.slice(N, 2 * N)).p < ALPHA) alarms++;
    }
    console.log(
      `A/A false alarms: ${alarms}/${TRIALS} (${((alarms / TRIALS) * 100).toFixed(1)}%), n=${N} a side`,
    );
    expect(alarms / TRIALS).toBeLessThanOrEqual(0.05);
  });

  it('A/B: a 20% slower server is detected at n=10 at least 90% of the time', () => {
    let detected = 0;
    for (let t = 0; t < TRIALS; t++) {
      const a = shuffled(base, t + 1).slice(0, N);
      const b = shuffled(slower, t + 1001).slice(0, N);
      const { p } = mannWhitney(a, b);
      if (p < ALPHA && b.reduce((x, y) => x + y) > a.reduce((x, y) => x + y)) detected++;
    }
    console.log(
      `A/B detected: ${detected}/${TRIALS} (${((detected / TRIALS) * 100).toFixed(1)}%), n=${N} a ` +
        `side; medians ${[...base].sort((x, y) => x - y)[RUNS / 2]!.toFixed(1)} vs ` +
        `${[...slower].sort((x, y) => x - y)[RUNS / 2]!.toFixed(1)} ms`,
    );
    expect(detected / TRIALS).toBeGreaterThanOrEqual(0.9);
  });

  // The verdict's rule adds the ratio's bootstrap interval to the rank test (2,000 resamples each
  // time, so fewer trials): it can only alarm less than the rank test alone, and must still detect.
  const VERDICT_TRIALS = 2_000;
  it("the verdict's rule (rank test and ratio interval): A/A alarms at most 5%, A/B (20%) detected at " +
    'n=10 at least 90%', () => {
    let alarms = 0;
    let detected = 0;
    for (let t = 0; t < VERDICT_TRIALS; t++) {
      const draw = shuffled(base, t + 1);
      const [x, y] = [draw.slice(0, N), draw.slice(N, 2 * N)];
      if (significantlyFaster(x, y) || significantlyFaster(y, x)) alarms++;
      if (significantlyFaster(shuffled(base, t + 1).slice(0, N), shuffled(slower, t + 1001).slice(0, N)))
        detected++;
    }
    console.log(
      `verdict rule: A/A false alarms ${alarms}/${VERDICT_TRIALS} ` +
        `(${((alarms / VERDICT_TRIALS) * 100).toFixed(1)}%), A/B detected ` +
        `${detected}/${VERDICT_TRIALS} (${((detected / VERDICT_TRIALS) * 100).toFixed(1)}%), n=${N} a side`,
    );
    expect(alarms / VERDICT_TRIALS).toBeLessThanOrEqual(0.05);
    expect(detected / VERDICT_TRIALS).toBeGreaterThanOrEqual(0.9);
  }, 60_000);
});
