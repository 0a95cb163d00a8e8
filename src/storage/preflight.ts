// Checks a target before anything is measured, so that wrong credentials, a missing object or an
// unreachable host end with one line (exit 2) instead of a run full of failed requests.
import type { ContainerClient } from '@azure/storage-blob';
import { ConfigError } from '../vocabulary/errors.js';
import { log } from '../log/logger.js';
import { shownUrl } from '../transport/http-client.js';
import { RawPool } from '../transport/raw-client.js';
import { isThrottle, outcomeOf, requestWithRetries, type RetriedResult } from '../transport/retry.js';
import { TOKEN_REFUSED_FIX } from './entra.js';
import { PLAIN_PUT_STATUSES } from './target-info.js';

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
]);

/** The first code in the error's chain of causes that `codes` holds (or that `test` accepts). */
function codeIn(err: unknown, test: (code: string) => boolean): string | undefined {
  for (
    let e = err as { code?: string; cause?: unknown } | undefined, depth = 0;
    e && depth < 4;
    e = e.cause as typeof e, depth++
  ) {
    if (typeof e.code === 'string' && test(e.code)) return e.code;
  }
  return undefined;
}

const networkCode = (err: unknown) => codeIn(err, (c) => NETWORK_CODES.has(c));
/**
 * OpenSSL's verification failures (SELF_SIGNED_CERT_IN_CHAIN, UNABLE_TO_GET_ISSUER_CERT_LOCALLY,
 * CERT_HAS_EXPIRED, …) and a wrong name.
 */
const certificateCode = (err: unknown) =>
  codeIn(err, (c) => /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)/.test(c));

export interface PreflightOptions {
  /** Per try, as --timeout: the socket may be idle at most this long (default 30 s). */
  timeoutMs?: number;
  /**
   * Tries after the first for a transient failure (default none; a throttled answer gets THROTTLED_RETRIES).
   */
  maxRetries?: number;
  signal?: AbortSignal;
}

/** A check's read buffer: a head and a small body (an error's XML) fit. */
const PROBE_READ_BYTES = 64 * 1024;

/**
 * Tries after the first for an answer that says "busy" (503, 429), whatever --max-retries says of
 * measured requests: a check is not a measurement, and a target still draining the load of the run
 * before (tune's cell past a request-rate limit) is not a wrong URL. Within the deadline below.
 */
export const THROTTLED_RETRIES = 3;

/**
 * One request through the raw client (the workers' request path), its body read and dropped. The idle
 * timeout cannot catch a server that trickles a byte a second, so the whole request also has a
 * deadline: twice the timeout. A throttled answer is tried again after its Retry-After (or a
 * backoff); other failures only as `opts.maxRetries` says.
 */
async function plainRequest(
  url: URL,
  method: 'HEAD' | 'PUT' | 'DELETE',
  opts: PreflightOptions,
  expectStatus?: readonly number[],
  body?: Buffer,
): Promise<RetriedResult> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const deadline = AbortSignal.timeout(2 * timeoutMs);
  const signal = opts.signal ? AbortSignal.any([opts.signal, deadline]) : deadline;
  // The raw client, as the workers' requests: node:http is then never loaded for a check.
  const client = new RawPool(url, 1, PROBE_READ_BYTES);
  try {
    const maxRetries = opts.maxRetries ?? 0;
    const res = await requestWithRetries(
      async (n) => {
        const outcome = outcomeOf(
          await client.request({
            url,
            method,
            headers: {},
            body,
            expectStatus,
            timeoutMs,
            trace: false,
            signal,
          }),
        );
        return {
          ...outcome,
          retryable: isThrottle(outcome.result.status) || (outcome.retryable && n < maxRetries),
        };
      },
      {
        maxRetries: Math.max(maxRetries, THROTTLED_RETRIES),
        label: `preflight ${method} ${shownUrl(url)}`,
        signal,
      },
    );
    if (deadline.aborted && !opts.signal?.aborted) {
      throw new ConfigError(
        `${method} ${shownUrl(url)} did not finish within ${(2 * timeoutMs) / 1000} s (twice --timeout): ` +
          'the server answers too slowly; check --url or raise --timeout',
      );
    }
    return res;
  } finally {
    client.destroy();
  }
}

/**
 * A target that kept answering "busy": the answer, how many tries, and that waiting (not the URL) is the fix.
 */
function busy(what: string, shown: string, r: RetriedResult): string {
  return (
    `${what} ${shown} answered ${r.error ?? `HTTP ${r.status}`} ${r.retries + 1} times: ` +
    'the target is throttling; wait until its load falls (or lower it) and run again'
  );
}

/** Why a request got no answer: the network error's code, or the whole error where that says more. */
function unanswered(r: RetriedResult): string {
  const code = r.error?.split(':')[0];
  return code && NETWORK_CODES.has(code) && code !== 'ETIMEDOUT' ? code : (r.error ?? 'no answer');
}

/**
 * The container exists (or is created) and the credentials are accepted. `auth`: a key or SAS
 * (`secret`), or an Entra ID token, whose refusal has another fix. Bounded as a plain URL's
 * preflight is: twice `timeoutMs` in all (the SDK's own tries included), and `signal` stops it.
 * Resolves whether this call created the container (so that --cleanup removes it, and only then).
 */
export async function preflightContainer(
  container: ContainerClient,
  label: string,
  auth: 'secret' | 'entra' = 'secret',
  opts: PreflightOptions = {},
): Promise<{ created: boolean }> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const deadline = AbortSignal.timeout(2 * timeoutMs);
  const abortSignal = opts.signal ? AbortSignal.any([opts.signal, deadline]) : deadline;
  try {
    return { created: (await container.createIfNotExists({ abortSignal })).succeeded };
  } catch (err) {
    // A stop is the caller's to report (an interrupt, not a bad target): its reason, not the SDK's
    // AbortError.
    if (opts.signal?.aborted)
      throw new Error(`preflight of ${label} stopped by ${String(opts.signal.reason)}`);
    if (deadline.aborted) {
      throw new ConfigError(
        `${label} did not answer within ${(2 * timeoutMs) / 1000} s (twice --timeout); ` +
          'check the account name, endpoint or network, or raise --timeout',
      );
    }
    const e = err as {
      statusCode?: number;
      code?: string;
      details?: { errorCode?: string; authenticationErrorDetail?: string };
    };
    const code = networkCode(err);
    const host = new URL(container.url).host;
    if (code)
      throw new ConfigError(`cannot reach ${host} (${code}); check the account name, endpoint or network`);
    const cert = certificateCode(err);
    if (cert)
      throw new ConfigError(
        `${host}'s TLS certificate is not trusted (${cert}); ` +
          'give the CA that signed it with --ca-file (BLOB_CACHER_CA_FILE), or check --endpoint',
      );
    if (auth === 'entra' && (e.statusCode === 401 || e.statusCode === 403)) {
      const detail = [e.details?.errorCode ?? e.code, e.details?.authenticationErrorDetail]
        .filter(Boolean)
        .join(': ');
      throw new ConfigError(
        `${label} refused the token (HTTP ${e.statusCode}${detail ? ` ${detail}` : ''}); ` +
          TOKEN_REFUSED_FIX,
      );
    }
    if (e.statusCode === 403) {
      throw new ConfigError(
        `${`${label} rejected the credentials (HTTP 403 ${e.details?.errorCode ?? e.code ?? ''}`.trim()}); ` +
          'check STORAGE_KEY / STORAGE_SAS (a SAS needs read, write, create, list, delete)',
      );
    }
    if (e.statusCode === 404)
      throw new ConfigError(
        `${label} has no such account or container (HTTP 404); check STORAGE_ACCOUNT and STORAGE_CONTAINER`,
      );
    throw err;
  }
}

/**
 * Deletes a container that preflightContainer created for this run, now that the run is over: only such a
 * one.
 */
export async function removeCreatedContainer(container: ContainerClient): Promise<void> {
  await container.deleteIfExists();
  log.info(`cleanup: removed container ${container.containerName}, which this run created`);
}

/** A plain URL answers HEAD with a size; returns it. */
export async function preflightUrl(url: string, opts: PreflightOptions = {}): Promise<number> {
  const shown = shownUrl(url);
  const res = await plainRequest(new URL(url), 'HEAD', opts);
  if (res.status === 0)
    throw new ConfigError(`cannot reach ${new URL(url).host} (${unanswered(res)}); check --url`);
  if (res.status === 404) throw new ConfigError(`${shown} answered 404 Not Found; check --url`);
  if (res.status === 401 || res.status === 403)
    throw new ConfigError(
      `${shown} answered ${res.status}: access denied; check --url (a SAS in it may have expired)`,
    );
  if (isThrottle(res.status)) throw new ConfigError(busy('HEAD', shown, res));
  if (res.error) throw new ConfigError(`HEAD ${shown} answered ${res.error}; give a URL to a file`);
  const len = res.headers['content-length'];
  if (len === undefined)
    throw new ConfigError(
      `HEAD ${shown} gave HTTP ${res.status} without a Content-Length; give a URL to a file`,
    );
  return Number(len);
}

const PROBE_BODY = Buffer.from('blob-cacher upload probe\n');

/**
 * A plain server takes uploads below `base`: one small probe file is PUT to `probe` and deleted
 * again, before anything is measured. Unreachable, or a PUT refused, ends with one line (exit 2); a
 * refused DELETE does not (the run keeps going and leaves its files): returns why DELETE failed.
 */
export async function preflightUrlUpload(
  base: string,
  probe: URL,
  opts: PreflightOptions = {},
): Promise<{ deleteRefused?: string }> {
  const shown = shownUrl(base);
  const put = await plainRequest(probe, 'PUT', opts, PLAIN_PUT_STATUSES, PROBE_BODY);
  if (put.status === 0)
    throw new ConfigError(`cannot reach ${new URL(base).host} (${unanswered(put)}); check --url`);
  if (put.error) {
    const answer = `a test PUT below ${shown} answered ${put.error}`;
    if (put.status === 401 || put.status === 403)
      throw new ConfigError(`${answer}: access denied; check --url and that this client may write there`);
    if (isThrottle(put.status)) throw new ConfigError(busy('a test PUT below', shown, put));
    if (put.status === 404 || put.status === 405 || put.status === 501) {
      throw new ConfigError(
        `${answer}: the server takes no uploads there; ` +
          'enable PUT (nginx: dav_methods PUT DELETE; create_full_put_path on) or check --url',
      );
    }
    throw new ConfigError(`${answer}; check --url`);
  }
  const del = await plainRequest(probe, 'DELETE', opts);
  if (!del.error) return {};
  return { deleteRefused: del.status === 0 ? unanswered(del) : del.error };
}
