// Checks a target before anything is measured, so that wrong credentials, a missing object or an
// unreachable host end with one line (exit 2) instead of a run full of failed requests.
import http from 'node:http';
import https from 'node:https';
import type { ContainerClient } from '@azure/storage-blob';
import { ConfigError } from '../config/errors.js';
import { PLAIN_PUT_STATUSES } from './target.js';

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET']);

function networkCode(err: unknown): string | undefined {
  for (let e = err as { code?: string; cause?: unknown } | undefined, depth = 0; e && depth < 4; e = e.cause as typeof e, depth++) {
    if (e.code && NETWORK_CODES.has(e.code)) return e.code;
  }
  return undefined;
}

interface PlainAnswer {
  status: number;
  statusText: string;
  headers: http.IncomingHttpHeaders;
}

/**
 * One request through node:http, its body read and dropped. Not fetch: fetch refuses ports it
 * deems unsafe (6000, 6665, …), which our GET and PUT clients reach fine.
 */
function plainRequest(url: URL | string, method: 'HEAD' | 'PUT' | 'DELETE', body?: Buffer): Promise<PlainAnswer> {
  const u = new URL(url);
  const transport = u.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = transport.request(u, { method, headers: body ? { 'content-length': String(body.length) } : {}, timeout: 30_000 }, (res) => {
      res.resume();
      res.on('end', () => resolve({ status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', headers: res.headers }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(Object.assign(new Error('no answer in 30 s'), { code: 'ETIMEDOUT' })));
    req.on('error', reject);
    req.end(body);
  });
}

/** The container exists (or is created) and the credentials are accepted. */
export async function preflightContainer(container: ContainerClient, label: string): Promise<void> {
  try {
    await container.createIfNotExists();
  } catch (err) {
    const e = err as { statusCode?: number; code?: string; details?: { errorCode?: string } };
    const code = networkCode(err);
    const host = new URL(container.url).host;
    if (code) throw new ConfigError(`cannot reach ${host} (${code}); check the account name, endpoint or network`);
    if (e.statusCode === 403) {
      throw new ConfigError(`${label} rejected the credentials (HTTP 403 ${e.details?.errorCode ?? e.code ?? ''}`.trim() + '); check STORAGE_KEY / STORAGE_SAS (a SAS needs read, write, create, list, delete)');
    }
    if (e.statusCode === 404) throw new ConfigError(`${label} has no such account or container (HTTP 404); check STORAGE_ACCOUNT and STORAGE_CONTAINER`);
    throw err;
  }
}

/** A plain URL answers HEAD with a size; returns it. */
export async function preflightUrl(url: string): Promise<number> {
  const shown = new URL(url);
  shown.search = '';
  let res: PlainAnswer;
  try {
    res = await plainRequest(url, 'HEAD');
  } catch (err) {
    throw new ConfigError(`cannot reach ${shown.host} (${fetchFailure(err)}); check --url`);
  }
  if (res.status === 404) throw new ConfigError(`${shown} answered 404 Not Found; check --url`);
  if (res.status === 401 || res.status === 403) throw new ConfigError(`${shown} answered ${res.status}: access denied; check --url (a SAS in it may have expired)`);
  const len = res.headers['content-length'];
  if (res.status < 200 || res.status > 299 || len === undefined) throw new ConfigError(`HEAD ${shown} gave HTTP ${res.status} without a Content-Length; give a URL to a file`);
  return Number(len);
}

/** A network error's code, or its message (a wrapped error's cause says more). */
function fetchFailure(err: unknown): string {
  const e = err as Error & { cause?: Error };
  return networkCode(err) ?? e.cause?.message ?? e.message;
}

const PROBE_BODY = Buffer.from('blob-cacher upload probe\n');

/**
 * A plain server takes uploads below `base`: one small probe file is PUT to `probe` and deleted
 * again, before anything is measured. Unreachable, or a PUT refused, ends with one line (exit 2); a
 * refused DELETE does not (the run keeps going and leaves its files): returns why DELETE failed.
 */
export async function preflightUrlUpload(base: string, probe: URL): Promise<{ deleteRefused?: string }> {
  const shown = new URL(base);
  shown.search = '';
  const request = (method: 'PUT' | 'DELETE') => plainRequest(probe, method, method === 'PUT' ? PROBE_BODY : undefined);
  let put: PlainAnswer;
  try {
    put = await request('PUT');
  } catch (err) {
    throw new ConfigError(`cannot reach ${shown.host} (${fetchFailure(err)}); check --url`);
  }
  if (!PLAIN_PUT_STATUSES.includes(put.status)) {
    const answer = `a test PUT below ${shown} answered ${put.status}${put.statusText ? ` ${put.statusText}` : ''}`;
    if (put.status === 401 || put.status === 403) throw new ConfigError(`${answer}: access denied; check --url and that this client may write there`);
    if (put.status === 404 || put.status === 405 || put.status === 501) {
      throw new ConfigError(`${answer}: the server takes no uploads there; enable PUT (nginx: dav_methods PUT DELETE; create_full_put_path on) or check --url`);
    }
    throw new ConfigError(`${answer} where 200, 201 or 204 was expected; check --url`);
  }
  try {
    const del = await request('DELETE');
    return del.status >= 200 && del.status <= 299 ? {} : { deleteRefused: `HTTP ${del.status}${del.statusText ? ` ${del.statusText}` : ''}` };
  } catch (err) {
    return { deleteRefused: fetchFailure(err) };
  }
}
