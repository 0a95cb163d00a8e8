// A target as a job carries it (plain data, sent to worker processes, an Entra ID token included),
// and what differs among the three targets, declared once per target as facts. Code outside
// storage/ asks these facts (traitsOf) and never tests which target it holds.
import type { Bearer } from './entra.js';

/** What a successful PUT to a blob service answers: 201 Created. */
const BLOB_PUT_STATUSES: readonly number[] = [201];

/** What a plain HTTP server answers a successful PUT with: 201 Created, 204 for an overwrite, or 200. */
export const PLAIN_PUT_STATUSES: readonly number[] = [200, 201, 204];

/**
 * `ca`: the certificates (PEM) this run's clients trust, instead of Node's defaults: the embedded
 * target's throwaway one, or --ca-file's. `bearer`: an Entra ID token, fetched by the coordinator before
 * the run. None of key, sas and bearer: anonymous (public read access).
 */
export interface BlobServiceInfo {
  kind: 'blob';
  embedded: boolean;
  endpoint: string;
  container: string;
  account: string;
  key?: string;
  sas?: string;
  bearer?: Bearer;
  ca?: string;
}

/** `folder`: uploads, where each blob name is a path below the URL; otherwise the URL is the object. */
export interface PlainUrlInfo {
  kind: 'url';
  url: string;
  folder?: boolean;
}

export type TargetInfo = PlainUrlInfo | BlobServiceInfo;

/** What differs among the targets (a blob service, the embedded Azurite, a plain URL). */
export interface TargetTraits {
  /** Containers, listings, staged blocks and the SDK: Azure Storage or Azurite, not a plain server. */
  readonly blobService: boolean;
  /** Its blobs live in its own process and end with it (the embedded Azurite): nothing to delete. */
  readonly ephemeral: boolean;
  /** Past this many blobs per run its time grows superlinearly; none: no such bound known. */
  readonly blobLimit?: number;
  /** What a blob name is below it, as a log line says. */
  readonly nameWord: 'blob' | 'path';
  /** The header a ranged GET names its range in. */
  readonly rangeHeader: 'x-ms-range' | 'range';
  /** The headers a Put Blob of a whole object carries besides its length. */
  readonly putHeaders: Readonly<Record<string, string>>;
  /** What a successful PUT answers. */
  readonly putStatuses: readonly number[];
  /** What a successful DELETE answers: Delete Blob 202 Accepted; a plain server 204, or 200 with a body. */
  readonly deleteStatuses: readonly number[];
  /**
   * It keeps each blob's MD5 and answers Put Blob and HEAD with it; a plain server keeps none: uploads
   * are read back, HEADs checked by length.
   */
  readonly storesMd5: boolean;
  /**
   * A download's one object is a fixture of ours, its content known from the seed; at a plain URL
   * it is whatever the server holds, with no source MD5 to compare with.
   */
  readonly objectIsFixture: boolean;
}

/**
 * Past this many blobs per run the embedded Azurite's time grows superlinearly (README, "Embedded target").
 */
export const EMBEDDED_BLOB_LIMIT = 2_500;

const BLOB_SERVICE: TargetTraits = {
  blobService: true,
  ephemeral: false,
  nameWord: 'blob',
  rangeHeader: 'x-ms-range',
  putHeaders: { 'x-ms-blob-type': 'BlockBlob', 'content-type': 'application/octet-stream' },
  putStatuses: BLOB_PUT_STATUSES,
  deleteStatuses: [202],
  storesMd5: true,
  objectIsFixture: true,
};

const EMBEDDED_AZURITE: TargetTraits = { ...BLOB_SERVICE, ephemeral: true, blobLimit: EMBEDDED_BLOB_LIMIT };

const PLAIN_URL: TargetTraits = {
  blobService: false,
  ephemeral: false,
  nameWord: 'path',
  rangeHeader: 'range',
  putHeaders: {},
  putStatuses: PLAIN_PUT_STATUSES,
  deleteStatuses: [200, 204],
  storesMd5: false,
  objectIsFixture: false,
};

export function traitsOf(info: TargetInfo): TargetTraits {
  if (info.kind === 'url') return PLAIN_URL;
  return info.embedded ? EMBEDDED_AZURITE : BLOB_SERVICE;
}

/** The blob service a target is, for what only a blob service has (containers, listings, the SDK). */
export const blobServiceOf = (info: TargetInfo): BlobServiceInfo | undefined =>
  info.kind === 'blob' ? info : undefined;

/** A plain URL's own fields (its URL, whether it is a folder); undefined for a blob service. */
export const plainUrlOf = (info: TargetInfo): PlainUrlInfo | undefined =>
  info.kind === 'url' ? info : undefined;

/** The Entra ID token the target carries, if any. */
export const bearerOf = (info: TargetInfo): Bearer | undefined =>
  info.kind === 'blob' ? info.bearer : undefined;

/** How a blob service is signed in to, as the container's preflight names it. */
export const authOf = (info: TargetInfo): 'entra' | 'secret' => (bearerOf(info) ? 'entra' : 'secret');

/** The certificates its clients trust instead of Node's defaults, if any. */
export const caOf = (info: TargetInfo): string | undefined => (info.kind === 'blob' ? info.ca : undefined);

/**
 * A token renewed during a run, put where the signer and the SDK's credential read it on every
 * request. A target without one takes none.
 */
export function renewBearer(info: TargetInfo, bearer: Bearer): void {
  if (info.kind === 'blob') info.bearer = bearer;
}

/** The target with a fresh token, where it carries one (a run's job, made before the barrier). */
export const withBearer = (info: TargetInfo, bearer: Bearer): TargetInfo =>
  info.kind === 'blob' ? { ...info, bearer } : info;

/** A plain URL as a folder: each blob name a path below it. A blob service is unchanged. */
export const asFolder = (info: TargetInfo): TargetInfo =>
  info.kind === 'url' ? { ...info, folder: true } : info;
