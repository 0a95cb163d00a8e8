// MD5 of a few bytes without node:crypto. Loading node:crypto (its ~17 internal modules) is most of
// a process's first hash, where a process started from an ES module has not loaded it yet (a
// `node -e` has): for a 1-byte download that is the worker's whole check, on the path from the
// last answer to the report. Small inputs are hashed here (RFC 1321) while the process has not
// loaded node:crypto and has hashed little this way; anything else goes to node:crypto, which is
// faster per byte once loaded.
import { nodeCrypto } from '../startup/lazy.js';

/** Inputs up to this size may be hashed here: a cold (not yet optimized) hash's cost grows with its input. */
export const JS_MD5_MAX_BYTES = 16 * 1024;
/**
 * Past this many bytes hashed here, a process loads node:crypto: a process that hashes much pays its load
 * once.
 */
const JS_MD5_BUDGET_BYTES = 1024 * 1024;

/** What a process has hashed here: kept by the process (a worker's KeptBuffers), from job to job. */
export class JsMd5Budget {
  hashedBytes = 0;
}

/**
 * MD5 (base64) of `bytes`, as node:crypto's `createHash('md5').update(bytes).digest('base64')`.
 * `budget`: the process's, which a small input here counts against; without one, an input is hashed
 * here as long as it is small and node:crypto not loaded.
 */
export function md5Base64(bytes: Uint8Array, budget?: JsMd5Budget): string {
  const spent = budget ? budget.hashedBytes + bytes.length : 0;
  if (bytes.length <= JS_MD5_MAX_BYTES && spent <= JS_MD5_BUDGET_BYTES && !nodeCrypto.loaded()) {
    if (budget) budget.hashedBytes = spent;
    return Buffer.from(md5(bytes).buffer).toString('base64');
  }
  return nodeCrypto().createHash('md5').update(bytes).digest('base64');
}

/** floor(abs(sin(i + 1)) * 2^32), RFC 1321's table T. */
const T = new Int32Array([
  0xd76aa478, 0xe8c7b756, 0x242070db, 0xc1bdceee, 0xf57c0faf, 0x4787c62a, 0xa8304613, 0xfd469501, 0x698098d8,
  0x8b44f7af, 0xffff5bb1, 0x895cd7be, 0x6b901122, 0xfd987193, 0xa679438e, 0x49b40821, 0xf61e2562, 0xc040b340,
  0x265e5a51, 0xe9b6c7aa, 0xd62f105d, 0x02441453, 0xd8a1e681, 0xe7d3fbc8, 0x21e1cde6, 0xc33707d6, 0xf4d50d87,
  0x455a14ed, 0xa9e3e905, 0xfcefa3f8, 0x676f02d9, 0x8d2a4c8a, 0xfffa3942, 0x8771f681, 0x6d9d6122, 0xfde5380c,
  0xa4beea44, 0x4bdecfa9, 0xf6bb4b60, 0xbebfbc70, 0x289b7ec6, 0xeaa127fa, 0xd4ef3085, 0x04881d05, 0xd9d4d039,
  0xe6db99e5, 0x1fa27cf8, 0xc4ac5665, 0xf4292244, 0x432aff97, 0xab9423a7, 0xfc93a039, 0x655b59c3, 0x8f0ccc92,
  0xffeff47d, 0x85845dd1, 0x6fa87e4f, 0xfe2ce6e0, 0xa3014314, 0x4e0811a1, 0xf7537e82, 0xbd3af235, 0x2ad7d2bb,
  0xeb86d391,
]);
/** Each round's four left-rotation amounts. */
const SHIFTS = [7, 12, 17, 22, 5, 9, 14, 20, 4, 11, 16, 23, 6, 10, 15, 21];

/**
 * The 16-byte digest: the message padded to whole 64-byte blocks (0x80, zeros, its bit length), each block
 * mixed into four words.
 */
export function md5(bytes: Uint8Array): Uint8Array {
  const blocks = ((bytes.length + 8) >>> 6) + 1;
  const padded = new Uint8Array(blocks * 64);
  padded.set(bytes);
  padded[bytes.length] = 0x80;
  const view = new DataView(padded.buffer);
  const bits = bytes.length * 8;
  view.setUint32(padded.length - 8, bits >>> 0, true);
  view.setUint32(padded.length - 4, Math.floor(bits / 0x100000000), true);
  const word = new Int32Array(16);
  let h0 = 0x67452301,
    h1 = 0xefcdab89 | 0,
    h2 = 0x98badcfe | 0,
    h3 = 0x10325476;
  for (let at = 0; at < padded.length; at += 64) {
    for (let i = 0; i < 16; i++) word[i] = view.getInt32(at + i * 4, true);
    let a = h0,
      b = h1,
      c = h2,
      d = h3;
    for (let i = 0; i < 64; i++) {
      let f: number, g: number;
      if (i < 16) {
        f = (b & c) | (~b & d);
        g = i;
      } else if (i < 32) {
        f = (d & b) | (~d & c);
        g = (5 * i + 1) & 15;
      } else if (i < 48) {
        f = b ^ c ^ d;
        g = (3 * i + 5) & 15;
      } else {
        f = c ^ (b | ~d);
        g = (7 * i) & 15;
      }
      const x = (a + f + T[i]! + word[g]!) | 0;
      const s = SHIFTS[(i >>> 4) * 4 + (i & 3)]!;
      a = d;
      d = c;
      c = b;
      b = (b + ((x << s) | (x >>> (32 - s)))) | 0;
    }
    h0 = (h0 + a) | 0;
    h1 = (h1 + b) | 0;
    h2 = (h2 + c) | 0;
    h3 = (h3 + d) | 0;
  }
  const out = new Uint8Array(16);
  const outView = new DataView(out.buffer);
  outView.setInt32(0, h0, true);
  outView.setInt32(4, h1, true);
  outView.setInt32(8, h2, true);
  outView.setInt32(12, h3, true);
  return out;
}
