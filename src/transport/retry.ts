// When to try a request again and how long to wait: 408/429/500/502/503/504, resets and timeouts
// are retried with exponential backoff and full jitter; a Retry-After header is honoured. And the
// one loop that does it, for every request path (workers, preflight, Put Block List).
import type { IncomingHttpHeaders } from 'node:http';
import { performance } from 'node:perf_hooks';
import { log } from '../log/logger.js';
import { faultOf, throttleClassOf, type FaultCounts, type ThrottleClass } from './answer.js';
import { LazyHeadersResult, type StopSignal, type TracedResult } from './http-client.js';
import type { PhaseDurationsMs } from './phases.js';

export interface RetryPolicy {
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

const RETRY_STATUS = new Set([408, 429, 500, 502, 503, 504]);
const RETRY_ERRORS = [
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EAI_AGAIN',
  'SHORT_BODY',
];

export interface AttemptOutcome {
  status: number;
  error?: string;
  headers: IncomingHttpHeaders;
}

/** Throttling answers: counted on their own, since they say the service wants less load. */
export const isThrottle = (status: number) => status === 503 || status === 429;

export function isRetryable(o: AttemptOutcome): boolean {
  if (RETRY_STATUS.has(o.status)) return true;
  return o.status === 0 || o.error !== undefined
    ? RETRY_ERRORS.some((code) => o.error?.startsWith(code))
    : false;
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

/** Resolves after `ms`, or at once when `signal` aborts. */
export function sleep(ms: number, signal?: StopSignal): Promise<void> {
  if (signal?.aborted) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/** One try's result and what it means: `error` may be the caller's own (a short body). */
export interface TryOutcome {
  result: TracedResult;
  error?: string;
  retryable: boolean;
}

/** A try judged by its result alone: failed when it has an error, retried when that error is transient. */
export function outcomeOf(result: TracedResult): TryOutcome {
  return { result, error: result.error, retryable: result.error !== undefined && isRetryable(result) };
}

export interface RetryOptions {
  maxRetries: number;
  /**
   * Names the request in log lines; a function (or an object's label method) is called only when a line is
   * written.
   */
  label: string | (() => string) | Labelled;
  /** Ends the backoff at once and stops further tries. */
  signal?: StopSignal;
  /** When the request was asked for (performance.now() clock), if it queued before the first try. */
  queuedAt?: number;
  baseDelayMs?: number;
  maxDelayMs?: number;
}

/** The last try's result, timed from the first try (or the queue) on, with the retry counts. */
export interface RetriedResult extends TracedResult {
  /** Tries after the first; answers that throttled (503/429); time slept before retrying. */
  retries: number;
  throttled: number;
  /** Which limit the last throttled answer named, if one came (a retry that then succeeded keeps it). */
  throttledBy?: ThrottleClass;
  /** The faults its tries met, by kind, where one met any. */
  faults?: FaultCounts;
  backoffMs: number;
}

/**
 * A request's own object that names it: passed as itself, where a closure would be made for every request.
 */
export interface Labelled {
  label(): string;
}

const labelOf = (label: RetryOptions['label']) =>
  typeof label === 'string' ? label : typeof label === 'function' ? label() : label.label();

/**
 * Runs `attempt` until it succeeds, fails for good, retries run out or `signal` aborts. The result
 * keeps the last try's phases plus a `retry` phase (failed tries and backoff), so phases still add
 * up to the total.
 */
export function requestWithRetries(
  attempt: (n: number) => Promise<TryOutcome>,
  opts: RetryOptions,
): Promise<RetriedResult> {
  const started = opts.queuedAt ?? performance.now();
  // The first try without an async function around it: nearly every request ends with it, and each
  // async layer is a few hundred bytes of garbage a request.
  return attempt(0).then((first) =>
    first.error === undefined && !isThrottle(first.result.status)
      ? retried(opts.label, first.result, first.error, 0, started, started, NO_TALLY)
      : tries(attempt, opts, started, first),
  );
}

/**
 * requestWithRetries in two steps, for a first try sent through a callback (HttpClient.send): the
 * request's result when its first try needs no other (it succeeded and was not throttled), with no
 * promise made on its way; else undefined, and retryFrom goes on. `started`: the first try's start
 * (or the queue's), on the performance.now() clock.
 */
export function firstTry(
  result: TracedResult,
  started: number,
  label: RetryOptions['label'],
): RetriedResult | undefined {
  if (result.error !== undefined || isThrottle(result.status)) return undefined;
  return retried(label, result, undefined, 0, started, started, NO_TALLY);
}

/** The loop, after a first try (sent at `started`) that firstTry did not take. */
export function retryFrom(
  first: TracedResult,
  attempt: (n: number) => Promise<TryOutcome>,
  opts: RetryOptions,
  started: number,
): Promise<RetriedResult> {
  return tries(attempt, opts, started, outcomeOf(first));
}

interface Tally {
  retries: number;
  throttled: number;
  throttledBy?: ThrottleClass;
  faults?: FaultCounts;
  sleptMs: number;
}

/** A request that went once and was not throttled. */
const NO_TALLY: Readonly<Tally> = { retries: 0, throttled: 0, sleptMs: 0 };

/** The loop, from a first try that failed or throttled. */
async function tries(
  attempt: (n: number) => Promise<TryOutcome>,
  opts: RetryOptions,
  started: number,
  first: TryOutcome,
): Promise<RetriedResult> {
  const policy: RetryPolicy = {
    maxRetries: opts.maxRetries,
    baseDelayMs: opts.baseDelayMs ?? 100,
    maxDelayMs: opts.maxDelayMs ?? 10_000,
  };
  const tally: Tally = { retries: 0, throttled: 0, sleptMs: 0 };
  for (let n = 0; ; n++) {
    const tryStarted = n === 0 ? started : performance.now();
    const outcome = n === 0 ? first : await attempt(n);
    const { result, retryable } = outcome;
    let error = outcome.error;
    if (isThrottle(result.status)) {
      tally.throttled++;
      tally.throttledBy = throttleClassOf(outcome.error ?? '');
    }
    const fault = faultOf(result.status, error);
    if (fault) {
      const faults = (tally.faults ??= {});
      faults[fault] = (faults[fault] ?? 0) + 1;
    }
    if (error && retryable && n < policy.maxRetries && !opts.signal?.aborted) {
      const delay = retryAfterMs(result.headers, policy.maxDelayMs) ?? backoffMs(n, policy);
      if (log.isVerboseEnabled())
        log.verbose(`${labelOf(opts.label)}: ${error}; retry ${n + 1}/${policy.maxRetries} in ${delay} ms`);
      const sleepStarted = performance.now();
      await sleep(delay, opts.signal);
      if (!opts.signal?.aborted) {
        tally.retries++;
        tally.sleptMs += delay;
        continue;
      }
      // Stopped while waiting: no retry happened, and only the time really waited counts.
      tally.sleptMs += performance.now() - sleepStarted;
      error = `cancelled: stopped before retrying (${error})`;
    }
    return retried(opts.label, outcome.result, error, n, tryStarted, started, tally);
  }
}

/** The request's result: its last try's, timed from the first try (or the queue) on. */
function retried(
  label: RetryOptions['label'],
  result: TracedResult,
  error: string | undefined,
  n: number,
  tryStarted: number,
  started: number,
  tally: Readonly<Tally>,
): RetriedResult {
  const phases = n > 0 ? { retry: tryStarted - started, ...result.phases } : result.phases;
  // A first try's own clock already starts at `queuedAt` where there was a queue.
  const totalMs = n > 0 ? tryStarted - started + result.totalMs : result.totalMs;
  if (log.isDebugEnabled())
    log.debug(
      `${labelOf(label)} ${result.status} ${result.bytes}B ${totalMs.toFixed(1)}ms reused=${result.reused}` +
        `${n ? ` retries=${n}` : ''}${error ? ` error=${error}` : ''}`,
    );
  return new Retried(result, phases, totalMs, performance.timeOrigin + started, error, tally);
}

/** A request's result over its tries; its headers are the last try's, read from it only when asked for. */
class Retried extends LazyHeadersResult implements RetriedResult {
  readonly retries: number;
  readonly throttled: number;
  readonly throttledBy: ThrottleClass | undefined;
  readonly faults: FaultCounts | undefined;
  readonly backoffMs: number;

  constructor(
    last: TracedResult,
    phases: PhaseDurationsMs,
    totalMs: number,
    startEpochMs: number,
    error: string | undefined,
    tally: Readonly<Tally>,
  ) {
    super(last.status, last.bytes, last.reused, phases, totalMs, startEpochMs, error, last);
    this.retries = tally.retries;
    this.throttled = tally.throttled;
    this.throttledBy = tally.throttledBy;
    this.faults = tally.faults;
    this.backoffMs = tally.sleptMs;
  }
}
