// Opens the target the credentials name: a plain URL, the embedded Azurite (in a process of its
// own), or an account, with its credential registered for redaction and, with Entra ID, its first
// token fetched before preflight.
import type { Credentials } from '../vocabulary/credentials.js';
import { registerCredential } from '../log/logger.js';
import { blobTarget } from './blob-target.js';
import { entraTokens } from './entra.js';
import { readCa, type Target } from './target.js';
import { urlTarget } from './url-target.js';

const AUTH_LABELS = { key: 'SharedKey', sas: 'SAS', entra: 'Entra ID', anonymous: 'anonymous' } as const;

export async function openTarget(
  credentials: Credentials,
  container: string,
  signal?: AbortSignal,
): Promise<Target> {
  switch (credentials.kind) {
    case 'url':
      return urlTarget(credentials.url);
    case 'embedded':
      return embeddedTarget(credentials.tls, container);
    default:
      return accountTarget(credentials, container, signal);
  }
}

async function embeddedTarget(tls: boolean | undefined, container: string): Promise<Target> {
  // Its own process (started early by the CLI, or now): its garbage collections stay out of ours.
  const { startAzuriteProcess } = await import('./azurite-child.js');
  const azurite = await startAzuriteProcess({ tls });
  const info = {
    kind: 'blob',
    embedded: true,
    endpoint: azurite.endpoint,
    container,
    account: azurite.account,
    key: azurite.key,
    ...(azurite.ca ? { ca: azurite.ca } : {}),
  } as const;
  return blobTarget(info, {
    label: `embedded Azurite ${azurite.endpoint}`,
    serverClock: azurite.clock,
    lost: azurite.lost,
    stop: () => azurite.stop(),
  });
}

type AccountCredentials = Exclude<Credentials, { kind: 'url' | 'embedded' }>;

async function accountTarget(c: AccountCredentials, container: string, signal?: AbortSignal) {
  const ca = c.caFile === undefined ? {} : { ca: await readCa(c.caFile) };
  const base = {
    kind: 'blob',
    embedded: false,
    endpoint: c.endpoint,
    container,
    account: c.account,
    ...ca,
  } as const;
  const label = `account ${c.account} (${AUTH_LABELS[c.kind]})`;
  switch (c.kind) {
    case 'key':
      registerCredential(c.key);
      return blobTarget({ ...base, key: c.key }, { label });
    case 'sas':
      registerCredential(c.sas);
      return blobTarget({ ...base, sas: c.sas }, { label });
    case 'anonymous':
      return blobTarget(base, { label });
    case 'entra': {
      // The first token now, before preflight and fixtures: a missing identity fails here, in one line.
      const tokens = await entraTokens(c.clientId);
      return blobTarget({ ...base, bearer: await tokens.current(signal) }, { label, tokens });
    }
  }
}
