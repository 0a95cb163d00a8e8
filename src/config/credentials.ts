// Which target the options name (embedded Azurite, a plain URL, or an account with a key or SAS),
// and the rules that keep one form of credentials per run.
import { ConfigError } from './errors.js';
import type { Resolved, TARGET_OPTIONS } from './options.js';

export type Credentials =
  /** `tls`: the embedded Azurite over HTTPS at https://localhost, with a throwaway certificate. */
  | { kind: 'embedded'; tls?: boolean }
  | { kind: 'url'; url: string }
  | { kind: 'key'; account: string; key: string; endpoint: string }
  | { kind: 'sas'; account: string; sas: string; endpoint: string };

interface ParsedConnectionString {
  account: string;
  key?: string;
  sas?: string;
  endpoint: string;
}

export function parseConnectionString(cs: string): ParsedConnectionString {
  const fields = new Map<string, string>();
  for (const part of cs.split(';')) {
    if (part.trim() === '') continue;
    const eq = part.indexOf('=');
    if (eq <= 0) throw new ConfigError('malformed STORAGE_CONNECTION_STRING (--connection-string): expected Key=Value pairs separated by ";"');
    fields.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim());
  }
  if (fields.get('usedevelopmentstorage') === 'true') {
    throw new ConfigError('STORAGE_CONNECTION_STRING says UseDevelopmentStorage=true; leave credentials unset to use the embedded Azurite');
  }
  const account = fields.get('accountname');
  const key = fields.get('accountkey');
  const sas = fields.get('sharedaccesssignature');
  const blobEndpoint = fields.get('blobendpoint');
  if (!account && !blobEndpoint) {
    throw new ConfigError('malformed STORAGE_CONNECTION_STRING (--connection-string): it names no AccountName or BlobEndpoint');
  }
  if (!key && !sas) {
    throw new ConfigError('malformed STORAGE_CONNECTION_STRING (--connection-string): it has neither AccountKey nor SharedAccessSignature');
  }
  const protocol = fields.get('defaultendpointsprotocol') ?? 'https';
  const suffix = fields.get('endpointsuffix') ?? 'core.windows.net';
  const endpoint = blobEndpoint ?? `${protocol}://${account}.blob.${suffix}`;
  if (!URL.canParse(endpoint) || !/^https?:$/.test(new URL(endpoint).protocol)) {
    throw new ConfigError('malformed STORAGE_CONNECTION_STRING (--connection-string): its blob endpoint is not an http:// or https:// URL');
  }
  let accountName = account;
  if (!accountName) {
    // Path-style endpoints (Azurite, IP hosts) name the account in the path; otherwise the host does.
    const u = new URL(endpoint);
    const firstSegment = u.pathname.split('/').find(Boolean);
    accountName = firstSegment ?? u.hostname.split('.')[0] ?? u.hostname;
  }
  return { account: accountName, key, sas, endpoint: endpoint.replace(/\/+$/, '') };
}

export function resolveCredentials(o: Resolved<typeof TARGET_OPTIONS>): Credentials {
  const { url, account, key, sas, connectionString: cs } = o;
  const accountGiven = account !== undefined || key !== undefined || sas !== undefined || cs !== undefined;
  if (url !== undefined) {
    if (accountGiven) throw new ConfigError('both URL (--url) and storage credentials are set; give one target, not both');
    if (o.tls) throw new ConfigError('--tls is for the embedded target; a --url says its own scheme (https://...)');
    return { kind: 'url', url };
  }
  if (o.tls && (cs !== undefined || account !== undefined)) {
    throw new ConfigError('--tls is for the embedded target; an account is reached over HTTPS already');
  }
  if (cs !== undefined) {
    if (account !== undefined || key !== undefined || sas !== undefined) {
      throw new ConfigError('STORAGE_CONNECTION_STRING is set together with STORAGE_ACCOUNT/KEY/SAS; give one form of credentials');
    }
    const p = parseConnectionString(cs);
    if (p.key) return { kind: 'key', account: p.account, key: p.key, endpoint: p.endpoint };
    return { kind: 'sas', account: p.account, sas: (p.sas ?? '').replace(/^\?/, ''), endpoint: p.endpoint };
  }
  if (account === undefined && (key !== undefined || sas !== undefined)) {
    throw new ConfigError(`${key !== undefined ? 'STORAGE_KEY' : 'STORAGE_SAS'} is set without STORAGE_ACCOUNT; set STORAGE_ACCOUNT (--account) too`);
  }
  if (account !== undefined) {
    if (!/^[a-z0-9]{3,24}$/.test(account)) {
      throw new ConfigError(`invalid STORAGE_ACCOUNT "${account}": expected 3-24 lowercase letters and digits`);
    }
    const endpoint = `https://${account}.blob.core.windows.net`;
    if (key !== undefined && sas !== undefined) throw new ConfigError('both STORAGE_KEY and STORAGE_SAS are set; give one of them');
    if (key !== undefined) {
      if (!/^[A-Za-z0-9+/]+={0,2}$/.test(key)) throw new ConfigError('invalid STORAGE_KEY (--key): expected the base64 account key');
      return { kind: 'key', account, key, endpoint };
    }
    if (sas !== undefined) return { kind: 'sas', account, sas: sas.replace(/^\?/, ''), endpoint };
    throw new ConfigError('STORAGE_ACCOUNT is set but neither STORAGE_KEY nor STORAGE_SAS; set one of them (or STORAGE_CONNECTION_STRING)');
  }
  return o.tls ? { kind: 'embedded', tls: true } : { kind: 'embedded' };
}
