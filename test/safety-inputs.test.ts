// Hostile input (files, fields and options a user can get wrong, and a worker count the machine
// cannot hold): each ends in one line with exit 2 that names the file, field or
// option and the fix, never hangs, and never shows a secret. Through the built CLI where the edge is
// the point; the CLI is killed at a limit, so a hang fails the test instead of stalling it.
import { execFileSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import http from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gridCells } from '../src/config/sweep.js';
import { ConfigError } from '../src/vocabulary/errors.js';
import {
  CLIENT_RESULTS_SCHEMA,
  CLIENT_RESULTS_VERSION,
  parseClientResults,
} from '../src/scaleout/client-results.js';
import { noResultsProblem } from '../src/cli/commands/collect.js';
import { runCli } from './helpers/cli.js';
import { close, deterministicBuffer, listen, objectServer } from './helpers/http-servers.js';
import { freshDirs } from './helpers/temp-dirs.js';
import { startTlsServer } from './helpers/tls.js';

const isRoot = process.getuid?.() === 0;
const fresh = freshDirs('safety-inputs-');
const KEY = Buffer.from('not a real key, 32 bytes long!!!').toString('base64');

/** Exit 2 and exactly one line on stderr (after any warning lines the test allows). */
function oneLine(run: { code: number | null; stderr: string; killedAtLimit: boolean }): string {
  expect(run.killedAtLimit, run.stderr).toBe(false);
  expect(run.code, run.stderr).toBe(2);
  const lines = run.stderr
    .trimEnd()
    .split('\n')
    .filter((l) => l.startsWith('blob-cacher:'));
  expect(lines, run.stderr).toHaveLength(1);
  return lines[0]!;
}

let server: http.Server;
let url: string;
beforeAll(async () => {
  server = objectServer(deterministicBuffer(64 * 1024), true).server;
  url = `${await listen(server)}/blob.bin`;
});
afterAll(() => close(server));

describe('secrets stay out of what is printed and stored', () => {
  it('a decoded SAS signature in an SDK 500 error is masked on stderr and in the results file', async () => {
    const sig500 = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const xml =
          `<?xml version="1.0" encoding="utf-8"?><Error><Code>InternalError</Code><Message>signature ` +
          `ab+cd/ef= did not match</Message></Error>`;
        res
          .writeHead(500, {
            'content-type': 'application/xml',
            'x-ms-error-code': 'InternalError',
            'content-length': Buffer.byteLength(xml),
          })
          .end(xml);
      });
    });
    const base = await listen(sig500);
    try {
      const cwd = await fresh();
      const run = await runCli(
        [
          'download',
          '--account',
          'devstoreaccount1',
          '--endpoint',
          `${base}/devstoreaccount1`,
          '--sas',
          'sv=2023-01-03&sp=rwdlac&se=2030-01-01&sig=ab%2Bcd%2Fef%3D',
          '--results',
          'r.json',
          '--log-level',
          'debug',
        ],
        { cwd, limitMs: 30_000 },
      );
      expect(run.killedAtLimit).toBe(false);
      expect(run.stderr).toContain('did not match');
      for (const form of ['ab+cd/ef=', 'ab%2Bcd%2Fef%3D', 'ab cd/ef=']) {
        expect(run.stderr).not.toContain(form);
        expect(run.stdout).not.toContain(form);
        expect(await readFile(join(cwd, 'r.json'), 'utf8').catch(() => '')).not.toContain(form);
      }
    } finally {
      await close(sig500);
    }
  });

  it('an invalid --url with a password holding a slash is refused without echoing the password', async () => {
    const line = oneLine(
      await runCli(['download', '--url', 'http://user:SECRET/PW@127.0.0.1:1/x'], { cwd: await fresh() }),
    );
    expect(line).toContain('--url');
    expect(line).not.toMatch(/SECRET|PW@/);
  });

  it('a swept --url split at a comma inside its password echoes no piece of the password', async () => {
    const line = oneLine(
      await runCli(['sweep', 'download', '--url', 'http://user:PASSWORDONE,PASSWORDTWO@127.0.0.1:1/x'], {
        cwd: await fresh(),
      }),
    );
    expect(line).not.toMatch(/PASSWORDONE|PASSWORDTWO/);
  });

  it('a sig whose name is percent-encoded (?s%69g=) is masked in the results file', async () => {
    const cwd = await fresh();
    const run = await runCli(
      [
        'download',
        '--url',
        `${url}?sv=1&s%69g=SIGSECRETVALUE`,
        '--source-method',
        'single',
        '--results',
        'r.json',
        '--log-level',
        'debug',
      ],
      { cwd },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(await readFile(join(cwd, 'r.json'), 'utf8')).not.toContain('SIGSECRETVALUE');
    expect(run.stderr + run.stdout).not.toContain('SIGSECRETVALUE');
  });

  it('k8s-manifest refuses --key in readable Job args, naming Secret and workload identity', async () => {
    for (const args of [
      ['--key', KEY],
      [`--connection-string=AccountName=a;AccountKey=${KEY}`],
      ['--url', 'https://user:PASSWORDX@host/x'],
      ['--url', 'https://host/x?sv=1&sig=SIGX'],
    ]) {
      const run = await runCli(['k8s-manifest', '--parallelism', '2', '--', 'download', ...args], {
        cwd: await fresh(),
      });
      const line = oneLine(run);
      expect(line).toMatch(/--secret/);
      expect(line).toMatch(/--service-account/);
      expect(run.stdout).toBe('');
      expect(line).not.toMatch(new RegExp(`${KEY.slice(0, 12)}|PASSWORDX|SIGX`));
    }
  });
});

describe('control characters and limits on option values', () => {
  it('ESC, BEL and a newline in an option value are shown escaped, on one line', async () => {
    const run = await runCli(['download', '--concurrency', '\u001b[31mred\u0007\nforged line'], {
      cwd: await fresh(),
    });
    const line = oneLine(run);
    expect(run.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
    expect(line).toContain('\\x1b[31mred\\x07\\nforged line');
  });

  it('an unknown command is echoed escaped, on one line (ESC and BEL reached the terminal)', async () => {
    const run = await runCli(['\u001b]0;PWNED\u0007\u001b[2J\nforged line'], { cwd: await fresh() });
    const line = oneLine(run);
    expect(run.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
    expect(line).toBe(
      'blob-cacher: unknown command "\\x1b]0;PWNED\\x07\\x1b[2J\\nforged line"; use one of: ' +
        'download, upload, report, compare, sweep, tune, collect, k8s-manifest, emulate, check, replay, ' +
        'checkpoint, train',
    );
  });

  it('collect with every file under results/ left out says how many and why, not "results/ is empty"', () => {
    const bad = [
      { name: 'runs/r1/results/0.json', problem: 'is not a blob-cacher scale-out client results file' },
      { name: 'runs/r1/results/1.json', problem: 'belongs to run r0' },
    ];
    expect(noResultsProblem('r1', 'c', bad)).toBe(
      'run r1 has no readable results in container c: 2 file(s) in runs/r1/results/ were left out ' +
        '(runs/r1/results/0.json is not a blob-cacher scale-out client results file); re-run the ' +
        'clients with this blob-cacher, or check --run-id',
    );
    expect(noResultsProblem('r1', 'c', [])).toBe(
      'run r1 has no results in container c (runs/r1/results/ is empty); check --run-id and the account',
    );
  });

  it('a sweep grid of six axes of 20 values is refused by its count, before any cell is built', () => {
    const axes = ['--a', '--b', '--c', '--d', '--e', '--f'].map((flag) => ({
      flag,
      values: Array.from({ length: 20 }, (_, i) => String(i + 1)),
    }));
    expect(() => gridCells(axes)).toThrow(ConfigError);
    expect(() => gridCells(axes)).toThrow(/64000000 cells, more than 100/);
  });

  it('--runs with --min-time is refused (--runs is exact); --runs alone is exact', async () => {
    const line = oneLine(
      await runCli(['download', '--url', url, '--runs', '3', '--min-time', '1s'], { cwd: await fresh() }),
    );
    expect(line).toMatch(/--runs 3 is exactly 3 run\(s\).*give one of them/);
    const cwd = await fresh();
    const run = await runCli(
      [
        'download',
        '--url',
        url,
        '--source-method',
        'single',
        '--runs',
        '3',
        '--results',
        'r.json',
        '--log-level',
        'error',
      ],
      { cwd, env: { BLOB_CACHER_RUNS: '', BLOB_CACHER_WARMUP: '0' } },
    );
    expect(run.code, run.stderr).toBe(0);
    const doc = JSON.parse(await readFile(join(cwd, 'r.json'), 'utf8')) as { runs: { warmup: boolean }[] };
    expect(doc.runs.filter((r) => !r.warmup)).toHaveLength(3);
  });

  it("a client's parallelism 1e9, 1e12 or -3 (or an index outside it) is refused by name", () => {
    const doc = (parallelism: number, index = 0) =>
      JSON.stringify({
        schema: CLIENT_RESULTS_SCHEMA,
        schemaVersion: CLIENT_RESULTS_VERSION,
        runId: 'r',
        index,
        parallelism,
        host: 'h',
      });
    for (const p of [1e9, 1e12, -3, 0, 2.5])
      expect(parseClientResults(doc(p)), String(p)).toEqual({
        problem: expect.stringMatching(new RegExp(`parallelism ${p}, not a whole number from 1 to 10000`)),
      });
    expect(parseClientResults(doc(3, 3))).toEqual({ problem: 'has index 3, not a whole number from 0 to 2' });
    expect(parseClientResults(doc(3, 2))).toHaveProperty('doc');
  });
});

describe('files that are not what they claim', () => {
  it('--ca-file naming a FIFO is refused at once, not opened for good', async () => {
    const cwd = await fresh();
    execFileSync('mkfifo', [join(cwd, 'ca.pem')]);
    const line = oneLine(
      await runCli(
        [
          'download',
          '--account',
          'acct',
          '--key',
          KEY,
          '--endpoint',
          'https://127.0.0.1:1/acct',
          '--ca-file',
          'ca.pem',
          '--results',
          'r.json',
        ],
        { cwd, limitMs: 20_000 },
      ),
    );
    expect(line).toMatch(/--ca-file ca\.pem is a FIFO \(named pipe\), not a regular file/);
  });

  it('report <a FIFO> is refused at once', async () => {
    const cwd = await fresh();
    execFileSync('mkfifo', [join(cwd, 'r.json')]);
    expect(oneLine(await runCli(['report', 'r.json'], { cwd, limitMs: 20_000 }))).toContain(
      'results file r.json is a FIFO',
    );
  });

  it.runIf(isRoot)('report <a zero device, made with mknod> is refused without reading it', async () => {
    const cwd = await fresh();
    execFileSync('mknod', [join(cwd, 'zero'), 'c', '1', '5']);
    expect(oneLine(await runCli(['report', 'zero'], { cwd, limitMs: 20_000 }))).toContain(
      'results file zero is a character device',
    );
  });

  describe('results files with impossible numbers', () => {
    let good: Record<string, unknown>;
    beforeAll(async () => {
      const cwd = await fresh();
      const run = await runCli(
        [
          'download',
          '--url',
          url,
          '--source-method',
          'single',
          '--results',
          'r.json',
          '--log-level',
          'error',
        ],
        { cwd },
      );
      expect(run.code, run.stderr).toBe(0);
      good = JSON.parse(await readFile(join(cwd, 'r.json'), 'utf8')) as Record<string, unknown>;
    });

    const withRun = (change: (run: Record<string, unknown>) => void) => {
      const doc = structuredClone(good) as { runs: Record<string, unknown>[] };
      change(doc.runs[0]!);
      return doc;
    };

    for (const [field, value] of [
      ['wallMs', -1],
      ['wallMs', 1e308],
      ['wallMs', 5e-324],
      ['bytes', -1],
      ['requests', 2.5],
      ['bytes', 1e308],
    ] as const) {
      it(`${field} ${value} is refused on read, naming the file and the field (exit 2)`, async () => {
        const cwd = await fresh();
        await writeFile(join(cwd, 'bad.json'), JSON.stringify(withRun((r) => (r[field] = value))));
        const line = oneLine(await runCli(['report', 'bad.json'], { cwd }));
        expect(line).toContain('bad.json');
        expect(line).toContain(`run 1 has a bad or missing ${field} (${JSON.stringify(value)})`);
      });
    }

    it('a negative worker CPU time is refused, naming workers[0]', async () => {
      const cwd = await fresh();
      await writeFile(
        join(cwd, 'bad.json'),
        JSON.stringify(withRun((r) => ((r.workers as Record<string, unknown>[])[0]!.cpuUserMs = -5))),
      );
      expect(oneLine(await runCli(['report', 'bad.json'], { cwd }))).toContain('workers[0].cpuUserMs (-5)');
    });

    it('a corrupt histogram string exits 2 naming the file, the run and the histogram', async () => {
      const cwd = await fresh();
      await writeFile(
        join(cwd, 'bad.json'),
        JSON.stringify(withRun((r) => ((r.histograms as Record<string, string>).total = 'abc'))),
      );
      const line = oneLine(await runCli(['report', 'bad.json'], { cwd }));
      expect(line).toMatch(/bad\.json: results file run 1 has a corrupt histograms\.total/);
    });

    it('the file a run writes still reads back (the ranges hold for real results)', async () => {
      const cwd = await fresh();
      await writeFile(join(cwd, 'good.json'), JSON.stringify(good));
      const run = await runCli(['report', 'good.json'], { cwd });
      expect(run.code, run.stderr).toBe(0);
    });
  });
});

describe('an untrusted certificate at preflight', () => {
  it("names --ca-file, not Node's --use-system-ca", async (ctx) => {
    const tls = await startTlsServer((_req, res) => res.writeHead(500).end());
    if (typeof tls === 'string') return ctx.skip(tls);
    try {
      const run = await runCli(
        [
          'download',
          '--account',
          'devstoreaccount1',
          '--key',
          KEY,
          '--endpoint',
          `${tls.base}/devstoreaccount1`,
          '--timeout',
          '5s',
          '--results',
          'r.json',
        ],
        { cwd: await fresh(), limitMs: 30_000 },
      );
      const line = oneLine(run);
      expect(line).toMatch(
        /TLS certificate is not trusted \(\w+\); give the CA that signed it with --ca-file/,
      );
      expect(run.stderr).not.toContain('--use-system-ca');
    } finally {
      await tls.stop();
    }
  });
});
