// --auth entra end to end: the CLI as a user runs it, against an Azurite that takes
// bearer tokens (`--oauth basic`, over HTTPS, its certificate given with --ca-file), getting its
// tokens from real token servers on 127.0.0.1 through DefaultAzureCredential: the managed identity
// endpoint of App Service / Container Apps, and an Entra ID authority for an AKS workload identity.
// Every strategy, ours and the SDK's, downloads and uploads with the token the coordinator fetched;
// a short-lived token is renewed between runs; a token for another audience ends with one line that
// names the fix; no token reaches the output or the results file, at the silly level either.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDownload } from '../src/engine/download.js';
import { setLogLevel } from '../src/log/logger.js';
import { TOKEN_REFUSED_FIX } from '../src/storage/entra.js';
import { startEmbeddedAzurite, type EmbeddedAzurite } from './helpers/azurite.js';
import { ONE_RUN } from './helpers/cli-env.js';
import {
  startAuthorityServer,
  startManagedIdentityServer,
  STORAGE_AUDIENCE,
  TENANT,
  type TokenOptions,
  type TokenServer,
} from './helpers/token-servers.js';
import { testConfig } from './helpers/config.js';

const DIST = fileURLToPath(new URL('../dist/', import.meta.url));
/** A CLI that hangs (a token request nobody answers) fails the test instead of stalling the suite. */
const CLI_LIMIT_MS = 90_000;
const IDENTITY_HEADER = 'identity-header-secret';
const CLIENT_ID = '0d1c2b3a-4e5f-6789-abcd-ef0123456789';
const FEDERATED_TOKEN =
  'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJzeXN0ZW06c2VydmljZWFjY291bnQ6YmVuY2g6YmxvYi1jYWNoZXIifQ.c2ln';
const DOWNLOAD_STRATEGIES = ['single', 'chunked', 'round-robin', 'assemble', 'sdk'];
const UPLOAD_STRATEGIES = ['small-files', 'sdk-small-files', 'blocks', 'sdk-upload'];

// What these tests drive besides the build: Azurite's bearer token check and @azure/identity.
const require = createRequire(import.meta.url);
const missing = [
  ['Azurite with --oauth basic', 'azurite/dist/src/blob/authentication/BlobTokenAuthenticator.js'],
  ['@azure/identity', '@azure/identity'],
]
  .filter(([, module]) => {
    try {
      require.resolve(module!);
      return false;
    } catch {
      return true;
    }
  })
  .map(([name]) => name!);
const title = (name: string) =>
  missing.length ? `${name} (skipped: ${missing.join(', ')} not installed)` : name;

let azurite: EmbeddedAzurite;
let dir: string;
let caFile: string;
let runCount = 0;

interface CliRun {
  code: number | null;
  output: string;
  results: string;
}

/** The CLI with only these variables, at LOG_LEVEL=silly: every request line and its headers are logged. */
function runCli(
  command: 'download' | 'upload' | 'collect',
  vars: Record<string, string>,
  args: string[] = [],
): Promise<CliRun> {
  const resultsPath = join(dir, `results-${++runCount}.json`);
  const env = {
    ...ONE_RUN,
    PATH: process.env.PATH ?? '',
    HOME: dir,
    LOG_LEVEL: 'silly',
    BLOB_CACHER_RESULTS: resultsPath,
    BLOB_CACHER_AUTH: 'entra',
    STORAGE_ENDPOINT: azurite.endpoint,
    BLOB_CACHER_CA_FILE: caFile,
    ...vars,
  };
  return new Promise((resolve, reject) => {
    const script = command === 'collect' ? [join(DIST, 'cli.js'), 'collect'] : [join(DIST, `${command}.js`)];
    const child = spawn(process.execPath, [...script, ...args], {
      cwd: dir,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    child.stderr.on('data', (c: Buffer) => chunks.push(c));
    const timer = setTimeout(() => child.kill('SIGKILL'), CLI_LIMIT_MS);
    child.on('error', reject);
    child.on('close', async (code) => {
      clearTimeout(timer);
      const results = await readFile(resultsPath, 'utf8').catch(() => '');
      resolve({ code, output: Buffer.concat(chunks).toString('utf8'), results });
    });
  });
}

/** Every strategy ran and verified, with the token server's tokens, none of which got out. */
function expectGreen(run: CliRun, strategies: readonly string[], server: TokenServer): void {
  expect(run.code, run.output.slice(-3000)).toBe(0);
  expect(run.output).toContain('(Entra ID)');
  for (const strategy of strategies)
    expect(run.output).toMatch(new RegExp(`^\\d+=?\\s+${strategy}\\s.*\\sok$`, 'm'));
  const doc = JSON.parse(run.results) as { runs: { strategy: string; verified: boolean }[] };
  expect(doc.runs.map((r) => r.strategy).sort()).toEqual([...strategies].sort());
  expect(doc.runs.every((r) => r.verified)).toBe(true);
  expect(server.refused).toEqual([]);
  expectNoToken(run, server);
}

/** The run logged its requests with their headers (silly), and no token the server issued is anywhere. */
function expectNoToken(run: CliRun, server: TokenServer): void {
  expect(server.issued.length).toBeGreaterThan(0);
  expect(run.output).toMatch(/ silly: (GET|PUT) \S+ \{.*"authorization":"Bearer \[redacted\]"/);
  for (const { token } of server.issued) {
    for (const [where, text] of [
      ['stdout/stderr', run.output],
      ['results file', run.results],
    ] as const) {
      expect(text.includes(token), `a token is in the ${where}`).toBe(false);
      // Its signature alone is a secret too.
      expect(text.includes(token.split('.')[2]!), `a token's signature is in the ${where}`).toBe(false);
    }
  }
}

describe.skipIf(missing.length > 0)(title('--auth entra against Azurite --oauth basic over HTTPS'), () => {
  beforeAll(async () => {
    azurite = await startEmbeddedAzurite({ tls: true, oauth: true });
    dir = await mkdtemp(join(tmpdir(), 'blob-cacher-entra-'));
    caFile = join(dir, 'azurite-ca.pem');
    await writeFile(caFile, azurite.ca!);
  });
  afterAll(async () => {
    await azurite?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  describe('managed identity (App Service / Container Apps: IDENTITY_ENDPOINT + IDENTITY_HEADER)', () => {
    let msi: TokenServer;
    beforeAll(async () => {
      msi = await startManagedIdentityServer(IDENTITY_HEADER);
    });
    afterAll(() => msi?.stop());
    const vars = () => ({ IDENTITY_ENDPOINT: msi.url, IDENTITY_HEADER });

    it('every download strategy verifies with the token, asked for the storage audience', async () => {
      const run = await runCli('download', {
        ...vars(),
        STORAGE_CONTAINER: 'entra-msi',
        FILE_SIZE: '256KB',
        SOURCE_METHOD: 'all',
      });
      expectGreen(run, DOWNLOAD_STRATEGIES, msi);
      expect(msi.issued[0]!.params.resource).toBe('https://storage.azure.com');
      // Asked once, before preflight: a one-hour token serves every run of the session.
      expect(msi.issued).toHaveLength(1);
    }, 120_000);

    it('every upload strategy verifies, and --client-id picks a user-assigned identity', async () => {
      const before = msi.issued.length;
      const run = await runCli(
        'upload',
        {
          ...vars(),
          STORAGE_CONTAINER: 'entra-msi-up',
          FILE_COUNT: '20',
          FILE_SIZE: '10',
          BLOB_CACHER_BLOB_SIZE: '3MB',
          BLOB_CACHER_BLOCK_SIZE: '1MB',
          BLOB_CACHER_UPLOAD_METHOD: 'all',
        },
        ['--client-id', CLIENT_ID],
      );
      expectGreen(run, UPLOAD_STRATEGIES, msi);
      const mine = msi.issued.slice(before);
      expect(mine.length).toBeGreaterThan(0);
      for (const issued of mine) expect(issued.params.client_id).toBe(CLIENT_ID);
    }, 120_000);
  });

  describe('workload identity (AKS: AZURE_FEDERATED_TOKEN_FILE, AZURE_CLIENT_ID, AZURE_TENANT_ID)', () => {
    let authority: Awaited<ReturnType<typeof startAuthorityServer>>;
    let vars: Record<string, string>;
    beforeAll(async () => {
      authority = await startAuthorityServer(CLIENT_ID, FEDERATED_TOKEN);
      const tokenFile = join(dir, 'federated-token');
      const authorityCa = join(dir, 'authority-ca.pem');
      await writeFile(tokenFile, FEDERATED_TOKEN);
      await writeFile(authorityCa, authority.ca);
      // The authority's certificate is trusted as a cluster's own CA would be: by the process, not by
      // --ca-file.
      vars = {
        AZURE_FEDERATED_TOKEN_FILE: tokenFile,
        AZURE_CLIENT_ID: CLIENT_ID,
        AZURE_TENANT_ID: TENANT,
        AZURE_AUTHORITY_HOST: authority.url,
        NODE_EXTRA_CA_CERTS: authorityCa,
      };
    });
    afterAll(() => authority?.stop());

    it('every download strategy verifies with a token from the client-credentials grant', async () => {
      const run = await runCli('download', {
        ...vars,
        STORAGE_CONTAINER: 'entra-wi',
        FILE_SIZE: '256KB',
        SOURCE_METHOD: 'all',
      });
      expectGreen(run, DOWNLOAD_STRATEGIES, authority);
      expect(authority.issued[0]!.params).toMatchObject({
        client_id: CLIENT_ID,
        scope: 'https://storage.azure.com/.default',
        grant_type: 'client_credentials',
      });
    }, 120_000);

    it('every upload strategy verifies', async () => {
      const run = await runCli('upload', {
        ...vars,
        STORAGE_CONTAINER: 'entra-wi-up',
        FILE_COUNT: '20',
        FILE_SIZE: '10',
        BLOB_CACHER_BLOB_SIZE: '3MB',
        BLOB_CACHER_BLOCK_SIZE: '1MB',
        BLOB_CACHER_UPLOAD_METHOD: 'all',
      });
      expectGreen(run, UPLOAD_STRATEGIES, authority);
    }, 120_000);

    it('a scale-out Job of 2 clients meets and leaves its results in the account with the same ' +
      'identity, and collect merges them', async () => {
      // The default lead (3 s): Last-Modified has whole seconds, and a busy machine (CI) saw the last marker
      // after a 1 s lead.
      const job = {
        ...vars,
        STORAGE_CONTAINER: 'entra-wi-k8s',
        FILE_COUNT: '20',
        FILE_SIZE: '10',
        BLOB_CACHER_UPLOAD_METHOD: 'small-files',
        BLOB_CACHER_PARALLELISM: '2',
        BLOB_CACHER_RUN_ID: 'wi-run-1',
        BLOB_CACHER_START_LEAD: '3s',
        BLOB_CACHER_BARRIER_TIMEOUT: '60s',
      };
      const clients = await Promise.all(
        [0, 1].map((i) => runCli('upload', { ...job, BLOB_CACHER_INDEX: String(i) })),
      );
      for (const c of clients) {
        expect(c.code, c.output.slice(-3000)).toBe(0);
        expect(c.output).toMatch(/all 2 clients ready/);
        expectNoToken(c, authority);
      }
      const collected = await runCli('collect', { ...vars, STORAGE_CONTAINER: 'entra-wi-k8s' }, [
        '--run-id',
        'wi-run-1',
      ]);
      expect(collected.code, collected.output.slice(-3000)).toBe(0);
      expect(collected.output).toContain('blob-cacher collect: run wi-run-1, 2 client(s), 2 with results');
      for (const { token } of authority.issued) expect(collected.output.includes(token)).toBe(false);
    }, 180_000);
  });

  it('a token that expires during the session is renewed between runs, and every run verifies', async () => {
    // Three-second tokens, each answered after 150 ms, and a session of 25 runs, each of which gets
    // a renewed token before it starts: the session outlasts the first token by seconds, whatever
    // the machine's speed, and the later runs can only pass with a renewed token.
    const msi = await startManagedIdentityServer(IDENTITY_HEADER, { lifetimeS: 3, delayMs: 150 });
    try {
      const run = await runCli('download', {
        IDENTITY_ENDPOINT: msi.url,
        IDENTITY_HEADER,
        STORAGE_CONTAINER: 'entra-renew',
        FILE_SIZE: '256KB',
        SOURCE_METHOD: 'all',
        BLOB_CACHER_RUNS: '5',
      });
      expect(run.code, run.output.slice(-3000)).toBe(0);
      const doc = JSON.parse(run.results) as { runs: { verified: boolean }[] };
      expect(doc.runs).toHaveLength(25);
      expect(doc.runs.every((r) => r.verified)).toBe(true);
      expect(msi.issued.length).toBeGreaterThanOrEqual(2);
      // The session outlived its first token: what ran after that went with a renewed one.
      expect(msi.issued.at(-1)!.atMs).toBeGreaterThan(msi.issued[0]!.expiresOnMs);
      expectNoToken(run, msi);
    } finally {
      await msi.stop();
    }
  }, 120_000);

  it('a steady run longer than its token: the coordinator renews it during the run and the workers ' +
    '(ours and the SDK) use the new one', async () => {
    // Three-second tokens and a 7 s run: Azurite checks `exp` strictly, so every request after the
    // third second would be refused with the token the run started with.
    const msi = await startManagedIdentityServer(IDENTITY_HEADER, { lifetimeS: 3, delayMs: 150 });
    try {
      const run = await runCli('download', {
        IDENTITY_ENDPOINT: msi.url,
        IDENTITY_HEADER,
        STORAGE_CONTAINER: 'entra-steady',
        FILE_SIZE: '256KB',
        SOURCE_METHOD: 'chunked,sdk',
        BLOB_CACHER_DURATION: '7s',
        BLOB_CACHER_INTERVAL: '500ms',
      });
      expect(run.code, run.output.slice(-3000)).toBe(0);
      const doc = JSON.parse(run.results) as {
        runs: {
          strategy: string;
          verified: boolean;
          failedRequests: number;
          steady: { series: { ops: number; errors: number }[] };
        }[];
      };
      expect(doc.runs.map((r) => r.strategy)).toEqual(['chunked', 'sdk']);
      for (const r of doc.runs) {
        expect(r.verified, r.strategy).toBe(true);
        expect(r.failedRequests, r.strategy).toBe(0);
        // Requests went on, without errors, in every interval after the first token had expired.
        const late = r.steady.series.slice(8, 13);
        expect(
          late.every((p) => p.ops > 0 && p.errors === 0),
          `${r.strategy}: ${JSON.stringify(late)}`,
        ).toBe(true);
      }
      // Renewed during each run, not only between runs: several tokens per 7 s run.
      expect(msi.issued.length).toBeGreaterThanOrEqual(6);
      expectNoToken(run, msi);
    } finally {
      await msi.stop();
    }
  }, 120_000);

  it('a token for another audience: one line naming the role and the audience, exit ' +
    '2, before any run', async () => {
    const msi = await startManagedIdentityServer(IDENTITY_HEADER, { audience: 'https://vault.azure.net' });
    try {
      const run = await runCli('download', {
        IDENTITY_ENDPOINT: msi.url,
        IDENTITY_HEADER,
        STORAGE_CONTAINER: 'entra-audience',
        FILE_SIZE: '64KB',
        LOG_LEVEL: 'info',
      });
      expect(run.code, run.output).toBe(2);
      const errors = run.output.split('\n').filter((l) => l.startsWith('blob-cacher: '));
      expect(errors, run.output).toHaveLength(1);
      expect(errors[0]).toMatch(
        new RegExp(
          String.raw`refused the token \(HTTP 403 AuthenticationFailed: Invalid ` +
            String.raw`token audience\.\); assign the role "Storage Blob Data Contributor" on the ` +
            String.raw`account \(or the container\) to this identity, and check that the token's ` +
            String.raw`audience is https:\/\/storage\.azure\.com$`,
        ),
      );
      expect(run.output).not.toContain('    at ');
      expect(run.output).not.toContain(msi.issued[0]!.token);
    } finally {
      await msi.stop();
    }
  }, 120_000);

  it('no token to be had (the identity endpoint refuses): one line naming why and ' +
    'what to do, exit 2', async () => {
    const msi = await startManagedIdentityServer(IDENTITY_HEADER);
    try {
      const run = await runCli('download', {
        IDENTITY_ENDPOINT: msi.url,
        IDENTITY_HEADER: 'not-the-header',
        STORAGE_CONTAINER: 'entra-none',
        LOG_LEVEL: 'info',
      });
      expect(run.code, run.output).toBe(2);
      expect(msi.refused.length).toBeGreaterThan(0);
      const errors = run.output.split('\n').filter((l) => l.startsWith('blob-cacher: '));
      expect(errors, run.output).toHaveLength(1);
      expect(errors[0]).toMatch(
        new RegExp(
          '^blob-cacher: could not get an Entra ID token for https:' +
            String.raw`\/\/storage\.azure\.com\/\.default \(ManagedIdentityCredential: ` +
            String.raw`Authentication failed\. .*\); run where a managed identity or workload ` +
            'identity is available',
        ),
      );
      expect(run.output).not.toContain('    at ');
    } finally {
      await msi.stop();
    }
  }, 120_000);

  it('a token refused during a run (the identity lost its role): the run fails naming the fix', async () => {
    // In process, so that the token server can change what it issues between opening the target
    // (preflight and fixtures pass) and the first run, whose job gets a renewed token.
    const opts: TokenOptions = { lifetimeS: 3, audience: STORAGE_AUDIENCE };
    const msi = await startManagedIdentityServer(IDENTITY_HEADER, opts);
    const saved = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => /^(AZURE_|IDENTITY_|MSI_)/.test(k)),
    );
    for (const k of Object.keys(saved)) delete process.env[k];
    Object.assign(process.env, { IDENTITY_ENDPOINT: msi.url, IDENTITY_HEADER });
    setLogLevel('error');
    try {
      const config = testConfig('download', {
        logLevel: 'error',
        sourceMethod: 'all',
        concurrency: 4,
        fileSizeBytes: 64 * 1024,
        processes: 1,
        maxSockets: 4,
        sink: 'memory',
        bufferSizeBytes: 64 * 1024,
        httpClient: 'raw',
        container: 'entra-refused',
        cleanup: false,
        runs: 1,
        warmup: 0,
        format: 'console',
        maxRetries: 0,
        timeoutMs: 30_000,
        trace: true,
        credentials: { kind: 'entra', account: azurite.account, endpoint: azurite.endpoint, caFile },
      });
      const run = await runDownload(config, {
        onEvent: (e) => {
          if (e.type === 'cell') opts.audience = 'https://vault.azure.net';
        },
      });
      expect(run.results.map((r) => r.strategy)).toEqual(DOWNLOAD_STRATEGIES);
      for (const r of run.results) {
        expect(r.verified, r.strategy).toBe(false);
        expect(r.verification, r.strategy).toContain(`; ${TOKEN_REFUSED_FIX}`);
      }
      expect(run.results[0]!.verification).toMatch(/request\(s\) failed: HTTP 403 AuthenticationFailed/);
    } finally {
      delete process.env.IDENTITY_ENDPOINT;
      delete process.env.IDENTITY_HEADER;
      Object.assign(process.env, saved);
      await msi.stop();
    }
  }, 120_000);
});
