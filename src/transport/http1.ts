// HTTP/1.1 on the wire, for our raw client: the request head we send, the response head we parse,
// and `Transfer-Encoding: chunked` bodies decoded in place. No sockets here: pure text and bytes.
import type { IncomingHttpHeaders } from 'node:http';

/**
 * Where the blank line that ends a head starts in `buf` (searching from `from`), or -1. A loop in
 * JavaScript rather than Buffer.indexOf: an answer's head is a few hundred bytes, and the native
 * call costs more than the scan.
 */
export function headEnd(buf: Uint8Array, from: number): number {
  for (let i = from; i + 3 < buf.length; i++) {
    if (buf[i] === 13 && buf[i + 1] === 10 && buf[i + 2] === 13 && buf[i + 3] === 10) return i;
  }
  return -1;
}

export const MAX_HEAD_BYTES = 64 * 1024;

/**
 * A response head: its status and framing read at once, its other headers only when someone asks.
 * Of a PUT's answer nothing but the status and the framing is read (Put Blob's Content-MD5, a
 * Retry-After and an error's code only on those answers): building an object of every header, its
 * names lowercased strings, would be most of what an answer costs to read.
 */
export class Head {
  readonly status: number;
  readonly keepAlive: boolean;
  /** Body length, or -1 for chunked, or -2 for "until the connection closes". */
  readonly length: number;
  /** The header lines after the status line, as received. */
  private readonly text: string;
  private readonly from: number;
  private parsed: IncomingHttpHeaders | undefined;

  constructor(status: number, keepAlive: boolean, length: number, text: string, from: number) {
    this.status = status;
    this.keepAlive = keepAlive;
    this.length = length;
    this.text = text;
    this.from = from;
  }

  /** Every header, names lowercased; repeated ones joined with ", " (set-cookie: an array). */
  get headers(): IncomingHttpHeaders {
    return (this.parsed ??= headersOf(this.text, this.from));
  }
}

/** The status line's shape: `HTTP/1.0 ` or `HTTP/1.1 ` and three digits; the status, or -1. */
function statusOf(text: string, end: number): number {
  if (end < 12 || !text.startsWith('HTTP/1.') || text[8] !== ' ') return -1;
  const minor = text.charCodeAt(7);
  if (minor !== 48 && minor !== 49) return -1;
  let status = 0;
  for (let i = 9; i < 12; i++) {
    const d = text.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return -1;
    status = status * 10 + d;
  }
  return status;
}

/** Whether text[from, colon) is `lower`, in any case, spaces around it aside. */
function nameIs(text: string, from: number, colon: number, lower: string): boolean {
  let at = from;
  while (at < colon && (text.charCodeAt(at) === 32 || text.charCodeAt(at) === 9)) at++;
  let end = colon;
  while (end > at && (text.charCodeAt(end - 1) === 32 || text.charCodeAt(end - 1) === 9)) end--;
  if (end - at !== lower.length) return false;
  for (let i = 0; i < lower.length; i++) {
    const c = text.charCodeAt(at + i);
    if ((c >= 65 && c <= 90 ? c + 32 : c) !== lower.charCodeAt(i)) return false;
  }
  return true;
}

/** Header lines (from `at` on) as an object: only where someone reads a header. */
function headersOf(text: string, from: number): IncomingHttpHeaders {
  const headers: Record<string, string | string[]> = {};
  for (let at = from; at < text.length; ) {
    let end = text.indexOf('\r\n', at);
    if (end < 0) end = text.length;
    const colon = text.indexOf(':', at);
    if (colon > at && colon < end) {
      const name = text.slice(at, colon).trim().toLowerCase();
      const value = text.slice(colon + 1, end).trim();
      const prev = headers[name];
      if (name === 'set-cookie') headers[name] = [...((prev as string[] | undefined) ?? []), value];
      else headers[name] = prev === undefined ? value : `${prev as string}, ${value}`;
    }
    at = end + 2;
  }
  return headers as IncomingHttpHeaders;
}

/** A repeated header's values joined as headersOf joins them. */
const joined = (prev: string | undefined, value: string) =>
  prev === undefined ? value : `${prev}, ${value}`;

/**
 * `bodiless`: the answer to a HEAD, which announces a length but never sends the body. Reads the
 * status line and the three headers that frame the body (Content-Length, Transfer-Encoding,
 * Connection), comparing names in place: no string for any other header.
 */
export function parseHead(text: string, bodiless = false): Head | string {
  let firstEnd = text.indexOf('\r\n');
  if (firstEnd < 0) firstEnd = text.length;
  const status = statusOf(text, firstEnd);
  if (status < 0)
    return `HPE_INVALID: not an HTTP/1.x response: ${JSON.stringify(text.slice(0, Math.min(firstEnd, 40)))}`;
  const http11 = text.charCodeAt(7) === 49;
  let contentLength: string | undefined;
  let te: string | undefined;
  let connection: string | undefined;
  const from = firstEnd + 2;
  for (let at = from; at < text.length; ) {
    let end = text.indexOf('\r\n', at);
    if (end < 0) end = text.length;
    const colon = text.indexOf(':', at);
    if (colon > at && colon < end) {
      // nameIs compares lengths first: most lines are left at that.
      if (nameIs(text, at, colon, 'content-length'))
        contentLength = joined(contentLength, text.slice(colon + 1, end).trim());
      else if (nameIs(text, at, colon, 'connection'))
        connection = joined(connection, text.slice(colon + 1, end).trim());
      else if (nameIs(text, at, colon, 'transfer-encoding'))
        te = joined(te, text.slice(colon + 1, end).trim());
    }
    at = end + 2;
  }
  const conn = connection?.toLowerCase() ?? '';
  const keepAlive = http11 ? !conn.includes('close') : conn.includes('keep-alive');
  let length: number;
  if (bodiless || status === 204 || status === 304 || (status >= 100 && status < 200)) length = 0;
  else if (te?.toLowerCase().includes('chunked')) length = -1;
  else if (contentLength !== undefined) {
    length = Number(contentLength);
    if (!Number.isSafeInteger(length) || length < 0) return `HPE_INVALID_CONTENT_LENGTH: ${contentLength}`;
  } else length = -2;
  return new Head(status, keepAlive && length !== -2, length, text, from);
}

/**
 * Decodes `Transfer-Encoding: chunked` in place: feeds the data bytes of each view to `data` and
 * says when the last chunk (and its trailers) ended. Only a chunk-size line can span two reads.
 */
export class ChunkedDecoder {
  private state: 'size' | 'data' | 'data-crlf' | 'trailer' = 'size';
  private line = '';
  private left = 0;
  done = false;
  error: string | undefined;

  /** Returns how many bytes of `view` belonged to the body framing (the rest is extra). */
  feed(view: Buffer, data: (chunk: Buffer) => void): number {
    let i = 0;
    while (i < view.length && !this.done && !this.error) {
      if (this.state === 'data') {
        const take = Math.min(this.left, view.length - i);
        data(view.subarray(i, i + take));
        i += take;
        this.left -= take;
        if (this.left === 0) this.state = 'data-crlf';
        continue;
      }
      const nl = view.indexOf(10, i);
      const end = nl < 0 ? view.length : nl + 1;
      this.line += view.toString('latin1', i, end);
      i = end;
      if (nl < 0) {
        if (this.line.length > 4096) this.error = 'HPE_CHUNK_SIZE: chunk-size line too long';
        continue;
      }
      const line = this.line.trim();
      this.line = '';
      if (this.state === 'data-crlf') {
        this.state = 'size';
        if (line !== '') this.error = 'HPE_STRICT: missing CRLF after chunk data';
      } else if (this.state === 'size') {
        const size = parseInt(line.split(';')[0]!, 16);
        if (!Number.isFinite(size) || size < 0)
          this.error = `HPE_CHUNK_SIZE: ${JSON.stringify(line.slice(0, 20))}`;
        else if (size === 0) this.state = 'trailer';
        else {
          this.left = size;
          this.state = 'data';
        }
      } else if (line === '') {
        this.done = true;
      }
    }
    return i;
  }
}

export function requestHead(
  method: string,
  url: URL,
  headers: Record<string, string>,
  bodyBytes: number | undefined,
): string {
  let head = `${method} ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n`;
  let connection = false;
  for (const [k, v] of Object.entries(headers)) {
    if (/[\r\n]/.test(k) || /[\r\n]/.test(v)) throw new Error(`header ${k} contains a line break`);
    const lower = k.toLowerCase();
    if (lower === 'connection') connection = true;
    // Host comes from the URL and the body's length from the body itself.
    if (lower === 'host' || (bodyBytes !== undefined && lower === 'content-length')) continue;
    head += `${k}: ${v}\r\n`;
  }
  if (bodyBytes !== undefined) head += `Content-Length: ${bodyBytes}\r\n`;
  if (!connection) head += 'Connection: keep-alive\r\n';
  return `${head}\r\n`;
}
