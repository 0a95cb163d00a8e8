// Entra ID tokens for the blob service. Only the coordinator fetches them (DefaultAzureCredential:
// managed identity, workload identity, az login, ...), always before a run's barrier; workers and the
// SDK baselines get the token as plain data with their job and never ask an identity endpoint.
import type { AccessToken, TokenCredential } from '@azure/identity';
import { ConfigError } from '../vocabulary/errors.js';
import { log, registerSecret } from '../log/logger.js';

/** The audience of every token the blob service accepts. */
export const STORAGE_SCOPE = 'https://storage.azure.com/.default';

/** A token as it travels to workers: the raw JWT and when it stops being accepted (epoch ms). */
export interface Bearer {
  token: string;
  expiresOnMs: number;
}

/**
 * What a refusal means for a bearer token: the identity lacks a data role, or the token is for another
 * audience.
 */
export const TOKEN_REFUSED_FIX =
  'assign the role "Storage Blob Data Contributor" on the account (or the container) to this identity, ' +
  "and check that the token's audience is https://storage.azure.com";

/** What our client or the SDK writes of a refused token. */
const REFUSED_TOKEN = new RegExp(
  String.raw`\bHTTP 40[13]\b|AuthenticationFailed|AuthorizationPermissionMismatch|` +
    'InvalidAuthenticationInfo|failed to authenticate',
  'i',
);

/** The service refused a request's token (401/403): its status, or the error our client or the SDK wrote. */
export function refusedToken(r: { status: number; error?: string }): boolean {
  return r.status === 401 || r.status === 403 || REFUSED_TOKEN.test(r.error ?? '');
}

/** A run's failure, with the fix when the requests carried a token and it was refused. */
export function withTokenFix(
  failure: string,
  usedToken: boolean,
  failed: readonly { status: number; error?: string }[],
): string {
  return usedToken && failed.some(refusedToken) ? `${failure}; ${TOKEN_REFUSED_FIX}` : failure;
}

/** A token is renewed when it has less than this left, or less than half its lifetime. */
export const REFRESH_BEFORE_MS = 5 * 60_000;

/**
 * The coordinator's token, renewed between runs: a run starts with one that has at least five
 * minutes (or half its lifetime) left. Expiry is a point on the wall clock, so Date.now() is right here.
 */
export class TokenSource {
  private readonly credential: TokenCredential;
  private held?: Bearer;
  private heldSinceMs = 0;
  /** Distinct tokens received so far. */
  fetches = 0;

  constructor(credential: TokenCredential) {
    this.credential = credential;
  }

  private expiresSoon(nowMs: number): boolean {
    if (!this.held) return true;
    const leftMs = this.held.expiresOnMs - nowMs;
    return leftMs < REFRESH_BEFORE_MS || leftMs < (this.held.expiresOnMs - this.heldSinceMs) / 2;
  }

  /** A token good for the next run: the one held, or a new one when it expires soon. */
  async current(signal?: AbortSignal): Promise<Bearer> {
    if (this.held && !this.expiresSoon(Date.now())) return this.held;
    let got: AccessToken | null;
    try {
      got = await this.credential.getToken(STORAGE_SCOPE, { abortSignal: signal });
    } catch (err) {
      throw new ConfigError(
        `could not get an Entra ID token for ${STORAGE_SCOPE} (${whyNoToken(err)}); run where a managed ` +
          'identity or workload identity is available (AZURE_CLIENT_ID, AZURE_TENANT_ID, ' +
          'AZURE_FEDERATED_TOKEN_FILE), sign in with az login, or choose another --auth',
      );
    }
    if (!got?.token)
      throw new ConfigError(
        'DefaultAzureCredential returned no token; check the identity, or choose another --auth',
      );
    // The credential's own cache may answer with the token held: its lifetime still counts from when it came.
    if (got.token === this.held?.token) return this.held;
    // Masked from here on in every log line, report and results file of this process.
    registerSecret(got.token);
    this.held = { token: got.token, expiresOnMs: got.expiresOnTimestamp };
    this.heldSinceMs = Date.now();
    this.fetches++;
    log.verbose(
      `entra: token ${this.fetches} for ${STORAGE_SCOPE}, valid for ` +
        `${Math.round((got.expiresOnTimestamp - this.heldSinceMs) / 1000)} s`,
    );
    return this.held;
  }
}

/**
 * The chain's one real failure, on one line: of DefaultAzureCredential's credentials, those that
 * found nothing to use only say so (and a failing managed identity is reported as unavailable too).
 */
function whyNoToken(err: unknown): string {
  const errors = ((err as { errors?: Error[] }).errors ?? [err as Error]).filter(Boolean);
  const real =
    errors.find((e) => e.name !== 'CredentialUnavailableError') ??
    errors.find((e) => /\bfailed\b/i.test(e.message));
  if (!real) return "none of DefaultAzureCredential's credentials is available here";
  const line = String(real.message)
    .split('\n')[0]!
    .replace(/\s*Error\(s\): Not Available.*$/, '')
    .replace(/[\s:]+$/, '');
  return line.length > 200 ? `${line.slice(0, 200)}...` : line;
}

/** DefaultAzureCredential, loaded on first use only: no other target pays for @azure/identity. */
export async function entraTokens(clientId?: string): Promise<TokenSource> {
  const { DefaultAzureCredential } = await import('@azure/identity');
  // Instance discovery asks login.microsoftonline.com about the authority; as @azure/identity does
  // for AKS token exchange, it is skipped, so that AZURE_AUTHORITY_HOST may name a private cloud.
  const ids =
    clientId === undefined ? {} : { managedIdentityClientId: clientId, workloadIdentityClientId: clientId };
  return new TokenSource(new DefaultAzureCredential({ ...ids, disableInstanceDiscovery: true }));
}

/**
 * A TokenCredential that answers with a token already held, without any request: the SDK in a
 * worker (a static token from its job) or in the coordinator (the source's current token).
 */
export function heldToken(read: () => Bearer | Promise<Bearer>): TokenCredential {
  return {
    async getToken(): Promise<AccessToken> {
      const b = await read();
      return { token: b.token, expiresOnTimestamp: b.expiresOnMs };
    },
  };
}
