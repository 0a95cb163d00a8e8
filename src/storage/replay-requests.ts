// A replayed step as one request to the target: the blob service's own operations on an account
// or the embedded Azurite; a plain URL folder takes GET, PUT, HEAD and DELETE of a path below it
// and has no listing or blocks. Signed when it is sent (a SharedKey signature covers the date).
import type { HttpRequest } from '../transport/http-client.js';
import { HASHED_PREFIX, type ReplayOp, type ReplayStep } from '../plan/replay.js';
import { blockListXml } from './blob-requests.js';
import { listPageUrl } from './list-blobs.js';
import { preflightContainer, preflightUrlUpload } from './preflight.js';
import {
  coordinatorClient,
  PLAIN_PUT_STATUSES,
  RequestSigner,
  type Target,
  type TargetInfo,
} from './target.js';

/** A listing's page, as a List Blobs call of the SDK asks by default. */
const LIST_PAGE = 5000;

const BLOB_ONLY: ReadonlySet<ReplayOp> = new Set(['list', 'put-block', 'put-block-list']);

/** Whether the target sends `op`: a plain URL folder has no listing and no blocks. */
export const replayable = (info: TargetInfo, op: ReplayOp): boolean =>
  info.kind === 'blob' || !BLOB_ONLY.has(op);

/** The target as the replay addresses it: a plain URL is a folder whose paths are the names. */
export function replaySigner(info: TargetInfo): RequestSigner {
  return new RequestSigner(info.kind === 'url' ? { ...info, folder: true } : info);
}

/** The certificates a client of this target trusts instead of the defaults, where it names some. */
export const targetCa = (info: TargetInfo): string | undefined =>
  info.kind === 'blob' ? info.ca : undefined;

type Method = NonNullable<HttpRequest['method']>;

interface Shape {
  url: URL;
  method: Method;
  extra: Record<string, string>;
  body?: Buffer;
  expect: readonly number[];
}

/**
 * One step's request, without its stop and timeout. `body`: a write's bytes (the step's size);
 * `blocks`: a Put Block's id, or a Put Block List's ids. A status the log recorded as a client error
 * (a 404 of a name already gone) is expected again, as what the recorded client met.
 */
export function replayRequest(
  signer: RequestSigner,
  step: ReplayStep,
  body: Buffer,
  blocks?: string | string[],
): HttpRequest {
  const shape =
    signer.info.kind === 'blob' ? blobShape(signer, step, body, blocks) : plainShape(signer, step, body);
  const recorded = step.recordedStatus;
  const expect =
    recorded !== undefined && recorded >= 400 && recorded < 500 ? [...shape.expect, recorded] : shape.expect;
  const extra = shape.body ? { ...shape.extra, 'content-length': String(shape.body.length) } : shape.extra;
  return {
    url: shape.url,
    method: shape.method,
    headers: signer.headers(shape.method, shape.url, extra),
    ...(shape.body ? { body: shape.body } : {}),
    expectStatus: expect,
  };
}

function blobShape(signer: RequestSigner, step: ReplayStep, body: Buffer, blocks?: string | string[]): Shape {
  const url = step.op === 'list' ? listUrl(signer, step.name) : signer.blobUrl(step.name);
  switch (step.op) {
    case 'get':
      return { url, method: 'GET', extra: {}, expect: [200] };
    case 'head':
      return { url, method: 'HEAD', extra: {}, expect: [200] };
    case 'delete':
      return { url, method: 'DELETE', extra: {}, expect: [202] };
    case 'list':
      return { url, method: 'GET', extra: {}, expect: [200] };
    case 'put':
      return { url, method: 'PUT', extra: { 'x-ms-blob-type': 'BlockBlob' }, body, expect: [201] };
    case 'put-block':
      url.searchParams.set('comp', 'block');
      url.searchParams.set('blockid', typeof blocks === 'string' ? blocks : '');
      return { url, method: 'PUT', extra: {}, body, expect: [201] };
    case 'put-block-list': {
      url.searchParams.set('comp', 'blocklist');
      const list = blockListXml(Array.isArray(blocks) ? blocks : []);
      return { url, method: 'PUT', extra: { 'content-type': 'application/xml' }, body: list, expect: [201] };
    }
  }
}

function listUrl(signer: RequestSigner, prefix: string): URL {
  const info = signer.info;
  if (info.kind !== 'blob') throw new Error('a plain URL has no listing');
  return listPageUrl(info, { prefix, pageSize: LIST_PAGE });
}

function plainShape(signer: RequestSigner, step: ReplayStep, body: Buffer): Shape {
  const url = signer.blobUrl(step.name);
  switch (step.op) {
    case 'get':
      return { url, method: 'GET', extra: {}, expect: [200] };
    case 'head':
      return { url, method: 'HEAD', extra: {}, expect: [200] };
    case 'delete':
      return { url, method: 'DELETE', extra: {}, expect: [200, 202, 204] };
    case 'put':
      return { url, method: 'PUT', extra: {}, body, expect: PLAIN_PUT_STATUSES };
    default:
      throw new Error(`a plain URL folder has no ${step.op}`);
  }
}

/**
 * The target ready for a replay, before anything is timed: a blob service's container exists (made
 * if not) and takes the credentials; a plain URL folder takes a PUT (a probe file, deleted again).
 */
export async function prepareReplayTarget(
  target: Target,
  info: TargetInfo,
  opts: { timeoutMs: number; signal: AbortSignal },
): Promise<void> {
  if (info.kind === 'blob') {
    await preflightContainer(
      await coordinatorClient(target),
      target.label,
      info.bearer ? 'entra' : 'secret',
      opts,
    );
    return;
  }
  const probe = replaySigner(info).blobUrl(`${HASHED_PREFIX}probe-${process.pid}`);
  await preflightUrlUpload(info.url, probe, opts);
}

/** The origin a client of this target connects to. */
export const targetOrigin = (info: TargetInfo): URL =>
  new URL(info.kind === 'blob' ? info.endpoint : info.url);
