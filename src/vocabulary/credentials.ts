// Which target the options name (embedded Azurite, a plain URL, or a blob service with a key, a SAS,
// an Entra ID token or no credentials at all), and the rules that keep one form of credentials per run.
import { ConfigError } from './errors.js';
import type { AuthMode } from './choices.js';

/** The target options as resolved (flag > environment > .env), before they are checked together. */
export interface TargetValues {
  url?: string;
  account?: string;
  key?: string;
  sas?: string;
  connectionString?: string;
  auth?: AuthMode;
  endpoint?: string;
  clientId?: string;
  caFile?: string;
  tls?: boolean;
}

export type Credentials =
  /** `tls`: the embedded Azurite over HTTPS at https://localhost, with a throwaway certificate. */
  | { kind: 'embedded'; tls?: boolean }
  | { kind: 'url'; url: string }
  | ({ kind: 'key'; key: string } & Service)
  | ({ kind: 'sas'; sas: string } & Service)
  /** A token from DefaultAzureCredential; `clientId` picks a user-assigned or workload identity. */
  | ({ kind: 'entra'; clientId?: string } & Service)
  /** No Authorization at all: public read access. */
  | ({ kind: 'anonymous' } & Service);

/** The target the credentials name, as a results file describes it (no secret in it). */
export function targetOf(c: Credentials): { kind: string; label: string } {
  switch (c.kind) {
    case 'embedded':
      return { kind: 'embedded-azurite', label: 'embedded Azurite' };
    case 'url':
      return { kind: 'url', label: `url ${new URL(c.url).host}` };
    default:
      return { kind: 'account', label: `account ${c.account}` };
  }
}

/**
 * Credentials that name a plain HTTP(S) server (--url): no blob service behind it. Asked here, where
 * the credentials are declared, not by testing their tag elsewhere.
 */
export const isPlainUrl = (c: Credentials): c is Extract<Credentials, { kind: 'url' }> => c.kind === 'url';

/** A blob service: its account, its URL and, optionally, a CA file (PEM) to trust for it. */
interface Service {
  account: string;
  endpoint: string;
  caFile?: string;
}

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
    if (eq <= 0)
      throw new ConfigError(
        'malformed STORAGE_CONNECTION_STRING (--connection-string): expected Key=Value pairs separated by ";"',
      );
    fields.set(part.slice(0, eq).trim().toLowerCase(), part.slice(eq + 1).trim());
  }
  if (fields.get('usedevelopmentstorage') === 'true') {
    throw new ConfigError(
      'STORAGE_CONNECTION_STRING says UseDevelopmentStorage=true; leave credentials unset to use the embedded Azurite',
    );
  }
  const account = fields.get('accountname');
  const key = fields.get('accountkey');
  const sas = fields.get('sharedaccesssignature');
  const blobEndpoint = fields.get('blobendpoint');
  if (!account && !blobEndpoint) {
    throw new ConfigError(
      'malformed STORAGE_CONNECTION_STRING (--connection-string): it names no AccountName or BlobEndpoint',
    );
  }
  if (!key && !sas) {
    throw new ConfigError(
      'malformed STORAGE_CONNECTION_STRING (--connection-string): it has neither AccountKey nor SharedAccessSignature',
    );
  }
  const protocol = fields.get('defaultendpointsprotocol') ?? 'https';
  const suffix = fields.get('endpointsuffix') ?? 'core.windows.net';
  const endpoint = blobEndpoint ?? `${protocol}://${account}.blob.${suffix}`;
  if (!URL.canParse(endpoint) || !/^https?:$/.test(new URL(endpoint).protocol)) {
    throw new ConfigError(
      'malformed STORAGE_CONNECTION_STRING (--connection-string): its blob endpoint is not an http:// or https:// URL',
    );
  }
  return { account: account ?? accountOf(endpoint), key, sas, endpoint: endpoint.replace(/\/+$/, '') };
}

/** Path-style endpoints (Azurite, IP hosts) name the account in the path; otherwise the host does. */
function accountOf(endpoint: string): string {
  const u = new URL(endpoint);
  const firstSegment = u.pathname.split('/').find(Boolean);
  return firstSegment ?? u.hostname.split('.')[0] ?? u.hostname;
}

/** The names a user knows each credential by, for messages. */
const NAMES = {
  key: 'STORAGE_KEY (--key)',
  sas: 'STORAGE_SAS (--sas)',
  'connection-string': 'STORAGE_CONNECTION_STRING (--connection-string)',
} as const;

/**
 * Where the blob service is: --endpoint as given (sovereign clouds, private endpoints, path-style
 * Azurite), else the public cloud's https://<account>.blob.core.windows.net. The account is the one
 * given, else the one the endpoint names.
 */
function accountAndEndpoint(
  mode: AuthMode,
  account: string | undefined,
  endpoint: string | undefined,
): { account: string; endpoint: string } {
  if (account !== undefined && !/^[a-z0-9]{3,24}$/.test(account)) {
    throw new ConfigError(`invalid STORAGE_ACCOUNT "${account}": expected 3-24 lowercase letters and digits`);
  }
  if (endpoint !== undefined) {
    const u = new URL(endpoint);
    if (u.search || u.hash)
      throw new ConfigError(
        'STORAGE_ENDPOINT (--endpoint) is the service URL alone, without a query; give a SAS with --sas',
      );
    const bare = endpoint.replace(/\/+$/, '');
    return { account: account ?? accountOf(bare), endpoint: bare };
  }
  if (account !== undefined) return { account, endpoint: `https://${account}.blob.core.windows.net` };
  throw new ConfigError(
    `--auth ${mode} needs the account: set STORAGE_ACCOUNT (--account) or STORAGE_ENDPOINT (--endpoint)`,
  );
}

/** A connection string as credentials: its account key, or its SAS (without a leading '?'). */
export function connectionStringCredentials(
  cs: string,
  ca: { caFile?: string } = {},
): Extract<Credentials, { kind: 'key' | 'sas' }> {
  const p = parseConnectionString(cs);
  if (p.key) return { kind: 'key', account: p.account, key: p.key, endpoint: p.endpoint, ...ca };
  return {
    kind: 'sas',
    account: p.account,
    sas: (p.sas ?? '').replace(/^\?/, ''),
    endpoint: p.endpoint,
    ...ca,
  };
}

export function resolveCredentials(o: TargetValues): Credentials {
  const { url, account, key, sas, connectionString: cs, auth, endpoint } = o;
  const accountGiven =
    account !== undefined ||
    key !== undefined ||
    sas !== undefined ||
    cs !== undefined ||
    endpoint !== undefined ||
    auth !== undefined;
  if (url !== undefined) return urlCredentials(o, url, accountGiven);
  if (o.tls && (cs !== undefined || account !== undefined || endpoint !== undefined || auth !== undefined)) {
    throw new ConfigError('--tls is for the embedded target; an account is reached over HTTPS already');
  }
  if (cs !== undefined && (account !== undefined || key !== undefined || sas !== undefined)) {
    throw new ConfigError(
      'STORAGE_CONNECTION_STRING is set together with STORAGE_ACCOUNT/KEY/SAS; give one form of credentials',
    );
  }
  if (key !== undefined && sas !== undefined)
    throw new ConfigError('both STORAGE_KEY and STORAGE_SAS are set; give one of them');
  const inferred: AuthMode | undefined =
    cs !== undefined
      ? 'connection-string'
      : key !== undefined
        ? 'key'
        : sas !== undefined
          ? 'sas'
          : undefined;
  const mode = auth ?? inferred;
  if (o.clientId !== undefined && mode !== 'entra')
    throw new ConfigError(
      '--client-id (BLOB_CACHER_CLIENT_ID) is for --auth entra; add --auth entra or drop --client-id',
    );
  if (mode === undefined) return embeddedCredentials(o);
  // One form of credentials per run: an explicit --auth refuses the secrets of another form.
  if (mode !== inferred && inferred !== undefined) {
    throw new ConfigError(
      `${NAMES[inferred]} is set with --auth ${mode}; drop it, or use --auth ${inferred}`,
    );
  }
  return accountCredentials(o, mode);
}

/** A plain server: nothing of an account applies. */
function urlCredentials(o: TargetValues, url: string, accountGiven: boolean): Credentials {
  if (accountGiven)
    throw new ConfigError('both URL (--url) and storage credentials are set; give one target, not both');
  if (o.tls)
    throw new ConfigError('--tls is for the embedded target; a --url says its own scheme (https://...)');
  if (o.clientId !== undefined)
    throw new ConfigError('--client-id is for --auth entra; a --url is a plain server: drop --client-id');
  if (o.caFile !== undefined)
    throw new ConfigError('--ca-file is for a blob service (--account or --endpoint); drop it with --url');
  return { kind: 'url', url };
}

/** No credentials and no account: the embedded target. */
function embeddedCredentials(o: TargetValues): Credentials {
  if (o.account !== undefined || o.endpoint !== undefined) {
    const named = o.account !== undefined ? 'STORAGE_ACCOUNT' : 'STORAGE_ENDPOINT';
    throw new ConfigError(
      `${named} is set but neither STORAGE_KEY nor STORAGE_SAS; set one of them ` +
        '(or STORAGE_CONNECTION_STRING), or --auth entra or --auth anonymous',
    );
  }
  if (o.caFile !== undefined)
    throw new ConfigError(
      '--ca-file is for a blob service (--account or --endpoint); ' +
        'the embedded target trusts its own certificate',
    );
  return o.tls ? { kind: 'embedded', tls: true } : { kind: 'embedded' };
}

/** An account, reached with the one form of credentials `mode` names. */
function accountCredentials(o: TargetValues, mode: AuthMode): Credentials {
  const { account, key, sas, connectionString: cs, endpoint, clientId, caFile } = o;
  const ca = caFile === undefined ? {} : { caFile };
  if (mode === 'connection-string') {
    if (cs === undefined)
      throw new ConfigError(`--auth connection-string needs ${NAMES['connection-string']}`);
    if (endpoint !== undefined)
      throw new ConfigError(
        'STORAGE_CONNECTION_STRING names its own endpoint; drop STORAGE_ENDPOINT (--endpoint), ' +
          'or give BlobEndpoint= in the string',
      );
    return connectionStringCredentials(cs, ca);
  }
  if ((mode === 'key' || mode === 'sas') && o[mode] === undefined)
    throw new ConfigError(`--auth ${mode} needs ${NAMES[mode]}`);
  if (account === undefined && endpoint === undefined && (mode === 'key' || mode === 'sas')) {
    throw new ConfigError(
      `${mode === 'key' ? 'STORAGE_KEY' : 'STORAGE_SAS'} is set without STORAGE_ACCOUNT; ` +
        'set STORAGE_ACCOUNT (--account) or STORAGE_ENDPOINT (--endpoint) too',
    );
  }
  const where = accountAndEndpoint(mode, account, endpoint);
  switch (mode) {
    case 'key':
      if (!/^[A-Za-z0-9+/]+={0,2}$/.test(key!))
        throw new ConfigError('invalid STORAGE_KEY (--key): expected the base64 account key');
      return { kind: 'key', ...where, key: key!, ...ca };
    case 'sas':
      return { kind: 'sas', ...where, sas: sas!.replace(/^\?/, ''), ...ca };
    case 'entra':
      // A bearer token is a password for its lifetime: the service refuses it over plain HTTP, and so do we.
      if (new URL(where.endpoint).protocol !== 'https:') {
        throw new ConfigError(
          `--auth entra sends a bearer token, which needs an https:// endpoint; ${where.endpoint} is http: ` +
            'fix STORAGE_ENDPOINT (--endpoint)',
        );
      }
      return { kind: 'entra', ...where, ...(clientId === undefined ? {} : { clientId }), ...ca };
    case 'anonymous':
      return { kind: 'anonymous', ...where, ...ca };
  }
}
