// The zero-config target: an Azurite blob server in the calling process (for a run, the embedded
// target's own process, azurite-process.ts; tests and the bench call it in theirs), in memory, on a
// free loopback port, fresh for each run. Deep imports, because require('azurite') loads vscode.
import type { Server } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { makeScratchDir } from '../payload/scratch.js';
import { embeddedStoreBytes, machineLimits, readMachine } from '../metrics/machine-limits.js';
import { throwawayCertificate } from './tls.js';

const require = createRequire(import.meta.url);

export const AZURITE_ACCOUNT = 'devstoreaccount1';
/** Azurite's published development key; public, not a secret. */
export const AZURITE_KEY =
  'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

interface AzuriteServer {
  start(): Promise<void>;
  close(): Promise<void>;
  clean(): Promise<void>;
  getHttpServerAddress(): string;
  /** Azurite's ServerBase keeps its http server here (not part of its typed API). */
  httpServer: Server;
}

export interface EmbeddedAzurite {
  endpoint: string;
  /** Over HTTPS: the throwaway certificate (PEM) its clients must trust. */
  ca?: string;
  account: string;
  key: string;
  /** Its http server, for observers only (the benchmark suite times every client on the server's clock). */
  httpServer: Server;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /**
   * The most its in-memory store holds; unset: from the machine (embeddedStoreBytes), a container's limit
   * first.
   */
  memoryLimitBytes?: number;
  /** Serve HTTPS at https://localhost:<port> with a certificate made for this run. */
  tls?: boolean;
  /**
   * With tls: also accept Entra ID bearer tokens (Azurite's `--oauth basic`: audience, issuer and
   * lifetime are checked, signatures are not), for tests of --auth entra against token servers of their own.
   */
  oauth?: boolean;
}

export async function startEmbeddedAzurite(opts: EmbeddedOptions = {}): Promise<EmbeddedAzurite> {
  // Under a container's memory limit, Azurite's own cap (half the host's RAM) is more than the
  // container holds: where a full store refuses a write (a failed request, said as such), the
  // kernel would kill the whole process instead.
  const memoryLimitBytes = opts.memoryLimitBytes ?? embeddedStoreBytes(machineLimits(readMachine()));
  // Azurite reads its certificate from files: a private scratch directory, removed at stop.
  const tls = opts.tls ? await throwawayCertificate() : undefined;
  const scratch = tls ? await makeScratchDir() : undefined;
  if (tls && scratch) {
    await writeFile(scratch.path('cert.pem'), tls.cert, { mode: 0o600 });
    await writeFile(scratch.path('key.pem'), tls.key, { mode: 0o600 });
  }
  const server = azuriteServer(
    memoryLimitBytes,
    scratch && { cert: scratch.path('cert.pem'), key: scratch.path('key.pem') },
    Boolean(tls && opts.oauth),
  );
  await server.start();
  // By name over HTTPS, as every real account is: the dns phase is measured too.
  const address = tls
    ? server.getHttpServerAddress().replace('//127.0.0.1:', '//localhost:')
    : server.getHttpServerAddress();
  return {
    endpoint: `${address}/${AZURITE_ACCOUNT}`,
    ...(tls ? { ca: tls.cert } : {}),
    account: AZURITE_ACCOUNT,
    key: AZURITE_KEY,
    httpServer: server.httpServer,
    async stop() {
      await server.close();
      await server.clean();
      await scratch?.remove();
    },
  };
}

/** Azurite's blob server, in memory, over TLS where given the certificate's files. */
function azuriteServer(
  memoryLimitBytes: number | undefined,
  files: { cert: string; key: string } | undefined,
  oauth: boolean,
): AzuriteServer {
  const BlobServer = require('azurite/dist/src/blob/BlobServer.js').default as new (
    cfg: unknown,
  ) => AzuriteServer;
  const BlobConfiguration = require('azurite/dist/src/blob/BlobConfiguration.js').default as new (
    ...args: unknown[]
  ) => unknown;
  const { MemoryExtentChunkStore, DEFAULT_EXTENT_MEMORY_LIMIT } =
    require('azurite/dist/src/common/persistence/MemoryExtentStore.js') as {
      MemoryExtentChunkStore: new (limit?: number) => unknown;
      DEFAULT_EXTENT_MEMORY_LIMIT: number;
    };
  // Positional constructor: host, port, keepAliveTimeout, metadataDBPath, extentDBPath, persistence,
  // accessLog, accessLogStream, debugLog, debugLogPath, loose, skipApiVersionCheck, cert, key, pwd,
  // oauth, disableProductStyleUrl, inMemory, memoryStore. Telemetry is only started by Azurite's
  // own main(), which we never call.
  const config = new BlobConfiguration(
    '127.0.0.1',
    0,
    undefined,
    undefined,
    undefined,
    undefined,
    false,
    undefined,
    false,
    undefined,
    true,
    true,
    files ? files.cert : '',
    files ? files.key : '',
    '',
    oauth ? 'basic' : undefined,
    false,
    true,
    new MemoryExtentChunkStore(memoryLimitBytes ?? DEFAULT_EXTENT_MEMORY_LIMIT),
  );
  return new BlobServer(config);
}
