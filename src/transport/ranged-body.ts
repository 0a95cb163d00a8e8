// What a GET's answer must match before its bytes count: a 206 names in Content-Range exactly the
// range asked for (else its bytes belong elsewhere in the object), and a body longer than what was
// asked for is cut off, so a server that never ends a body cannot keep a request going for ever.
import type { IncomingHttpHeaders } from 'node:http';

/**
 * Why a 206 answer to `bytes=firstByte-lastByte` does not carry that range, or undefined when it
 * does. Content-Length, when sent, must be the range's length too.
 */
export function rangeMismatch(
  headers: IncomingHttpHeaders,
  firstByte: number,
  lastByte: number,
): string | undefined {
  const asked = `bytes ${firstByte}-${lastByte}`;
  const header = headers['content-range'];
  if (typeof header !== 'string')
    return `CONTENT_RANGE: a 206 without Content-Range where ${asked} was asked for`;
  const m = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(header.trim());
  if (!m || Number(m[1]) !== firstByte || Number(m[2]) !== lastByte)
    return `CONTENT_RANGE: ${JSON.stringify(header)} where ${asked} was asked for`;
  const length = headers['content-length'];
  if (length !== undefined && Number(length) !== lastByte - firstByte + 1)
    return `CONTENT_LENGTH: ${String(length)} for the ${lastByte - firstByte + 1} bytes of ${asked}`;
  return undefined;
}

/** The error of a body that went on past the bytes asked for (the rest is never read). */
export const bodyOverrun = (askedBytes: number): string =>
  `EXTRA_BYTES: the body ran past the ${askedBytes} bytes asked for; cut off`;
