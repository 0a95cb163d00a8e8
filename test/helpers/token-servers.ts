// Real token servers on 127.0.0.1 for --auth entra tests: the identity endpoint of App Service and
// Container Apps (managed identity), and an Entra ID authority answering the client-credentials
// grant of a workload identity (AKS). Both issue unsigned JWTs with the claims Azurite's
// `--oauth basic` checks (aud, iss, iat, nbf, exp) and count what they were asked.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { throwawayCertificate } from '../../src/storage/tls.js';

export const TENANT = '72f988bf-86f1-41af-91ab-2d7cd011db47';
export const STORAGE_AUDIENCE = 'https://storage.azure.com';

export interface TokenOptions {
  /** Seconds each token is valid (default one hour). */
  lifetimeS?: number;
  /** The token's audience (default https://storage.azure.com). */
  audience?: string;
  /** Answer each token request this much later (an identity endpoint under load). */
  delayMs?: number;
}

/** One token the server issued, and what it was asked. */
export interface Issued {
  token: string;
  atMs: number;
  expiresOnMs: number;
  /** The managed identity request's query, or the form of the client-credentials POST. */
  params: Record<string, string>;
}

export interface TokenServer {
  /** The identity endpoint (IDENTITY_ENDPOINT) or authority host (AZURE_AUTHORITY_HOST). */
  url: string;
  issued: Issued[];
  /** Requests refused (wrong header, assertion or client). */
  refused: string[];
  stop(): Promise<void>;
}

const b64url = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');

/** A JWT as Entra ID issues one, but not signed: Azurite's basic OAuth never checks a signature. */
export function unsignedJwt(opts: TokenOptions & { nowS?: number } = {}): {
  token: string;
  expiresOnS: number;
} {
  const now = opts.nowS ?? Math.floor(Date.now() / 1000);
  const exp = now + (opts.lifetimeS ?? 3600);
  const claims = {
    aud: opts.audience ?? STORAGE_AUDIENCE,
    iss: `https://sts.windows.net/${TENANT}/`,
    iat: now,
    nbf: now - 60,
    exp,
    oid: randomBytes(8).toString('hex'),
  };
  return {
    token:
      `${b64url({ alg: 'RS256', typ: 'JWT' })}.${b64url(claims)}.` +
      `${randomBytes(32).toString('base64url')}`,
    expiresOnS: exp,
  };
}

async function listening(server: http.Server, scheme: 'http' | 'https'): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (
    `${scheme}://${scheme === 'https' ? 'localhost' : '127.0.0.1'}:` +
    `${(server.address() as AddressInfo).port}`
  );
}

function stopper(server: http.Server): () => Promise<void> {
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections();
    });
}

function json(res: http.ServerResponse, status: number, body: object): void {
  const text = JSON.stringify(body);
  res
    .writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
    .end(text);
}

/**
 * App Service / Container Apps managed identity: GET IDENTITY_ENDPOINT?resource=…&api-version=2019-08-01
 * with the X-IDENTITY-HEADER secret; answers access_token, expires_on (epoch seconds), resource, token_type.
 */
export async function startManagedIdentityServer(
  identityHeader: string,
  opts: TokenOptions = {},
): Promise<TokenServer> {
  const issued: Issued[] = [];
  const refused: string[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const params = Object.fromEntries(url.searchParams);
    if (req.method !== 'GET' || url.pathname !== '/msi/token' || params['api-version'] !== '2019-08-01') {
      refused.push(`${req.method} ${url.pathname}`);
      return json(res, 404, { error: 'not_found' });
    }
    if (req.headers['x-identity-header'] !== identityHeader) {
      refused.push('wrong X-IDENTITY-HEADER');
      return json(res, 401, { error: 'unauthorized' });
    }
    setTimeout(() => {
      const { token, expiresOnS } = unsignedJwt(opts);
      issued.push({ token, atMs: Date.now(), expiresOnMs: expiresOnS * 1000, params });
      json(res, 200, {
        access_token: token,
        expires_on: String(expiresOnS),
        resource: params.resource,
        token_type: 'Bearer',
        client_id: params.client_id ?? 'system-assigned',
      });
    }, opts.delayMs ?? 0);
  });
  const base = await listening(server, 'http');
  return { url: `${base}/msi/token`, issued, refused, stop: stopper(server) };
}

export interface AuthorityServer extends TokenServer {
  /** The certificate (PEM) of its HTTPS endpoint: NODE_EXTRA_CA_CERTS of the client. */
  ca: string;
}

/**
 * An Entra ID authority over HTTPS for a workload identity: the OpenID configuration of the tenant,
 * and the client-credentials grant with the federated token as client assertion.
 */
export async function startAuthorityServer(
  clientId: string,
  federatedToken: string,
  opts: TokenOptions = {},
): Promise<AuthorityServer> {
  const issued: Issued[] = [];
  const refused: string[] = [];
  const tls = await throwawayCertificate();
  let base = '';
  const server = https.createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const path = new URL(req.url ?? '/', 'https://x').pathname;
    if (req.method === 'GET' && path === `/${TENANT}/v2.0/.well-known/openid-configuration`) {
      return json(res, 200, {
        issuer: `${base}/${TENANT}/v2.0`,
        token_endpoint: `${base}/${TENANT}/oauth2/v2.0/token`,
        authorization_endpoint: `${base}/${TENANT}/oauth2/v2.0/authorize`,
        jwks_uri: `${base}/${TENANT}/discovery/v2.0/keys`,
      });
    }
    if (req.method !== 'POST' || path !== `/${TENANT}/oauth2/v2.0/token`) {
      refused.push(`${req.method} ${path}`);
      return json(res, 404, { error: 'not_found' });
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const params = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
      const why =
        params.grant_type !== 'client_credentials'
          ? `grant_type ${params.grant_type}`
          : params.client_id !== clientId
            ? `client_id ${params.client_id}`
            : params.client_assertion !== federatedToken
              ? 'wrong client_assertion'
              : params.client_assertion_type !== 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer'
                ? 'client_assertion_type'
                : undefined;
      if (why) {
        refused.push(why);
        return json(res, 400, { error: 'invalid_client', error_description: why });
      }
      const lifetimeS = opts.lifetimeS ?? 3600;
      const { token, expiresOnS } = unsignedJwt(opts);
      issued.push({
        token,
        atMs: Date.now(),
        expiresOnMs: expiresOnS * 1000,
        params: { ...params, client_assertion: '(checked)' },
      });
      json(res, 200, {
        token_type: 'Bearer',
        expires_in: lifetimeS,
        ext_expires_in: lifetimeS,
        access_token: token,
      });
    });
  });
  base = await listening(server, 'https');
  return { url: base, ca: tls.cert, issued, refused, stop: stopper(server) };
}
