// A target as the coordinator holds it, one interface over a blob service, the embedded Azurite and
// a plain URL (storage/open-target.ts makes one); and how requests to a target are signed. A job
// carries the target as plain data (target-info.ts); the SDK client is only built where fixtures or
// baselines need it.
import { readRegularFile } from '../results/bounded-read.js';
import { createAgent } from '../transport/request.js';
import type { ServerClockView } from '../metrics/server-clock.js';
import type { Agent } from 'node:http';
import type { ContainerClient, StoragePipelineOptions } from '@azure/storage-blob';
import type { TokenCredential } from '@azure/identity';
import { ConfigError, ToldError } from '../vocabulary/errors.js';
import { log, registerCredential, registerSecret } from '../log/logger.js';
import type { FixtureList } from '../plan/items.js';
import { heldToken, type Bearer, type TokenSource } from './entra.js';
import type { UploadStore } from './blob-store.js';
import type { PreflightOptions } from './preflight.js';
import {
  blobServiceOf,
  withBearer,
  type BlobServiceInfo,
  type PlainUrlInfo,
  type TargetInfo,
  type TargetTraits,
} from './target-info.js';
import { STORAGE_API_VERSION } from './api-version.js';
import { signSharedKey } from './sharedkey.js';

export type { BlobServiceInfo, PlainUrlInfo, TargetInfo, TargetTraits } from './target-info.js';
export { PLAIN_PUT_STATUSES } from './target-info.js';

/** Blobs a download session found (reused) and wrote (created): --cleanup or a stop removes these. */
export interface FixtureState {
  /** Blobs this session wrote: --cleanup (or an interrupted run) removes these. */
  created: string[];
  /** How many were there already, with their size and MD5. */
  reused: number;
}

export interface FixtureOptions {
  timeoutMs: number;
  /** Retries of a fixture's request, as a run's requests have (--max-retries). */
  maxRetries?: number;
  signal?: AbortSignal;
  /** No credential to write with (anonymous): fixtures are only checked. */
  readOnly?: boolean;
}

/**
 * Makes and removes download fixtures at one kind of site: payload/ has one for a container and
 * one for a plain URL's folder (it sits above storage); the target picks its own.
 */
export interface FixtureWriter<Site> {
  ensure(site: Site, lists: readonly FixtureList[], opts: FixtureOptions): Promise<FixtureState>;
  remove(site: Site, created: readonly string[], timeoutMs: number): Promise<void>;
}

export interface FixtureWriters {
  container: FixtureWriter<ContainerClient>;
  url: FixtureWriter<PlainUrlInfo>;
}

/** A download session's fixtures, made: what it found, and how to remove what it wrote. */
export interface DownloadFixtures {
  state: FixtureState;
  /**
   * Removes what the session wrote (fixtures, a container it created), as --cleanup or a stop asks;
   * nothing from a target whose blobs end with its process.
   */
  removeCreated(): Promise<void>;
}

export interface FixtureSetup extends FixtureOptions {
  /** A many-blob set (on a plain URL: paths below it); otherwise one object. */
  set: boolean;
  /** A scale-out client's: a container it created may hold the other clients' markers, and stays. */
  keepContainer: boolean;
}

/** Where uploads go and the store that reads them back and deletes them. */
export interface UploadSite {
  info: TargetInfo;
  store: UploadStore;
}

export interface UploadSiteOptions {
  timeoutMs: number;
  /** --keep: nothing is deleted, a probe left behind included. */
  keep: boolean;
  signal: AbortSignal;
}

/**
 * A target as the coordinator holds it: a blob service (an account, the embedded Azurite) or a plain
 * URL. What differs among them is here, as facts (`traits`) and methods: the engine never asks which
 * one it holds.
 */
export interface Target {
  info: TargetInfo;
  readonly traits: TargetTraits;
  /** Human description without secrets. */
  label: string;
  /** The server's own clock, where we run the server (the embedded Azurite, in a process of its own). */
  serverClock?: ServerClockView;
  /** Entra ID: where every token comes from (the coordinator's SDK client and each run's job). */
  tokens?: TokenSource;
  /**
   * A target in a process of ours (the embedded Azurite): resolves, with the line that says so, if it dies
   * unasked.
   */
  lost?: Promise<string>;
  /** Downloads: the target the runs carry (a plain URL with a many-blob set: the folder of its files). */
  forDownloads(set: boolean): TargetInfo;
  /** A one-object download: the object's size where the target holds its own (a plain URL's, by HEAD). */
  objectSizeBytes(opts: PreflightOptions): Promise<number | undefined>;
  /** Checks the target for downloads and makes what `lists` name, with the writer for its kind. */
  openFixtures(
    lists: readonly FixtureList[],
    writers: FixtureWriters,
    opts: FixtureSetup,
  ): Promise<DownloadFixtures>;
  /** Checks the target for uploads (a plain URL: one PUT and DELETE) and opens the store behind them. */
  openUploads(prefix: string, opts: UploadSiteOptions): Promise<UploadSite>;
  stop(): Promise<void>;
}

/** A --ca-file's certificates, read once by the coordinator; workers get them with their job. */
/** A CA bundle is a few hundred KiB (Mozilla's whole set is ~220 KiB). */
const MAX_CA_FILE_BYTES = 16 * 1024 * 1024;

export async function readCa(path: string): Promise<string> {
  // A FIFO or a device is refused, not opened for good: a blocked open() cannot be stopped.
  const pem = (
    await readRegularFile(path, {
      maxBytes: MAX_CA_FILE_BYTES,
      what: '--ca-file',
      fix: 'give a PEM file of the CA certificate(s) (BLOB_CACHER_CA_FILE, --ca-file)',
    })
  ).toString('utf8');
  if (!pem.includes('-----BEGIN CERTIFICATE-----'))
    throw new ConfigError(
      `--ca-file ${path} holds no PEM certificate (-----BEGIN CERTIFICATE-----); give the CA in PEM`,
    );
  // In place of the defaults, not besides them: with Node's ~150 roots in `ca`, every TLS connection
  // would parse them all again, inside the tls phase being measured.
  return pem;
}

/**
 * The signal a target's set-up (preflight, fixtures) runs under: the session's, and aborted at once
 * when the target's own process dies, with the line that says so as its reason (a `TargetLost`).
 */
export function whileAlive(target: Target, signal: AbortSignal): AbortSignal {
  if (!target.lost) return signal;
  const died = new AbortController();
  void target.lost.then((why) => died.abort(new TargetLost(why)));
  return AbortSignal.any([signal, died.signal]);
}

/** Why set-up stopped: the target's process died; `message` is the line that says so. */
export class TargetLost extends Error {}

/**
 * The set-up's failure as the session ends with it: a target that died is said at once, in one line,
 * and ends the command with exit 1 (ToldError); anything else as it was.
 */
export function setupFailure(err: unknown, setup: AbortSignal): unknown {
  if (!(setup.reason instanceof TargetLost)) return err;
  log.error(`${setup.reason.message}: ending the session`);
  return new ToldError(1, setup.reason.message);
}

/**
 * The target as one run's job carries it, made before the barrier: with Entra ID, a token good for
 * the whole run (a new one when the one held expires soon). Workers never fetch a token themselves.
 */
export async function forRun(
  target: Target,
  info: TargetInfo = target.info,
  signal?: AbortSignal,
): Promise<TargetInfo> {
  if (!target.tokens || !target.traits.blobService) return info;
  return withBearer(info, await target.tokens.current(signal));
}

/** For the session: how a run gets the token it should carry now, where the target takes Entra ID tokens. */
export function tokenOf(target: Target): { token?: (signal?: AbortSignal) => Promise<Bearer> } {
  const tokens = target.tokens;
  return tokens ? { token: (signal) => tokens.current(signal) } : {};
}

/**
 * The coordinator's SDK client (preflight, fixtures, verification, cleanup): with Entra ID its token
 * comes from the source, renewed when it expires soon; none of these is ever inside a timed window.
 */
export function coordinatorClient(target: Target): Promise<ContainerClient> {
  const info = blobServiceOf(target.info);
  if (!info) throw new Error('a plain URL has no container');
  const tokens = target.tokens;
  return containerClient(info, tokens ? { credential: heldToken(() => tokens.current()) } : {});
}

/** Bounded SDK retries: its default backs off for minutes against an unreachable host. */
const SDK_PIPELINE: StoragePipelineOptions = {
  retryOptions: { maxTries: 3, retryDelayInMs: 200, maxRetryDelayInMs: 2000, tryTimeoutInMs: 60_000 },
};

/**
 * The SDK is loaded on first use only: a plain-URL run, or a worker making its own requests, never
 * pays its memory and start-up time.
 */
export async function containerClient(
  info: BlobServiceInfo,
  opts: { agent?: Agent; credential?: TokenCredential } = {},
): Promise<ContainerClient> {
  const { AnonymousCredential, BlobServiceClient, StorageSharedKeyCredential } = await import(
    '@azure/storage-blob'
  );
  // An agent of its own (the SDK passes `agent` through to its pipeline): by default every client
  // in a process shares one keep-alive agent, so a baseline would reuse the sockets of its last run.
  // A private CA needs an agent that trusts it; otherwise the SDK's own.
  const agent = opts.agent ?? (info.ca ? createAgent(new URL(info.endpoint), 64, info.ca) : undefined);
  const pipeline: StoragePipelineOptions & { agent?: Agent } = agent
    ? { ...SDK_PIPELINE, agent }
    : SDK_PIPELINE;
  if (info.key) {
    const service = new BlobServiceClient(
      info.endpoint,
      new StorageSharedKeyCredential(info.account, info.key),
      pipeline,
    );
    return service.getContainerClient(info.container);
  }
  // A token: the one this job carries (a worker, a static credential) or the coordinator's source.
  // Read from the target on every ask: a token renewed during a run (a worker's 'token' message) is used.
  const credential = opts.credential ?? (info.bearer ? heldToken(() => info.bearer!) : undefined);
  if (credential)
    return new BlobServiceClient(info.endpoint, credential, pipeline).getContainerClient(info.container);
  const service = new BlobServiceClient(
    info.sas ? `${info.endpoint}?${info.sas}` : info.endpoint,
    new AnonymousCredential(),
    pipeline,
  );
  return service.getContainerClient(info.container);
}

/** Builds signed requests for one target; one per worker, reused for every request. */
export class RequestSigner {
  private readonly keyBytes?: Buffer;
  private readonly below?: (name: string) => URL;
  readonly info: TargetInfo;
  constructor(info: TargetInfo) {
    this.info = info;
    if (info.kind === 'url' && info.folder) this.below = urlsBelow(info.url);
    if (info.kind === 'blob' && info.key) this.keyBytes = Buffer.from(info.key, 'base64');
    // A worker's own logger masks the token its job brought, as the coordinator's does.
    if (info.kind === 'blob' && info.bearer) registerSecret(info.bearer.token);
    // A password in a plain URL (user:pw@host) goes out as Basic auth; in every process that signs
    // requests, it is kept out of the log lines that show a request's URL.
    if (info.kind === 'url') registerCredential(info.url);
    // A key and a SAS (its signature alone, decoded, too): an SDK error in a worker may quote them.
    if (info.kind === 'blob') {
      registerCredential(info.key);
      registerCredential(info.sas);
    }
  }

  blobUrl(blobName?: string): URL {
    if (this.info.kind === 'url') return this.below ? this.below(blobName!) : new URL(this.info.url);
    const path = blobName!.split('/').map(encodeURIComponent).join('/');
    const base = `${this.info.endpoint}/${encodeURIComponent(this.info.container)}/${path}`;
    return new URL(this.info.sas ? `${base}?${this.info.sas}` : base);
  }

  /**
   * headers() gives the same headers for the same request every time: no signature over the date
   * and no token that is renewed during a run. A request can then be made once, before the barrier.
   */
  get fixedHeaders(): boolean {
    return this.info.kind === 'url' || (!this.keyBytes && !this.info.bearer);
  }

  /** Returns headers for `method` on `url`: signed (SharedKey), with the run's bearer token, or neither. */
  headers(method: string, url: URL, extra: Record<string, string> = {}): Record<string, string> {
    if (this.info.kind === 'url') return extra;
    const headers: Record<string, string> = { 'x-ms-version': STORAGE_API_VERSION, ...extra };
    if (this.keyBytes) return signSharedKey(method, url, headers, this.info.account, this.keyBytes);
    if (this.info.bearer) headers.authorization = `Bearer ${this.info.bearer.token}`;
    return headers;
  }
}

/**
 * Names as paths below `base`, a folder with or without its final slash; its query is kept. The
 * base is parsed once: a URL per name is then one parse of a string, cheaper than parsing the base
 * and setting the path each time.
 */
function urlsBelow(base: string): (name: string) => URL {
  const url = new URL(base);
  const query = url.search;
  url.search = '';
  url.hash = '';
  url.pathname = url.pathname.replace(/\/*$/, '');
  const folder = url.href.replace(/\/$/, '');
  return (name) => new URL(`${folder}/${name.split('/').map(encodeURIComponent).join('/')}${query}`);
}
