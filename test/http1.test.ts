// The raw client's head parser: the framing read in place, every other header only when asked for.
import { describe, expect, it } from 'vitest';
import { Head, parseHead } from '../src/transport/http1.js';

const head = (text: string, bodiless = false) => {
  const h = parseHead(text, bodiless);
  if (typeof h === 'string') throw new Error(h);
  return h;
};

describe('parseHead', () => {
  it('reads the status and the framing headers in any case, spaces around the name aside', () => {
    const h = head(
      'HTTP/1.1 201 Created\r\nServer: nginx\r\nCONTENT-length : 17\r\n Connection: Keep-Alive\r\nDate: x',
    );
    expect(h).toBeInstanceOf(Head);
    expect([h.status, h.length, h.keepAlive]).toEqual([201, 17, true]);
  });

  it('frames by chunking over a length, by the close without either, and honours Connection', () => {
    expect(head('HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip, Chunked\r\nContent-Length: 5').length).toBe(-1);
    const closed = head('HTTP/1.1 200 OK\r\nContent-Type: text/plain');
    expect([closed.length, closed.keepAlive]).toEqual([-2, false]);
    expect(head('HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 0').keepAlive).toBe(false);
    expect(head('HTTP/1.0 200 OK\r\nContent-Length: 0').keepAlive).toBe(false);
    expect(head('HTTP/1.0 200 OK\r\nContent-Length: 0\r\nConnection: keep-alive').keepAlive).toBe(true);
    expect(head('HTTP/1.1 204 No Content\r\nContent-Length: 9').length).toBe(0);
    expect(head('HTTP/1.1 200 OK\r\nContent-Length: 9', true).length).toBe(0);
  });

  it('refuses a length that is not one number, repeated ones included, and what is not HTTP/1.x', () => {
    expect(parseHead('HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6')).toBe(
      'HPE_INVALID_CONTENT_LENGTH: 5, 6',
    );
    expect(parseHead('HTTP/1.1 200 OK\r\nContent-Length: -1')).toBe('HPE_INVALID_CONTENT_LENGTH: -1');
    expect(parseHead('HTTP/2 200 OK')).toBe('HPE_INVALID: not an HTTP/1.x response: "HTTP/2 200 OK"');
    expect(parseHead('HTTP/1.1 2x0 OK')).toMatch(/^HPE_INVALID: /);
  });

  it('gives every header when asked: names lowercased, repeats joined, set-cookie as a list', () => {
    const h = head(
      'HTTP/1.1 503 Server Busy\r\nRetry-After: 1\r\nContent-MD5: abc==\r\nX-A: 1\r\nx-a: ' +
        '2\r\nSet-Cookie: a\r\nSet-Cookie: b\r\nContent-Length: 0',
    );
    expect(h.headers).toEqual({
      'retry-after': '1',
      'content-md5': 'abc==',
      'x-a': '1, 2',
      'set-cookie': ['a', 'b'],
      'content-length': '0',
    });
    expect(h.headers).toBe(h.headers);
  });
});
