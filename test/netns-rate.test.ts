// Throughput against a ground truth the kernel enforces: two network namespaces made for this test,
// joined by a veth pair, with a token-bucket (tc tbf) limit on the server side's egress. nginx
// (Debian's, sendfile on) serves a file inside the server namespace; blob-cacher downloads it from
// inside the client namespace. Nothing touches the host's own interfaces or routes. Needs root,
// `ip` and `tc`; otherwise skipped with the reason printed. Without nginx, a Node server stands in
// for the single GET (said so in the output), and the four ranges are skipped.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NGINX_PATH as NGINX, requires } from './helpers/requires.js';
import { staticNginxConfig } from './helpers/nginx-dav.js';
import { inNs, stderrOf, vethPair, waitForPortInNs } from './helpers/netns.js';
import { runFailed } from '../src/results/schema.js';

const root = resolve(import.meta.dirname, '..');
const SERVER_NS = `bc-srv-${process.pid}`;
const CLIENT_NS = `bc-cli-${process.pid}`;
const VETH = `bcv${process.pid % 100_000}`;
const SERVER_IP = '10.231.77.1';
const CLIENT_IP = '10.231.77.2';
const PORT = 18080;
const RATE_MBIT = 40;
const SIZE = 20 * 1024 * 1024;
// tbf counts whole frames: a 1500-byte MTU frame is 1514 bytes with its Ethernet header and carries
// 1448 bytes of payload (TCP with timestamps).
const GOODPUT_MBIT = (RATE_MBIT * 1448) / 1514;

function setUp(): string | undefined {
  if (process.platform !== 'linux') return 'not Linux';
  if (process.getuid?.() !== 0) return 'not root: network namespaces need CAP_NET_ADMIN';
  try {
    execFileSync('ip', ['netns', 'add', SERVER_NS], { stdio: 'pipe' });
    execFileSync('ip', ['netns', 'add', CLIENT_NS], { stdio: 'pipe' });
  } catch (err) {
    return `cannot create network namespaces: ${stderrOf(err)}`;
  }
  try {
    vethPair(VETH, SERVER_NS, CLIENT_NS, SERVER_IP, CLIENT_IP);
  } catch (err) {
    return `cannot make a veth pair between namespaces: ${stderrOf(err)}`;
  }
  try {
    inNs(
      SERVER_NS,
      'tc',
      'qdisc',
      'add',
      'dev',
      `${VETH}s`,
      'root',
      'tbf',
      'rate',
      `${RATE_MBIT}mbit`,
      'burst',
      '32kb',
      'latency',
      '100ms',
    );
  } catch (err) {
    return `tc tbf is not available: ${stderrOf(err)}`;
  }
  return undefined;
}

function tearDown(): void {
  for (const ns of [CLIENT_NS, SERVER_NS]) {
    try {
      execFileSync('ip', ['netns', 'del', ns], { stdio: 'ignore' });
    } catch {
      // never created
    }
  }
}

const skipReason = requires('iproute2').missing ?? setUp();
// Ranges need nginx: the Node server that stands in for it answers every GET whole.
const nginx = requires('nginx');
if (skipReason) {
  process.stdout.write(`netns rate test skipped: ${skipReason}\n`);
  tearDown();
}
let server: ChildProcess | undefined;
let serverKind = '';
const dir = mkdtempSync(join(tmpdir(), 'bc-ns-'));

beforeAll(async () => {
  if (skipReason) return;
  mkdirSync(join(dir, 'www'));
  writeFileSync(join(dir, 'www', 'x'), Buffer.alloc(SIZE, 7));
  if (existsSync(NGINX)) {
    serverKind = 'nginx';
    writeFileSync(join(dir, 'nginx.conf'), staticNginxConfig(dir, `${SERVER_IP}:${PORT}`, 64));
    server = spawn(
      'ip',
      [
        'netns',
        'exec',
        SERVER_NS,
        NGINX,
        '-c',
        join(dir, 'nginx.conf'),
        '-p',
        dir,
        '-e',
        join(dir, 'error.log'),
      ],
      { stdio: 'ignore' },
    );
  } else {
    serverKind = 'a Node http server (nginx is not installed)';
    const script = join(dir, 'server.mjs');
    writeFileSync(
      script,
      `import http from 'node:http';
const body = Buffer.alloc(${SIZE}, 7);
http.createServer((req, res) => {
  res.writeHead(200, { 'content-length': body.length });
  res.end(req.method === 'HEAD' ? undefined : body);
}).listen(${PORT}, '${SERVER_IP}');`,
    );
    server = spawn('ip', ['netns', 'exec', SERVER_NS, process.execPath, script], { stdio: 'ignore' });
  }
  await waitForPortInNs(CLIENT_NS, SERVER_IP, PORT, serverKind);
});

afterAll(async () => {
  if (server && server.exitCode === null) {
    server.kill('SIGTERM');
    await new Promise((r) => server!.once('exit', r));
  }
  if (!skipReason) tearDown();
  rmSync(dir, { recursive: true, force: true });
});

/** One blob-cacher run inside the client namespace; returns the strategy's results entry. */
function download(method: string, extra: string[] = []) {
  const cwd = mkdtempSync(join(tmpdir(), 'bc-ns-run-'));
  try {
    inNs(
      CLIENT_NS,
      process.execPath,
      join(root, 'dist/cli.js'),
      'download',
      '--url',
      `http://${SERVER_IP}:${PORT}/x`,
      '--source-method',
      method,
      '--sink',
      'discard',
      '--results',
      join(cwd, 'r.json'),
      '--log-level',
      'warn',
      ...extra,
    );
    return JSON.parse(readFileSync(join(cwd, 'r.json'), 'utf8')).runs[0];
  } finally {
    rmSync(cwd, { recursive: true, force: true });
  }
}

describe('throughput under a kernel rate limit (veth pair between namespaces, tc tbf)', () => {
  it.skipIf(skipReason !== undefined)(
    `a single GET from nginx is reported within 3% of a ${RATE_MBIT} Mbit/s limit`,
    async () => {
      const run = download('single');
      expect(runFailed(run)).toBe(false);
      expect(run.bytes).toBe(SIZE);
      // The body's rate (bytes over the download phase) is what the limit governs; the whole
      // duration also holds connection set-up and first byte, which are reported as their own phases.
      const columns = (await import('../src/results/schema.js')).RECORD_COLUMNS as readonly string[];
      const downloadMs = run.records[0][columns.indexOf('download')] as number;
      const bodyMbit = (run.bytes * 8) / 1e6 / (downloadMs / 1000);
      const wallMbit = (run.bytes * 8) / 1e6 / (run.wallMs / 1000);
      console.log(
        `${serverKind}, tbf ${RATE_MBIT} Mbit/s (goodput ${GOODPUT_MBIT.toFixed(2)}): single body ` +
          `${bodyMbit.toFixed(2)} Mbit/s, whole run ${wallMbit.toFixed(2)} Mbit/s`,
      );
      expect(Math.abs(bodyMbit / GOODPUT_MBIT - 1)).toBeLessThan(0.03);
      expect(Math.abs(wallMbit / GOODPUT_MBIT - 1)).toBeLessThan(0.03);
    },
  );

  (skipReason !== undefined ? it.skip : nginx.it)(
    "four ranges share the same limit: the run's throughput is still within 3% of it",
    () => {
      const run = download('chunked', ['--concurrency', '4']);
      expect(runFailed(run)).toBe(false);
      expect(run.requests).toBe(4);
      const wallMbit = (run.bytes * 8) / 1e6 / (run.wallMs / 1000);
      console.log(
        `${serverKind}, tbf ${RATE_MBIT} Mbit/s (goodput ${GOODPUT_MBIT.toFixed(2)}): chunked x4 ` +
          `whole run ${wallMbit.toFixed(2)} Mbit/s`,
      );
      expect(Math.abs(wallMbit / GOODPUT_MBIT - 1)).toBeLessThan(0.03);
    },
  );
});
