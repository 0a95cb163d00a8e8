// HTTP/1.1 on the wire, for our raw client: the request head we send, the response head we parse,
// and `Transfer-Encoding: chunked` bodies decoded in place. No sockets here: pure text and bytes.
import type { IncomingHttpHeaders } from 'node:http';

/**
 * Where the blank line that ends a head starts in `buf` (searching from `from`), or -1. A loop in
 * JavaScript rather than Buffer.indexOf: an answer's head is a few hundred bytes, and the native
 * call cost more than the scan (~1 µs a response).
 */
export function headEnd(buf: Uint8Array, from: number): number {
  for (let i = from; i + 3 < buf.length; i++) {
    if (buf[i] === 13 && buf[i + 1] === 10 && buf[i + 2] === 13 && buf[i + 3] === 10) return i;
  }
  return -1;
}

export const MAX_HEAD_BYTES = 64 * 1024;

export interface Head {
  status: number;
  headers: IncomingHttpHeaders;
  keepAlive: boolean;
  /** Body length, or -1 for chunked, or -2 for "until the connection closes". */
  length: number;
}

/** The status line's shape: `HTTP/1.0 ` or `HTTP/1.1 ` and three digits. */
function statusOf(line: string): { minor: string; status: number } | undefined {
  if (!line.startsWith('HTTP/1.') || line.length < 12 || line[8] !== ' ') return undefined;
  const minor = line[7]!;
  if (minor !== '0' && minor !== '1') return undefined;
  let status = 0;
  for (let i = 9; i < 12; i++) {
    const d = line.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return undefined;
    status = status * 10 + d;
  }
  return { minor, status };
}

/**
 * `bodiless`: the answer to a HEAD, which announces a length but never sends the body. Walks the
 * text line by line with indexOf: it runs once per request, and splitting it into an array of lines
 * and matching a regular expression were most of what an answer cost to read.
 */
export function parseHead(text: string, bodiless = false): Head | string {
  const firstEnd = text.indexOf('\r\n');
  const statusLine = firstEnd < 0 ? text : text.slice(0, firstEnd);
  const m = statusOf(statusLine);
  if (!m) return `HPE_INVALID: not an HTTP/1.x response: ${JSON.stringify(statusLine.slice(0, 40))}`;
  const headers: Record<string, string | string[]> = {};
  for (let at = firstEnd < 0 ? text.length : firstEnd + 2; at < text.length;) {
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
  const status = m.status;
  const connection = String(headers.connection ?? '').toLowerCase();
  const keepAlive = m.minor === '1' ? !connection.includes('close') : connection.includes('keep-alive');
  const te = String(headers['transfer-encoding'] ?? '').toLowerCase();
  let length: number;
  if (bodiless || status === 204 || status === 304 || (status >= 100 && status < 200)) length = 0;
  else if (te.includes('chunked')) length = -1;
  else if (headers['content-length'] !== undefined) {
    length = Number(headers['content-length']);
    if (!Number.isSafeInteger(length) || length < 0) return `HPE_INVALID_CONTENT_LENGTH: ${String(headers['content-length'])}`;
  } else length = -2;
  return { status, headers: headers as IncomingHttpHeaders, keepAlive: keepAlive && length !== -2, length };
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
        if (!Number.isFinite(size) || size < 0) this.error = `HPE_CHUNK_SIZE: ${JSON.stringify(line.slice(0, 20))}`;
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

export function requestHead(method: string, url: URL, headers: Record<string, string>, bodyBytes: number | undefined): string {
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
