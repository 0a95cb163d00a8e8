// --endpoint with every --auth mode, against a real Azurite at its path-style URL
// (http://127.0.0.1:PORT/devstoreaccount1, as a private endpoint or another cloud would be given):
// the options as a user gives them, resolved by the config layer, then a whole download session.
// --auth entra with --endpoint is test/entra.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSources } from '../src/cli/sources.js';
import { ConfigError } from '../src/vocabulary/errors.js';
import { buildProgram, loadDownloadConfig, parseFlags, type DownloadConfig } from '../src/config/load.js';
import { DOWNLOAD_OPTIONS } from '../src/config/options.js';
import { runDownload } from '../src/engine/download.js';
import { setLogLevel } from '../src/log/logger.js';
import { accountSas, containerOf, startEmbeddedAzurite, type EmbeddedAzurite } from './helpers/azurite.js';

const STRATEGIES = ['single', 'chunked', 'round-robin', 'assemble', 'sdk'];
let azurite: EmbeddedAzurite;

beforeAll(async () => {
  setLogLevel('warn');
  azurite = await startEmbeddedAzurite();
});
afterAll(() => azurite?.stop());

function config(argv: string[]): DownloadConfig {
  const flags = parseFlags(buildProgram('download', DOWNLOAD_OPTIONS, 'test'), argv)!;
  const common = {
    BLOB_CACHER_RUNS: '1',
    BLOB_CACHER_WARMUP: '0',
    LOG_LEVEL: 'warn',
    FILE_SIZE: '256KB',
    SOURCE_METHOD: 'all',
  };
  return loadDownloadConfig(flags, readSources(DOWNLOAD_OPTIONS, flags, common, '/nonexistent'));
}

async function expectAllVerified(c: DownloadConfig) {
  const run = await runDownload(c);
  expect(run.results.map((r) => r.strategy)).toEqual(STRATEGIES);
  for (const r of run.results) expect(r.verified, `${r.strategy}: ${r.verification}`).toBe(true);
  return run;
}

describe('--endpoint with every --auth mode, at a path-style URL', () => {
  it('key: the account is given, the requests are signed for the endpoint', async () => {
    const c = config([
      '--account',
      azurite.account,
      '--key',
      azurite.key,
      '--endpoint',
      azurite.endpoint,
      '--container',
      'endpoint-key',
    ]);
    expect(c.credentials).toMatchObject({ kind: 'key', endpoint: azurite.endpoint });
    const run = await expectAllVerified(c);
    expect(run.target).toBe(`account ${azurite.account} (SharedKey)`);
  });

  it("sas: the account is the endpoint's first path segment", async () => {
    const c = config([
      '--sas',
      accountSas(azurite),
      '--endpoint',
      `${azurite.endpoint}/`,
      '--container',
      'endpoint-sas',
    ]);
    expect(c.credentials).toMatchObject({
      kind: 'sas',
      account: azurite.account,
      endpoint: azurite.endpoint,
    });
    await expectAllVerified(c);
  });

  it('anonymous: reads fixtures that exist in a public container, and creates nothing', async () => {
    // The fixtures once, with the key; then the container is made public for blob reads.
    await expectAllVerified(
      config([
        '--account',
        azurite.account,
        '--key',
        azurite.key,
        '--endpoint',
        azurite.endpoint,
        '--container',
        'endpoint-public',
      ]),
    );
    await containerOf(azurite, 'endpoint-public').setAccessPolicy('blob');
    const c = config([
      '--auth',
      'anonymous',
      '--endpoint',
      azurite.endpoint,
      '--container',
      'endpoint-public',
    ]);
    expect(c.credentials).toEqual({
      kind: 'anonymous',
      account: azurite.account,
      endpoint: azurite.endpoint,
    });
    const run = await expectAllVerified(c);
    expect(run.target).toBe(`account ${azurite.account} (anonymous)`);
    expect(run.fixtures.created).toEqual([]);
    expect(run.fixtures.reused).toBeGreaterThan(0);
  });

  it('anonymous: a fixture that is not there ends before any run, naming the fix', async () => {
    const c = config([
      '--auth',
      'anonymous',
      '--endpoint',
      azurite.endpoint,
      '--container',
      'endpoint-public',
      '--file-size',
      '300KB',
    ]);
    const err = await runDownload(c).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(
      new RegExp(
        String.raw`large\.file is not the expected content; --auth anonymous ` +
          'cannot create it: run once with a key, SAS or --auth entra',
      ),
    );
  });
});
