import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadKind } from '../src/kinds/index.js';
import { DOWNLOAD_STRATEGIES, UPLOAD_STRATEGIES, workloadOf } from '../src/strategies/index.js';
import { parseResultsDoc } from '../src/results/validate.js';
import { toRunRecord } from '../src/results/record.js';
import { newResultsFile } from '../src/results/file.js';
import { runDownload } from '../src/engine/download.js';
import { JobRun } from '../src/workers/job-run.js';
import type { FromWorker, WorkerJob } from '../src/workers/protocol.js';
import { setLogLevel } from '../src/log/logger.js';
import { close, deterministicBuffer, listen } from './helpers/http-servers.js';
import { testConfig } from './helpers/config.js';

beforeAll(() => setLogLevel('error'));

describe('request kinds', () => {
  it(
    'every strategy names a kind the registry loads, and its unit follows from the kind and the ' +
      "plan's shape",
    async () => {
      const units: Record<string, string> = {};
      for (const s of [...DOWNLOAD_STRATEGIES, ...UPLOAD_STRATEGIES]) {
        const kind = await loadKind(s.kind);
        expect(kind.name).toBe(s.kind);
        units[s.name + (UPLOAD_STRATEGIES.includes(s as never) ? ' (upload)' : '')] = kind.unit(
          workloadOf(s).shape,
        );
      }
      expect(units).toEqual({
        single: 'MiB/s',
        chunked: 'MiB/s',
        'round-robin': 'MiB/s',
        assemble: 'MiB/s',
        sdk: 'MiB/s',
        'small-files': 'ops/s',
        'sdk-small-files': 'ops/s',
        list: 'ops/s',
        'list-hierarchy': 'ops/s',
        'sdk-list': 'ops/s',
        head: 'ops/s',
        'sdk-head': 'ops/s',
        'small-files (upload)': 'ops/s',
        'sdk-small-files (upload)': 'ops/s',
        'blocks (upload)': 'MiB/s',
        'sdk-upload (upload)': 'MiB/s',
      });
    },
  );

  it('a name not in the registry is refused, naming the known ones', async () => {
    await expect(loadKind('hedged-get')).rejects.toThrow(
      /no request kind named hedged-get \(known: get, put, /,
    );
  });

  it(
    'a run carries its unit into the results file, and a file with a unit that is ' +
      'neither is refused on read',
    async () => {
      const run = await runDownload(
        testConfig('download', {
          sourceMethod: 'chunked',
          fileSizeBytes: 100_000,
          concurrency: 2,
          container: 'kinds-test',
        }),
      );
      expect(run.results.map((r) => [r.strategy, r.unit, r.verified])).toEqual([['chunked', 'MiB/s', true]]);
      const doc = newResultsFile('download', {}, { kind: 'embedded-azurite', label: 'embedded Azurite' });
      doc.runs.push(toRunRecord(run.results[0]!));
      expect(parseResultsDoc(JSON.parse(JSON.stringify(doc)))).not.toHaveProperty('problem');
      const bad = JSON.parse(JSON.stringify(doc));
      bad.runs[0].unit = 'GB/s';
      expect(parseResultsDoc(bad)).toEqual({
        problem: expect.stringMatching(/bad unit \(MiB\/s or ops\/s\)/),
      });
      // A file without a unit still reads.
      delete bad.runs[0].unit;
      expect(parseResultsDoc(bad)).not.toHaveProperty('problem');
    },
  );
});

describe("a worker's job as a state machine", () => {
  const body = deterministicBuffer(64 * 1024);
  const server = http.createServer((_req, res) => res.end(body));
  let url = '';
  beforeAll(async () => {
    url = await listen(server);
  });
  afterAll(() => close(server));

  const job = (): WorkerJob => ({
    workerIndex: 0,
    strategy: 'single',
    kind: 'get',
    target: { kind: 'url', url },
    items: [{ index: 0, destOffsetBytes: 0, lengthBytes: body.length }],
    objectSizeBytes: body.length,
    concurrency: 1,
    maxSockets: 2,
    sink: 'memory',
    hashRanges: true,
    bufferSizeBytes: 64 * 1024,
    logLevel: 'error',
    maxRetries: 0,
    timeoutMs: 5_000,
  });

  it('goes idle -> prepared -> running -> checking -> done, and refuses a step out of order', async () => {
    const sent: FromWorker['type'][] = [];
    const run = new JobRun(job(), (m) => sent.push(m.type));
    expect(run.state).toBe('idle');
    await expect(run.run(0)).rejects.toThrow(/running asked while idle, not prepared/);
    await run.prepare();
    expect(run.state).toBe('prepared');
    const result = run.run(performance.timeOrigin + performance.now());
    // The check (hashing what landed) waits for the coordinator's word that every worker is done.
    for (let i = 0; i < 500 && !sent.includes('finished'); i++)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(run.state).toBe('checking');
    run.allDone();
    const r = await result;
    expect(run.state).toBe('done');
    expect(sent).toContain('finished');
    expect(r.stopped).toBe(0);
    await expect(run.prepare()).rejects.toThrow(/prepared asked while done/);
  });

  it('a stop before the release: nothing is sent, every item counts as stopped', async () => {
    const run = new JobRun(job(), () => {});
    await run.prepare();
    expect(run.stopNow()).toBe(0);
    const r = await run.run(performance.timeOrigin + performance.now());
    expect(r.stopped).toBe(1);
  });
});
