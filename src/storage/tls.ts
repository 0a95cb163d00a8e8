// A throwaway certificate for the embedded target over HTTPS: made in-process by a library made for
// it (selfsigned), for localhost and 127.0.0.1, valid for a day, trusted only by this run's clients
// (they get it as `ca`; nothing is installed anywhere).
export interface Certificate {
  cert: string;
  key: string;
}

export async function throwawayCertificate(): Promise<Certificate> {
  const { generate } = await import('selfsigned');
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec',
    curve: 'P-256',
    notAfterDate: new Date(Date.now() + 24 * 3600 * 1000),
    algorithm: 'sha256',
    extensions: [
      { name: 'basicConstraints', cA: false },
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  return { cert: pems.cert, key: pems.private };
}
