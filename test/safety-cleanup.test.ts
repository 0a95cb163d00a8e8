// --cleanup removes what the run made, and only that: the fixtures it created and the
// container too when the run created it; a container that was there before stays, with what it held.
import { describe, expect, it } from 'vitest';
import type { DownloadConfig } from '../src/config/load.js';
import { runDownload } from '../src/engine/download.js';
import { azuriteForFile, blobNames, containerOf, keyCredentialsOf } from './helpers/azurite.js';
import { testConfig } from './helpers/config.js';

/**
 * Failed, as the run record says it (written out here so the test also runs against code without the helper).
 */
const runFailed = (r: { verified: boolean; notVerified?: string; error?: string }) =>
  !r.verified && (r.notVerified === undefined || r.error !== undefined);

const azurite = azuriteForFile();

const config = (container: string): DownloadConfig =>
  testConfig('download', {
    logLevel: 'error',
    sourceMethod: 'single',
    concurrency: 1,
    fileSizeBytes: 10_000,
    processes: 1,
    maxSockets: 2,
    sink: 'memory',
    bufferSizeBytes: 65536,
    container,
    cleanup: true,
    credentials: keyCredentialsOf(azurite()),
    httpClient: 'raw',
    runs: 1,
    warmup: 0,
    format: 'console',
    maxRetries: 1,
    timeoutMs: 10_000,
    trace: true,
  });

describe('--cleanup removes the container the run created, and only that', () => {
  it('--cleanup removes the container that the run itself created', async () => {
    expect(await containerOf(azurite(), 'made-by-run').exists()).toBe(false);
    const run = await runDownload(config('made-by-run'));
    expect(run.results.some(runFailed)).toBe(false);
    expect(run.fixtures.created).toEqual(['large.file']);
    expect(await containerOf(azurite(), 'made-by-run').exists()).toBe(false);
  });

  it('a container that was there before is kept, with the blobs the run did not make', async () => {
    const there = containerOf(azurite(), 'was-there');
    await there.create();
    await there.getBlockBlobClient('theirs.txt').upload('keep me', 7);
    const run = await runDownload(config('was-there'));
    expect(run.results.some(runFailed)).toBe(false);
    expect(await there.exists()).toBe(true);
    expect(await blobNames(there)).toEqual(['theirs.txt']);
  });
});
