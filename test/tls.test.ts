// The embedded target over HTTPS: a throwaway certificate made in-process and trusted
// by this run's clients only; every strategy, ours and the SDK's, downloads and uploads through it,
// and the zero-config run measures the dns, tcp and tls phases a real account has.
import { beforeAll, describe, expect, it } from 'vitest';
import { runDownload } from '../src/engine/download.js';
import { runUpload } from '../src/engine/upload.js';
import { setLogLevel } from '../src/log/logger.js';
import { testConfig } from './helpers/config.js';

const base = {
  logLevel: 'warn',
  processes: 1,
  maxSockets: 8,
  httpClient: 'raw',
  container: 'tls-test',
  credentials: { kind: 'embedded', tls: true },
  runs: 1,
  warmup: 0,
  format: 'console',
  maxRetries: 1,
  timeoutMs: 30_000,
  trace: true,
} as const;

beforeAll(() => setLogLevel('warn'));

describe('embedded Azurite over HTTPS', () => {
  it('every download strategy verifies, at https://localhost, with dns, tcp and tls phases', async () => {
    const config = testConfig('download', {
      ...base,
      sourceMethod: 'all',
      concurrency: 4,
      fileSizeBytes: 1024 * 1024,
      sink: 'memory',
      bufferSizeBytes: 64 * 1024,
      cleanup: false,
    });
    const run = await runDownload(config);
    expect(run.target).toMatch(/^embedded Azurite https:\/\/localhost:\d+\//);
    expect(run.results.map((r) => r.strategy)).toEqual([
      'single',
      'chunked',
      'round-robin',
      'assemble',
      'sdk',
    ]);
    for (const r of run.results) expect(r.verified, `${r.strategy}: ${r.verification}`).toBe(true);
    const single = run.results[0]!.records.at(0)!;
    for (const phase of ['dns', 'tcp', 'tls'] as const)
      expect(single.phases[phase], phase).toBeGreaterThan(0);
  });

  it('uploads (small files, staged blocks and their commit, the SDK) verify over HTTPS too', async () => {
    const config = testConfig('upload', {
      ...base,
      uploadMethod: 'all',
      fileCount: 20,
      fileSizeBytes: 10_000,
      blobSizeBytes: 3_000_000,
      blockSizeBytes: 1_000_000,
      thresholdBytes: 0,
      concurrency: 4,
      keep: false,
    });
    const run = await runUpload(config);
    expect(run.results.map((r) => [r.strategy, r.verified])).toEqual([
      ['small-files', true],
      ['sdk-small-files', true],
      ['blocks', true],
      ['sdk-upload', true],
    ]);
  });
});
