// A target is where requests go and how they are signed. TargetInfo is plain data so that it can be
// sent to worker processes; the SDK client is only built where fixtures or baselines need it.
import { createAgent } from '../transport/request.js';
import { ServerClock } from '../metrics/server-clock.js';
import type { Agent } from 'node:http';
import type { ContainerClient, StoragePipelineOptions } from '@azure/storage-blob';
import type { Credentials } from '../config/load.js';
import { registerSecret } from '../log/logger.js';
import { startEmbeddedAzurite } from './azurite.js';
import { STORAGE_API_VERSION } from './api-version.js';
import { signSharedKey } from './sharedkey.js';

export type TargetInfo =
  /** `folder`: uploads, where each blob name is a path below the URL; otherwise the URL is the object. */
  | { kind: 'url'; url: string; folder?: boolean }
  /** `ca`: a certificate (PEM) this run's clients trust, for the embedded target over HTTPS. */
  | { kind: 'blob'; embedded: boolean; endpoint: string; container: string; account: string; key?: string; sas?: string; ca?: string };

export interface Target {
  info: TargetInfo;
  /** Human description without secrets. */
  label: string;
  /** The server's own clock, where the server runs in this process (the embedded Azurite). */
  serverClock?: ServerClock;
  stop(): Promise<void>;
}

export async function openTarget(credentials: Credentials, container: string): Promise<Target> {
  switch (credentials.kind) {
    case 'url':
      return { info: { kind: 'url', url: credentials.url }, label: `url ${new URL(credentials.url).host}`, stop: async () => {} };
    case 'embedded': {
      const azurite = await startEmbeddedAzurite({ tls: credentials.tls });
      const serverClock = new ServerClock(azurite.httpServer);
      return {
        info: { kind: 'blob', embedded: true, endpoint: azurite.endpoint, container, account: azurite.account, key: azurite.key, ...(azurite.ca ? { ca: azurite.ca } : {}) },
        label: `embedded Azurite ${azurite.endpoint}`,
        serverClock,
        stop: async () => {
          serverClock.close();
          await azurite.stop();
        },
      };
    }
    case 'key':
      registerSecret(credentials.key);
      return {
        info: { kind: 'blob', embedded: false, endpoint: credentials.endpoint, container, account: credentials.account, key: credentials.key },
        label: `account ${credentials.account} (SharedKey)`,
        stop: async () => {},
      };
    case 'sas':
      registerSecret(credentials.sas);
      return {
        info: { kind: 'blob', embedded: false, endpoint: credentials.endpoint, container, account: credentials.account, sas: credentials.sas },
        label: `account ${credentials.account} (SAS)`,
        stop: async () => {},
      };
  }
}

/** Bounded SDK retries: its default backs off for minutes against an unreachable host. */
const SDK_PIPELINE: StoragePipelineOptions = { retryOptions: { maxTries: 3, retryDelayInMs: 200, maxRetryDelayInMs: 2000, tryTimeoutInMs: 60_000 } };

/**
 * The SDK is loaded on first use only: a plain-URL run, or a worker making its own requests, never
 * pays its ~40 MiB of memory and start-up time.
 */
export async function containerClient(info: Extract<TargetInfo, { kind: 'blob' }>, opts: { agent?: Agent } = {}): Promise<ContainerClient> {
  const { AnonymousCredential, BlobServiceClient, StorageSharedKeyCredential } = await import('@azure/storage-blob');
  // An agent of its own (the SDK passes `agent` through to its pipeline): by default every client
  // in a process shares one keep-alive agent, so a baseline would reuse the sockets of its last run.
  // A private CA needs an agent that trusts it; otherwise the SDK's own.
  const agent = opts.agent ?? (info.ca ? createAgent(new URL(info.endpoint), 64, info.ca) : undefined);
  const pipeline: StoragePipelineOptions & { agent?: Agent } = agent ? { ...SDK_PIPELINE, agent } : SDK_PIPELINE;
  if (info.key) {
    const service = new BlobServiceClient(info.endpoint, new StorageSharedKeyCredential(info.account, info.key), pipeline);
    return service.getContainerClient(info.container);
  }
  const service = new BlobServiceClient(`${info.endpoint}?${info.sas}`, new AnonymousCredential(), pipeline);
  return service.getContainerClient(info.container);
}

/** Builds signed requests for one target; one per worker, reused for every request. */
export class RequestSigner {
  private readonly keyBytes?: Buffer;
  readonly info: TargetInfo;
  constructor(info: TargetInfo) {
    this.info = info;
    if (info.kind === 'blob' && info.key) this.keyBytes = Buffer.from(info.key, 'base64');
    // A password in a plain URL (user:pw@host) goes out as Basic auth; in every process that signs
    // requests, it is kept out of the log lines that show a request's URL.
    if (info.kind === 'url') registerSecret(new URL(info.url).password);
  }

  blobUrl(blobName?: string): URL {
    if (this.info.kind === 'url') return this.info.folder ? urlBelow(this.info.url, blobName!) : new URL(this.info.url);
    const base = `${this.info.endpoint}/${encodeURIComponent(this.info.container)}/${blobName!.split('/').map(encodeURIComponent).join('/')}`;
    return new URL(this.info.sas ? `${base}?${this.info.sas}` : base);
  }

  /** Returns headers for `method` on `url`, signed when the target uses SharedKey. */
  headers(method: string, url: URL, extra: Record<string, string> = {}): Record<string, string> {
    if (this.info.kind === 'url') return extra;
    const headers = { 'x-ms-version': STORAGE_API_VERSION, ...extra };
    if (this.keyBytes) return signSharedKey(method, url, headers, this.info.account, this.keyBytes);
    return headers;
  }
}

/** `name` as a path below `base`, which is a folder with or without its final slash; its query is kept. */
export function urlBelow(base: string, name: string): URL {
  const url = new URL(base);
  url.pathname = `${url.pathname.replace(/\/*$/, '')}/${name.split('/').map(encodeURIComponent).join('/')}`;
  return url;
}

/** What a plain HTTP server answers a successful PUT with: 201 Created, 204 for an overwrite, or 200. */
export const PLAIN_PUT_STATUSES: readonly number[] = [200, 201, 204];
