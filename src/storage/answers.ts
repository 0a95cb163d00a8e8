// What a target answers a request with when it went well, for the kinds that ask it: a blob service
// and a plain HTTP server (WebDAV) differ, and only this folder tells targets apart.
import type { TargetInfo } from './target.js';

/** Delete Blob answers 202 Accepted; a plain server 204 No Content, or 200 with a body. */
export const deleteStatuses = (info: TargetInfo): readonly number[] =>
  info.kind === 'url' ? [200, 204] : [202];

/** A plain HTTP server: it keeps no MD5 and cannot list a folder. */
export const isPlainServer = (info: TargetInfo): boolean => info.kind === 'url';

/** A plain HTTP server's own fields; undefined for a blob service. */
export const plainServerOf = (info: TargetInfo): Extract<TargetInfo, { kind: 'url' }> | undefined =>
  info.kind === 'url' ? info : undefined;

/** How a blob service is signed in to, as the container's preflight names it. */
export const authOf = (info: TargetInfo): 'entra' | 'secret' =>
  info.kind === 'blob' && info.bearer ? 'entra' : 'secret';
