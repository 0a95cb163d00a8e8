// One redaction for every writer: every secret form — account key, SAS signature,
// connection string, URL password, bearer token — fed through every output (logs at silly, the
// results file, console, md, csv, json, html, error lines), in sweeps as well as single runs.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redact, redactDeep, registerSecret } from '../src/log/redact.js';
import { accountSas, startEmbeddedAzurite, type EmbeddedAzurite } from './helpers/azurite.js';
import { close, deterministicBuffer, listen } from './helpers/http-servers.js';
import { ONE_RUN } from './helpers/cli-env.js';

const root = resolve(import.meta.dirname, '..');
const FORMATS = ['console', 'md', 'csv', 'json', 'html'] as const;

describe('redact()', () => {
  it('masks each secret form by its shape, registered or not', () => {
    const cases: [string, string][] = [
      ['https://a.blob.core.windows.net/c/b?sv=2024&sig=SiGnAtUrE%2Bvalue', 'value'],
      ['<a href="https://h/b?sv=2024&amp;sig=HtMlSiGnAtUrE">', 'HtMlSiGnAtUrE'],
      ['next=https%3A%2F%2Fh%2Fb%3Fsv%3D1%26sig%3DEnCoDeDsIg%252B1%26se%3D2', 'EnCoDeDsIg'],
      ['AccountName=a;AccountKey=S3cr3tKeyValue==;BlobEndpoint=http://x', 'S3cr3tKeyValue'],
      ['BlobEndpoint=http://x;SharedAccessSignature=sv=1&sig=ZZZsigZZZ', 'ZZZsigZZZ'],
      ['GET http://user:Pa55word@host:8080/x', 'Pa55word'],
      ['{"authorization":"Bearer eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.c2ln"}', 'eyJhbGciOiJub25lIn0'],
      ['token: Bearer eyJhbGciOiJub25lIn0.eyJhdWQiOiJ4In0.', 'eyJhdWQiOiJ4In0'],
      // No '=', '%' or '@' in these: the header's name alone must bring the patterns in.
      ['Authorization: SharedKey acct:SiGkEyBaSe64', 'SiGkEyBaSe64'],
      ['authorization: Basic dXNlcjpwYXNzd29yZA', 'dXNlcjpwYXNzd29yZA'],
    ];
    for (const [text, secret] of cases) expect(redact(text), text).not.toContain(secret);
    registerSecret('registered-plain-value');
    expect(redact('the key is registered-plain-value here')).toBe('the key is [redacted] here');
  });

  it('redactDeep masks secret-named fields and every string below, keeping the shape', () => {
    const doc = {
      config: { key: 'abcdefgh', nested: ['http://u:pw123456@h/x'], n: 3 },
      runs: [{ cell: { '--url': 'http://h/x?sig=SIG12345' } }],
    };
    const out = redactDeep(doc);
    expect(out).toEqual({
      config: { key: '[redacted]', nested: ['http://u:[redacted]@h/x'], n: 3 },
      runs: [{ cell: { '--url': 'http://h/x?sig=[redacted]' } }],
    });
    expect(doc.config.key).toBe('abcdefgh');
  });
});

function cli(
  cwd: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn(process.execPath, [join(root, 'dist/cli.js'), ...args], {
      cwd,
      env: { ...ONE_RUN, PATH: process.env.PATH ?? '', HOME: cwd, ...env },
    });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code) => done({ code, output }));
  });
}

let cwd: string;
let server: http.Server;
let base: string;
let azurite: EmbeddedAzurite;
const SIZE = 64 * 1024;

beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'bc-redact-'));
  const body = deterministicBuffer(SIZE);
  server = http.createServer((req, res) => {
    res.writeHead(200, { 'content-length': SIZE, 'accept-ranges': 'bytes' });
    res.end(req.method === 'HEAD' ? undefined : body);
  });
  base = await listen(server);
  azurite = await startEmbeddedAzurite();
});
afterAll(async () => {
  await close(server);
  await azurite?.stop();
  await rm(cwd, { recursive: true, force: true });
});

describe('a sweep of secret-bearing targets, through every format', () => {
  it(
    'swept --url values with a password and a SAS signature appear in no output ' + 'and no results file',
    async () => {
      const secrets = ['PASSWORD-ONE-1', 'PASSWORD-TWO-2', 'SIGNATURE-ONE-1', 'SIGNATURE-TWO-2'];
      const host = base.replace('http://', '');
      const urls = [
        `http://u:${secrets[0]}@${host}/x?sv=1&sig=${secrets[2]}`,
        `http://u:${secrets[1]}@${host}/y?sv=1&sig=${secrets[3]}`,
      ];
      for (const format of FORMATS) {
        const results = join(cwd, `sweep-url-${format}.json`);
        const r = await cli(cwd, [
          'sweep',
          'download',
          '--url',
          urls.join(','),
          '--source-method',
          'single',
          '--log-level',
          'silly',
          '--format',
          format,
          '--results',
          results,
        ]);
        expect(r.code, r.output).toBe(0);
        expect(r.output, format).toMatch(/ silly: GET /);
        const file = await readFile(results, 'utf8');
        expect(file).toContain('sig=[redacted]');
        for (const s of secrets) {
          expect(r.output.includes(s), `${format}: output holds ${s}`).toBe(false);
          expect(file.includes(s), `${format}: results file holds ${s}`).toBe(false);
        }
        // And the report command on that file.
        const again = await cli(cwd, ['report', results, '--format', format]);
        expect(again.code, again.output).toBe(0);
        for (const s of secrets) expect(again.output.includes(s), `report ${format}: holds ${s}`).toBe(false);
      }
    },
  );

  it('swept connection strings (account key, SAS) appear in no output and no results file', async () => {
    const sas = accountSas(azurite);
    const sig = new URLSearchParams(sas).get('sig')!;
    const withKey =
      `DefaultEndpointsProtocol=http;AccountName=${azurite.account};AccountKey=${azurite.key};` +
      `BlobEndpoint=${azurite.endpoint}`;
    const withSas =
      `AccountName=${azurite.account};BlobEndpoint=${azurite.endpoint};` + `SharedAccessSignature=${sas}`;
    const results = join(cwd, 'sweep-cs.json');
    // A connection string holds no comma, so two of them make a sweep axis; semicolons need quoting only in a
    // shell.
    const r = await cli(cwd, [
      'sweep',
      'download',
      '--connection-string',
      `${withKey},${withSas}`,
      '--container',
      'redact-cs',
      '--source-method',
      'single',
      '--file-size',
      '64KB',
      '--log-level',
      'silly',
      '--format',
      'json',
      '--results',
      results,
    ]);
    expect(r.code, r.output).toBe(0);
    const file = await readFile(results, 'utf8');
    for (const [name, value] of Object.entries({
      key: azurite.key,
      sig,
      'url-encoded sig': encodeURIComponent(sig),
      sas,
      withKey,
      withSas,
    })) {
      expect(r.output.includes(value), `output holds the ${name}`).toBe(false);
      expect(file.includes(value), `results file holds the ${name}`).toBe(false);
    }
  });

  it('an error line naming a URL with a password masks it', async () => {
    const r = await cli(cwd, [
      'download',
      '--url',
      'http://u:ERRPASSWORD99@127.0.0.1:1/x',
      '--timeout',
      '200ms',
      '--results',
      join(cwd, 'err.json'),
    ]);
    expect(r.code).toBe(2);
    expect(r.output).toMatch(/^blob-cacher: /m);
    expect(r.output).not.toContain('ERRPASSWORD99');
  });
});
