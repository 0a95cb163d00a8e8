// The MD5 of small inputs made without node:crypto (src/payload/md5.ts) must be node:crypto's, byte
// for byte: every length around the padding's edges, and random contents up to the size it takes.
import { createHash, randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { JS_MD5_MAX_BYTES, md5, md5Base64 } from '../src/payload/md5.ts';

const nodeMd5 = (b: Uint8Array) => createHash('md5').update(b).digest();

describe('md5 without node:crypto', () => {
  it("matches RFC 1321's test suite", () => {
    const hex = (s: string) => Buffer.from(md5(Buffer.from(s, 'latin1'))).toString('hex');
    expect(hex('')).toBe('d41d8cd98f00b204e9800998ecf8427e');
    expect(hex('a')).toBe('0cc175b9c0f1b6a831c399e269772661');
    expect(hex('abc')).toBe('900150983cd24fb0d6963f7d28e17f72');
    expect(hex('message digest')).toBe('f96b697d7cb7938d525a2f31aaf161d0');
    expect(hex('abcdefghijklmnopqrstuvwxyz')).toBe('c3fcd3d76192e4007dfb496cca67e13b');
    expect(hex('12345678901234567890123456789012345678901234567890123456789012345678901234567890')).toBe(
      '57edf4a22be3c955ac49da2e2107b67a',
    );
  });

  it("equals node:crypto's for every length from 0 to 300 bytes and random sizes up to its limit", () => {
    const lengths = [
      ...Array.from({ length: 301 }, (_, i) => i),
      1023,
      1024,
      1025,
      4095,
      4096,
      9999,
      JS_MD5_MAX_BYTES - 1,
      JS_MD5_MAX_BYTES,
    ];
    for (const n of lengths) {
      const bytes = randomBytes(n);
      expect(Buffer.from(md5(bytes)).equals(nodeMd5(bytes)), `length ${n}`).toBe(true);
    }
    // Bytes that set every bit, and a view into a larger buffer (its offset must not leak in).
    expect(Buffer.from(md5(Buffer.alloc(200, 0xff))).equals(nodeMd5(Buffer.alloc(200, 0xff)))).toBe(true);
    const big = randomBytes(1000);
    expect(Buffer.from(md5(big.subarray(13, 513))).equals(nodeMd5(big.subarray(13, 513)))).toBe(true);
  });

  it("md5Base64 answers node:crypto's base64 digest, small or large", () => {
    for (const n of [0, 1, 100, JS_MD5_MAX_BYTES + 1, 100_000]) {
      const bytes = randomBytes(n);
      expect(md5Base64(bytes)).toBe(nodeMd5(bytes).toString('base64'));
    }
  });

  it('a fresh process hashing a small input loads no node:crypto; a large one does', () => {
    const url = pathToFileURL(join(resolve(import.meta.dirname, '..'), 'dist', 'payload', 'md5.js')).href;
    const loadsCrypto = (size: number) => {
      const code =
        `const { md5Base64 } = await import(${JSON.stringify(url)}); md5Base64(Buffer.alloc(${size}, ` +
        `7)); process.stdout.write(String(process.moduleLoadList.includes('NativeModule crypto')));`;
      const r = spawnSync(process.execPath, ['--input-type=module', '-e', code], {
        encoding: 'utf8',
        timeout: 30_000,
      });
      expect(r.status, r.stderr).toBe(0);
      return r.stdout;
    };
    expect(loadsCrypto(1)).toBe('false');
    expect(loadsCrypto(JS_MD5_MAX_BYTES + 1)).toBe('true');
  });
});
