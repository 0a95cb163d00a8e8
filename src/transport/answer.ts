// What an HTTP answer means to us, for every request path: whether its status was the expected
// one, and if not, one line that says why (the storage service's error code, where a redirect
// points, or the status's text).
import type { IncomingHttpHeaders } from 'node:http';

/** Status texts for answers a blob service or web server gives: node:http's table would load node:http. */
const STATUS_TEXT: Readonly<Record<number, string>> = {
  200: 'OK',
  201: 'Created',
  202: 'Accepted',
  204: 'No Content',
  206: 'Partial Content',
  301: 'Moved Permanently',
  302: 'Found',
  303: 'See Other',
  304: 'Not Modified',
  307: 'Temporary Redirect',
  308: 'Permanent Redirect',
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  411: 'Length Required',
  412: 'Precondition Failed',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  416: 'Range Not Satisfiable',
  429: 'Too Many Requests',
  500: 'Internal Server Error',
  501: 'Not Implemented',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
  504: 'Gateway Timeout',
};
import { shownUrl } from './http-client.js';

/** The start of an error answer's body kept for its error code; the rest is read and dropped. */
const ERROR_BODY_BYTES = 16 * 1024;

export function isExpected(status: number, expectStatus?: readonly number[]): boolean {
  return expectStatus ? expectStatus.includes(status) : status >= 200 && status < 300;
}

/** Keeps the start of an error answer's body: chunks are copied, as a client may reuse its buffer. */
export class ErrorBody {
  private readonly chunks: Buffer[] = [];
  private bytes = 0;

  add(chunk: Buffer): void {
    if (this.bytes >= ERROR_BODY_BYTES) return;
    const kept = Buffer.from(chunk.subarray(0, ERROR_BODY_BYTES - this.bytes));
    this.chunks.push(kept);
    this.bytes += kept.length;
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The start of the body, if it was read. */
  body?: string;
  expectStatus?: readonly number[];
}

/**
 * The error of an answer that was not expected: `HTTP 503 ServerBusy` (the storage error code from
 * x-ms-error-code or the XML body's <Code>), `HTTP 302 Found to http://host/path` (redirects are
 * never followed), `HTTP 404 Not Found`, or `HTTP 200 where 206 was expected`.
 */
export function answerError({ status, headers, body, expectStatus }: Answer): string {
  if (status >= 200 && status < 300)
    return `HTTP ${status}${expectStatus ? ` where ${expectStatus.join('/')} was expected` : ''}`;
  const header = headers['x-ms-error-code'];
  const code =
    (Array.isArray(header) ? header[0] : header) ??
    (body ? /<Code>([^<]+)<\/Code>/.exec(body)?.[1] : undefined);
  const text = code ?? STATUS_TEXT[status];
  const location = status >= 300 && status < 400 ? headers.location : undefined;
  const to = location ? ` to ${redirectTarget(location)}` : '';
  return `HTTP ${status}${text ? ` ${text}` : ''}${to}${throttleReason(status, body)}`;
}

/** Where a redirect points, without credentials or query; a relative Location is shown as it is. */
function redirectTarget(location: string): string {
  return URL.canParse(location) ? shownUrl(location) : location.replace(/\?.*$/, '');
}

/** Why a throttled answer came: Azure's account limits, told apart by the body's words. */
export type ThrottleClass = 'operations' | 'ingress' | 'egress' | 'other';

/**
 * 503s and 429s by their words (Azure: "Operations per second is over the account limit", "Ingress/Egress is
 * over the account limit"), as azcopy tells them apart.
 */
export function throttleClassOf(text: string): ThrottleClass {
  if (/operations per second is over the account limit/i.test(text)) return 'operations';
  if (/ingress is over the account limit/i.test(text)) return 'ingress';
  if (/egress is over the account limit/i.test(text)) return 'egress';
  return 'other';
}

/**
 * A throttled answer's reason, from the first line of the body's <Message> (Azure: "Operations per
 * second is over the account limit.", "Egress is over the account limit."): which limit was met is
 * what tells a request-rate problem from a bandwidth one. Printable characters only, kept short.
 */
function throttleReason(status: number, body: string | undefined): string {
  if ((status !== 503 && status !== 429) || !body) return '';
  const message = /<Message>([^<\n]*)/
    .exec(body)?.[1]
    ?.replace(/[^\x20-\x7e]/g, '')
    .trim()
    .slice(0, 100);
  return message ? ` (${message})` : '';
}

/**
 * What a failed try met, beside throttled answers (counted on their own): a connection reset or a
 * body cut short, a timeout, a refused connection, a failed name lookup, or a server error status.
 */
export const FAULT_KINDS = ['reset', 'timeout', 'refused', 'dns', 'server-error'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];
/** Tries that met each kind of fault; a kind none met is absent. */
export type FaultCounts = Partial<Record<FaultKind, number>>;

/** The kind of a failed try, from its status and error; undefined for a throttled answer or none. */
export function faultOf(status: number, error: string | undefined): FaultKind | undefined {
  if (error === undefined || status === 503 || status === 429) return undefined;
  if (/^(ECONNRESET|EPIPE|ECONNABORTED|SHORT_BODY)/.test(error)) return 'reset';
  if (error.startsWith('ETIMEDOUT')) return 'timeout';
  if (error.startsWith('ECONNREFUSED')) return 'refused';
  if (/^(EAI_AGAIN|ENOTFOUND)/.test(error)) return 'dns';
  return status >= 500 || status === 408 ? 'server-error' : undefined;
}
