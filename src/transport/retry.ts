// When to try a request again and how long to wait: 408/429/500/502/503/504, resets and timeouts
// are retried with exponential backoff and full jitter; a Retry-After header is honoured.
import type { IncomingHttpHeaders } from 'node:http';

export interface RetryPolicy {
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

const RETRY_STATUS = new Set([408, 429, 500, 502, 503, 504]);
const RETRY_ERRORS = ['ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ECONNREFUSED', 'ECONNABORTED', 'EAI_AGAIN', 'SHORT_BODY'];

export interface AttemptOutcome {
  status: number;
  error?: string;
  headers: IncomingHttpHeaders;
}

/** Throttling answers: counted on their own, since they say the service wants less load. */
export const isThrottle = (status: number) => status === 503 || status === 429;

export function isRetryable(o: AttemptOutcome): boolean {
  if (RETRY_STATUS.has(o.status)) return true;
  return o.status === 0 || o.error !== undefined ? RETRY_ERRORS.some((code) => o.error?.startsWith(code)) : false;
}

/** Retry-After in seconds or as an HTTP date, capped; undefined when absent or unreadable. */
export function retryAfterMs(headers: IncomingHttpHeaders, maxDelayMs: number): number | undefined {
  const value = headers['retry-after'];
  if (value === undefined) return undefined;
  const seconds = Number(value);
  const ms = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - Date.now();
  return Number.isFinite(ms) ? Math.min(Math.max(0, ms), maxDelayMs) : undefined;
}

/** Full jitter: a random delay up to base * 2^attempt, capped. */
export function backoffMs(attempt: number, policy: RetryPolicy, random = Math.random): number {
  return Math.round(random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt));
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
