// An https server on 127.0.0.1:0 with a throwaway self-signed certificate for localhost, made by
// openssl in a temp dir; or the reason it could not be made (the test then skips and says why).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { RequestListener } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TlsServer {
  /** https://localhost:PORT */
  base: string;
  /** The certificate to trust. */
  ca: Buffer;
  stop(): Promise<void>;
}

export async function startTlsServer(handler: RequestListener): Promise<TlsServer | string> {
  const dir = mkdtempSync(join(tmpdir(), 'bc-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        join(dir, 'k.pem'),
        '-out',
        join(dir, 'c.pem'),
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
        '-days',
        '1',
      ],
      { stdio: 'ignore' },
    );
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    return `openssl could not make a certificate: ${(err as Error).message}`;
  }
  const ca = readFileSync(join(dir, 'c.pem'));
  const server = https.createServer({ key: readFileSync(join(dir, 'k.pem')), cert: ca }, handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    base: `https://localhost:${(server.address() as AddressInfo).port}`,
    ca,
    async stop() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
