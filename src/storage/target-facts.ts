// What a workload asks of a target, asked here so that no layer above tests a target's kind.
import type { TargetInfo } from './target.js';

/** A plain HTTP(S) server: plain PUT and GET, no blocks, no Content-MD5 of its own. */
export const isPlainServer = (info: TargetInfo): boolean => info.kind === 'url';

/** The embedded Azurite: its blobs live in its memory and end with its process. */
export const isEmbedded = (info: TargetInfo): boolean => info.kind === 'blob' && info.embedded;

/** Requests carry an Entra ID token (a failure's fix may be a role). */
export const usesToken = (info: TargetInfo): boolean => info.kind === 'blob' && info.bearer !== undefined;
