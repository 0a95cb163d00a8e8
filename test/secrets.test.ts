// The CLI at its noisiest (LOG_LEVEL=silly) against a real Azurite: no account key, SAS signature or
// connection string may reach stdout or stderr, in the coordinator or in any worker.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountSas, startEmbeddedAzurite, type EmbeddedAzurite } from './helpers/azurite.js';
import { ONE_RUN } from './helpers/cli-env.js';

const DOWNLOAD_JS = fileURLToPath(new URL('../dist/download.js', import.meta.url));

let azurite: EmbeddedAzurite;
let cwd: string;

beforeAll(async () => {
  azurite = await startEmbeddedAzurite();
  // No .env here: only the variables each case passes reach the CLI.
  cwd = await mkdtemp(join(tmpdir(), 'blob-cacher-secrets-'));
});
afterAll(async () => {
  await azurite?.stop();
  if (cwd) await rm(cwd, { recursive: true, force: true });
});

function runCli(vars: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const env = {
      ...ONE_RUN,
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? cwd,
      LOG_LEVEL: 'silly',
      FILE_SIZE: '256KB',
      SOURCE_METHOD: 'all',
      ...vars,
    };
    const child = spawn(process.execPath, [DOWNLOAD_JS], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.on('data', (c: Buffer) => chunks.push(c));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output: Buffer.concat(chunks).toString('utf8') }));
  });
}

/** The run happened at silly level and finished, so the absence of secrets below means something. */
function expectNoisyAndGreen(code: number | null, output: string): void {
  expect(code, output).toBe(0);
  expect(output).toMatch(/ debug: config \{/);
  // A worker's per-request line: the workers log at the same level.
  expect(output).toMatch(/ debug: single\b.*\blarge\.file\b.* 200 /);
  // The silly line of each request shows its URL and signed headers, with the signature masked.
  expect(output).toMatch(/ silly: GET \S+\/large\.file\b/);
  for (const strategy of ['single', 'chunked', 'round-robin', 'assemble', 'sdk']) {
    expect(output).toMatch(new RegExp(`^\\d+=?\\s+${strategy}\\s.*\\sok$`, 'm'));
  }
}

function expectAbsent(output: string, secrets: Record<string, string>): void {
  for (const [name, value] of Object.entries(secrets)) {
    expect(value.length, name).toBeGreaterThan(8);
    // The message names the secret, never prints it.
    expect(output.includes(value), `output contains the ${name}`).toBe(false);
  }
}

describe('no secret in the output at LOG_LEVEL=silly', () => {
  it('connection string with AccountKey', async () => {
    const cs =
      `DefaultEndpointsProtocol=http;AccountName=${azurite.account};AccountKey=${azurite.key};` +
      `BlobEndpoint=${azurite.endpoint}`;
    const { code, output } = await runCli({
      STORAGE_CONNECTION_STRING: cs,
      STORAGE_CONTAINER: 'secrets-key',
    });

    expectNoisyAndGreen(code, output);
    expect(output).toContain(`account ${azurite.account} (SharedKey)`);
    expectAbsent(output, { 'account key': azurite.key, 'connection string': cs });
  });

  // STORAGE_ACCOUNT + STORAGE_SAS always targets https://<account>.blob.core.windows.net, so a SAS
  // for the local Azurite goes in a connection string with BlobEndpoint.
  it('connection string with an account SharedAccessSignature', async () => {
    const sas = accountSas(azurite);
    const sig = new URLSearchParams(sas).get('sig');
    expect(sig).toBeTruthy();
    const cs = `AccountName=${azurite.account};BlobEndpoint=${azurite.endpoint};SharedAccessSignature=${sas}`;
    const { code, output } = await runCli({
      STORAGE_CONNECTION_STRING: cs,
      STORAGE_CONTAINER: 'secrets-sas',
    });

    expectNoisyAndGreen(code, output);
    expect(output).toContain(`account ${azurite.account} (SAS)`);
    expectAbsent(output, {
      'SAS signature': sig!,
      'URL-encoded SAS signature': encodeURIComponent(sig!),
      SAS: sas,
      'connection string': cs,
      'account key': azurite.key,
    });
  });

  it('a blob URL carrying its own SAS, as --url: masked in the output and in the results file', async () => {
    // Fixtures first, through the account key, then the same blob as a plain Range-capable URL.
    const cs =
      `DefaultEndpointsProtocol=http;AccountName=${azurite.account};AccountKey=${azurite.key};` +
      `BlobEndpoint=${azurite.endpoint}`;
    const prep = await runCli({
      STORAGE_CONNECTION_STRING: cs,
      STORAGE_CONTAINER: 'secrets-url',
      SOURCE_METHOD: 'single',
      LOG_LEVEL: 'error',
    });
    expect(prep.code, prep.output).toBe(0);
    const sas = accountSas(azurite);
    const sig = new URLSearchParams(sas).get('sig')!;
    const url = `${azurite.endpoint}/secrets-url/large.file?${sas}`;
    const resultsDir = join(cwd, 'url-results');
    const { code, output } = await runCli({
      URL: url,
      SOURCE_METHOD: 'chunked',
      BLOB_CACHER_RESULTS: join(resultsDir, 'r.json'),
    });
    expect(code, output).toBe(0);
    expect(output).toMatch(/^\d+=?\s+chunked\s.*\snot verified \(plain URL/m);
    expect(output).toMatch(/ silly: GET \S+large\.file\?\S*sig=\[redacted\]/);
    const results = await readFile(join(resultsDir, 'r.json'), 'utf8');
    expect(results).toContain('sig=[redacted]');
    for (const text of [output, results]) {
      expectAbsent(text, {
        'SAS signature': sig,
        'URL-encoded SAS signature': encodeURIComponent(sig),
        SAS: sas,
      });
    }
  });
});
