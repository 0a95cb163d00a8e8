// The embedded target's own clock: every run of every contender, ours and the SDK's,
// gets the server's span of its data requests beside its own, and the ranked span is the same
// boundary for all: first request's start to last response's end.
import { beforeAll, describe, expect, it } from 'vitest';
import { analyze } from '../src/analysis/analyze.js';
import { runDownload } from '../src/engine/download.js';
import { setLogLevel } from '../src/log/logger.js';
import { renderConsole } from '../src/report/console.js';
import { renderCsv } from '../src/report/csv.js';
import { reportOf } from './helpers/report.js';
import { toRunRecord } from '../src/results/record.js';
import { testConfig } from './helpers/config.js';

const config = testConfig('download', {
  logLevel: 'warn',
  sourceMethod: 'all',
  concurrency: 4,
  fileSizeBytes: 4 * 1024 * 1024,
  processes: 1,
  maxSockets: 16,
  sink: 'memory',
  bufferSizeBytes: 64 * 1024,
  container: 'server-clock',
  cleanup: false,
  credentials: { kind: 'embedded' },
  httpClient: 'raw',
  runs: 2,
  warmup: 1,
  format: 'console',
  maxRetries: 3,
  timeoutMs: 30_000,
  trace: true,
});

beforeAll(() => setLogLevel('warn'));

describe('server clock on the embedded Azurite', () => {
  it('records a server span for every run, never longer than the client span, and reports both', async () => {
    const run = await runDownload(config);
    expect(run.results.map((r) => r.strategy)).toEqual([
      'single',
      'chunked',
      'round-robin',
      'assemble',
      'sdk',
      'single',
      'chunked',
      'round-robin',
      'assemble',
      'sdk',
      'single',
      'chunked',
      'round-robin',
      'assemble',
      'sdk',
    ]);
    for (const r of run.results) {
      expect(r.verified, r.verification).toBe(true);
      expect(r.serverSpanMs, r.strategy).toBeGreaterThan(0);
      // The server sees a request after the client sent it and finishes before the client has read it
      // all; its events wait their turn in a busy coordinator, so a few ms of slack.
      expect(r.serverSpanMs!, r.strategy).toBeLessThanOrEqual(r.wallMs + 5);
      // The ranked span is the records' own: first start to last end.
      const first = Math.min(...r.records.map((x) => x.startEpochMs));
      const last = Math.max(...r.records.map((x) => x.startEpochMs + x.totalMs));
      expect(r.wallMs).toBeCloseTo(last - first, 6);
    }
    const stats = analyze(run.results.map(toRunRecord));
    const text = renderConsole(reportOf(run.results.map(toRunRecord)), { details: true });
    expect(text).toMatch(/^server clock \(the target's own span/m);
    for (const s of stats)
      expect(text).toMatch(
        new RegExp(
          `^  ${s.label}: client [\\d.]+ ms, server [\\d.]+ ms \\(\\+?-?[\\d.]+ ms, bound [\\d.]+ ms\\)$`,
          'm',
        ),
      );
    // The CSV carries the same server clock, one row per contender.
    const [head, ...rows] = renderCsv(reportOf(run.results.map(toRunRecord)))
      .split('\n')
      .map((l) => l.split(','));
    for (const row of rows)
      expect(Number(row[head!.indexOf('server_span_ms_median')]), row[1]).toBeGreaterThan(0);
  });
});
