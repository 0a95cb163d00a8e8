// --connections cold|warm on the embedded Azurite: warm opens MAX_SOCKETS per process before the
// barrier, so no request in the timed span connects; cold (the default) connects inside it.
import { describe, expect, it } from 'vitest';
import { loadDownloadConfig, type DownloadConfig } from '../src/config/load.js';
import { runDownload } from '../src/engine/download.js';
import { runUpload } from '../src/engine/upload.js';
import { renderConsole } from '../src/report/console.js';
import { toRunRecord } from '../src/results/record.js';
import { reportOf } from './helpers/report.js';
import { azuriteForFile, keyCredentialsOf } from './helpers/azurite.js';
import { testConfig, type TestSettings } from './helpers/config.js';

const azurite = azuriteForFile();
const credentials = () => keyCredentialsOf(azurite());

function download(overrides: TestSettings<DownloadConfig> = {}): DownloadConfig {
  return testConfig('download', {
    logLevel: 'error',
    sourceMethod: 'chunked',
    concurrency: 4,
    fileSizeBytes: 1024 * 1024,
    processes: 2,
    maxSockets: 3,
    sink: 'memory',
    bufferSizeBytes: 65536,
    container: 'conns',
    cleanup: false,
    credentials: credentials(),
    runs: 1,
    warmup: 0,
    format: 'console',
    maxRetries: 3,
    timeoutMs: 10_000,
    trace: true,
    httpClient: 'raw',
    ...overrides,
  });
}

describe('--connections', () => {
  it('parses cold and warm, cold by default, and refuses anything else', () => {
    expect(loadDownloadConfig({}, { env: {} }).connections).toBe('cold');
    expect(loadDownloadConfig({}, { env: { BLOB_CACHER_CONNECTIONS: 'warm' } }).connections).toBe('warm');
    expect(() => loadDownloadConfig({ connections: 'hot' }, { env: {} })).toThrow(
      /--connections.*cold, warm/,
    );
  });

  for (const httpClient of ['raw', 'node'] as const) {
    it(`warm (${httpClient} client): every timed request goes out on a socket ` +
      `opened before the barrier`, async () => {
      const [warm] = (await runDownload(download({ connections: 'warm', httpClient }))).results;
      expect(warm!.verified, warm!.verification).toBe(true);
      // 2 processes x 3 sockets, each opened by a HEAD before the release.
      expect(warm!.warmSockets).toBe(6);
      expect(
        warm!.records.every((r) => r.reused),
        'reused',
      ).toBe(true);
      expect(
        warm!.records.every((r) => r.phases.tcp === undefined),
        'no tcp phase',
      ).toBe(true);
      const [cold] = (await runDownload(download({ httpClient }))).results;
      expect(cold!.warmSockets).toBeUndefined();
      expect(
        cold!.records.filter((r) => r.phases.tcp !== undefined).length,
        'cold connects inside the span',
      ).toBeGreaterThan(0);
      expect(renderConsole(reportOf([toRunRecord(warm!)]), { details: true })).toContain(
        'connections warm: chunked 6 socket(s) opened before the barrier',
      );
    }, 60_000);
  }

  it("warm uploads and the SDK baseline: sockets are opened on each one's own agent", async () => {
    const config = testConfig('upload', {
      logLevel: 'error',
      uploadMethod: 'all',
      fileCount: 12,
      fileSizeBytes: 2048,
      blobSizeBytes: 64 * 1024,
      blockSizeBytes: 16 * 1024,
      concurrency: 4,
      thresholdBytes: 0,
      processes: 1,
      maxSockets: 4,
      container: 'conns-up',
      keep: false,
      httpClient: 'raw',
      trace: true,
      maxRetries: 3,
      timeoutMs: 10_000,
      runs: 1,
      warmup: 0,
      format: 'console',
      credentials: credentials(),
      connections: 'warm',
    });
    const runs = (await runUpload(config)).results;
    for (const r of runs) {
      expect(r.verified, `${r.strategy}: ${r.verification}`).toBe(true);
      expect(r.warmSockets, r.strategy).toBe(4);
    }
    const ours = runs.find((r) => r.strategy === 'small-files')!;
    expect(ours.records.every((r) => r.reused)).toBe(true);
  }, 90_000);
});
