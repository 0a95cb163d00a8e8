// SharedKey signing for raw REST requests (no SDK pipeline around each request), per the Blob
// service's "Authorize with Shared Key" rules, with the SDK's canonical resource convention.
import { nodeCrypto } from '../startup/lazy.js';
import { STORAGE_API_VERSION } from './api-version.js';

const STANDARD_HEADERS = [
  'content-encoding',
  'content-language',
  'content-length',
  'content-md5',
  'content-type',
  'date',
  'if-modified-since',
  'if-match',
  'if-none-match',
  'if-unmodified-since',
  'range',
] as const;

/** Adds x-ms-date and Authorization to `headers` (lower-case names) for a request to `url`. */
export function signSharedKey(
  method: string,
  url: URL,
  headers: Record<string, string>,
  account: string,
  keyBytes: Buffer,
): Record<string, string> {
  headers['x-ms-date'] = new Date().toUTCString();
  headers['x-ms-version'] ??= STORAGE_API_VERSION;
  const standard = STANDARD_HEADERS.map((h) => {
    const v = headers[h];
    return h === 'content-length' && v === '0' ? '' : (v ?? '');
  });
  const msHeaders = Object.keys(headers)
    .filter((h) => h.startsWith('x-ms-'))
    .sort()
    .map((h) => `${h}:${headers[h]!.trim()}\n`)
    .join('');
  const params = [...url.searchParams.keys()].map((k) => k.toLowerCase()).sort();
  const query = [...new Set(params)].map((k) => `\n${k}:${url.searchParams.getAll(k).join(',')}`).join('');
  const resource = `/${account}${decodeURIComponent(url.pathname)}${query}`;
  const stringToSign = `${method.toUpperCase()}\n${standard.join('\n')}\n${msHeaders}${resource}`;
  const signature = nodeCrypto().createHmac('sha256', keyBytes).update(stringToSign, 'utf8').digest('base64');
  headers.authorization = `SharedKey ${account}:${signature}`;
  return headers;
}
