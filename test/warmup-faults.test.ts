// Faults met in warm-up runs are counted apart from the measured ones and shown in
// the report model and every format. A real server resets the warm-up's first GET and answers its
// retry 503; the measured runs are clean.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildReport } from '../src/analysis/report-model.js';
import { renderCsv } from '../src/report/csv.js';
import { renderConsole } from '../src/report/console.js';
import { renderHtml } from '../src/report/html.js';
import { renderMarkdown } from '../src/report/markdown.js';
import type { ResultsFile } from '../src/results/schema.js';
import { runCli } from './helpers/cli.js';
import { deterministicBuffer, inOrder, startFaultServer, type FaultServer } from './helpers/fault-servers.js';
import { freshDirs } from './helpers/temp-dirs.js';

const fresh = freshDirs('warmup-faults-');

describe('warm-up faults', () => {
  let server: FaultServer;
  beforeAll(async () => {
    server = await startFaultServer(
      deterministicBuffer(32 * 1024),
      inOrder({ kind: 'reset', afterBytes: 100 }, { kind: 'status', status: 503, code: 'ServerBusy' }),
    );
  });
  afterAll(() => server.stop());

  it('a reset and a 503 in the warm-up are reported apart, in the model and every format', async () => {
    const cwd = await fresh();
    const run = await runCli(
      [
        'download',
        '--url',
        `${server.url}/blob.bin`,
        '--source-method',
        'single',
        '--runs',
        '3',
        '--warmup',
        '1',
        '--results',
        'r.json',
        '--log-level',
        'error',
      ],
      { cwd, limitMs: 60_000, env: { BLOB_CACHER_RUNS: '', BLOB_CACHER_WARMUP: '' } },
    );
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(await readFile(join(cwd, 'r.json'), 'utf8')) as ResultsFile;
    const warm = doc.runs.filter((r) => r.warmup);
    expect(warm).toHaveLength(1);
    expect(warm[0]!.retries).toBe(2);
    const report = buildReport(doc, { title: 't' });
    expect(report.warmupFaults).toEqual([
      expect.objectContaining({
        contender: 'single',
        runs: 1,
        retries: 2,
        throttled: 1,
        faults: { reset: 1 },
        failedRequests: 0,
        failedRuns: 0,
      }),
    ]);
    const text =
      'single warm-up: 1 connection reset, 1 throttled answer (503/429), 2 retries, not counted in ' +
      'the figures';
    expect(report.warmupFaults[0]!.text).toBe(text.replace(/^single /, ''));
    // The measured figures leave them out.
    expect(report.contenders[0]!.retries).toBe(0);
    expect(report.warnings.map((w) => w.kind)).not.toContain('faults');
    expect(run.stdout).toContain(text);
    expect(renderConsole(report)).toContain(text);
    expect(renderMarkdown(report)).toContain(`- ${text}`);
    expect(renderHtml({ report })).toContain(text);
    const [head, row] = renderCsv(report).split('\n');
    const cells = Object.fromEntries(head!.split(',').map((c, i) => [c, row!.split(',')[i]]));
    expect([
      cells.warmup_retries,
      cells.warmup_throttled,
      cells.warmup_failed_requests,
      cells.retries,
    ]).toEqual(['2', '1', '0', '0']);
  });

  it('a clean warm-up reports none', () => {
    const doc = { runs: [] } as unknown as ResultsFile;
    expect(
      buildReport(
        {
          ...doc,
          command: 'download',
          environment: { target: 'x', targetKind: 'url' },
          complete: true,
          createdAt: '',
        } as ResultsFile,
        { title: 't' },
      ).warmupFaults,
    ).toEqual([]);
  });
});
