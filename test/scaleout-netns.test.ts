// Scale-out against a ground truth the kernel enforces: three client network namespaces, each
// joined to one server namespace by its own veth pair with a token-bucket (tc tbf) limit on the
// server side. nginx serves a file and a separately started Azurite holds the run's markers and
// results, both in the server namespace. Three clients on three links must merge to about three
// times what one client on one link gets: K = 3 ≥ 2.5 × K = 1 over the overlap window. Nothing
// touches the host's own interfaces. Needs root, iproute2 and nginx; skipped with the reason otherwise.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AZURITE_ACCOUNT, AZURITE_KEY } from '../src/storage/azurite.js';
import { ONE_RUN } from './helpers/cli-env.js';
import { NGINX_PATH, requires } from './helpers/requires.js';
import { staticNginxConfig } from './helpers/nginx-dav.js';
import { inNs, stderrOf, vethPair, waitForPortInNs } from './helpers/netns.js';

const root = resolve(import.meta.dirname, '..');
const CLI = join(root, 'dist', 'cli.js');
const AZURITE_MAIN = join(root, 'node_modules', 'azurite', 'dist', 'src', 'blob', 'main.js');
const K = 3;
const SERVER_NS = `bc-so-srv-${process.pid}`;
const clientNs = (i: number) => `bc-so-c${i}-${process.pid}`;
const veth = (i: number) => `bso${process.pid % 10_000}${i}`;
const serverIp = (i: number) => `10.232.${i}.1`;
const clientIp = (i: number) => `10.232.${i}.2`;
const NGINX_PORT = 18090;
const AZURITE_PORT = 18091;
const RATE_MBIT = 80;
const SIZE = 24 * 1024 * 1024;
const RANGES = 6;

function setUp(): string | undefined {
  if (process.platform !== 'linux') return 'not Linux';
  if (process.getuid?.() !== 0) return 'not root: network namespaces need CAP_NET_ADMIN';
  try {
    for (const ns of [SERVER_NS, ...Array.from({ length: K }, (_, i) => clientNs(i))])
      execFileSync('ip', ['netns', 'add', ns], { stdio: 'pipe' });
  } catch (err) {
    return `cannot create network namespaces: ${stderrOf(err)}`;
  }
  try {
    inNs(SERVER_NS, 'ip', 'link', 'set', 'lo', 'up');
    for (let i = 0; i < K; i++) {
      vethPair(veth(i), SERVER_NS, clientNs(i), serverIp(i), clientIp(i));
      inNs(
        SERVER_NS,
        'tc',
        'qdisc',
        'add',
        'dev',
        `${veth(i)}s`,
        'root',
        'tbf',
        'rate',
        `${RATE_MBIT}mbit`,
        'burst',
        '32kb',
        'latency',
        '100ms',
      );
    }
  } catch (err) {
    return `cannot make veth pairs with tc tbf between namespaces: ${stderrOf(err)}`;
  }
  return undefined;
}

function tearDown(): void {
  for (const ns of [...Array.from({ length: K }, (_, i) => clientNs(i)), SERVER_NS]) {
    try {
      execFileSync('ip', ['netns', 'del', ns], { stdio: 'ignore' });
    } catch {
      // never created
    }
  }
}

const missing = requires('iproute2', 'nginx').missing;
const skipReason = missing ?? setUp();
if (skipReason) {
  process.stdout.write(`scale-out netns throughput test skipped: ${skipReason}\n`);
  if (!missing) tearDown();
}
const servers: ChildProcess[] = [];
const dir = mkdtempSync(join(tmpdir(), 'bc-so-ns-'));

beforeAll(async () => {
  if (skipReason) return;
  mkdirSync(join(dir, 'www'));
  mkdirSync(join(dir, 'azurite'));
  writeFileSync(join(dir, 'www', 'x'), Buffer.alloc(SIZE, 7));
  writeFileSync(join(dir, 'nginx.conf'), staticNginxConfig(dir, String(NGINX_PORT), 256));
  servers.push(
    spawn(
      'ip',
      [
        'netns',
        'exec',
        SERVER_NS,
        NGINX_PATH,
        '-c',
        join(dir, 'nginx.conf'),
        '-p',
        dir,
        '-e',
        join(dir, 'error.log'),
      ],
      { stdio: 'ignore' },
    ),
  );
  // Azurite apart from every client, as a storage account is: its own process, on every link's address.
  servers.push(
    spawn(
      'ip',
      [
        'netns',
        'exec',
        SERVER_NS,
        process.execPath,
        AZURITE_MAIN,
        '--blobHost',
        '0.0.0.0',
        '--blobPort',
        String(AZURITE_PORT),
        '--inMemoryPersistence',
        '--silent',
        '--loose',
        '--skipApiVersionCheck',
        '--disableTelemetry',
      ],
      { cwd: join(dir, 'azurite'), stdio: 'ignore' },
    ),
  );
  await waitForPortInNs(clientNs(0), serverIp(0), NGINX_PORT, 'nginx', 20_000);
  await waitForPortInNs(clientNs(0), serverIp(0), AZURITE_PORT, 'Azurite', 20_000);
}, 60_000);

afterAll(async () => {
  for (const s of servers) {
    if (s.exitCode !== null) continue;
    s.kill('SIGTERM');
    await new Promise((r) => s.once('exit', r));
  }
  if (!skipReason) tearDown();
  rmSync(dir, { recursive: true, force: true });
});

const runStore = (i: number) =>
  `DefaultEndpointsProtocol=http;AccountName=${AZURITE_ACCOUNT};AccountKey=${AZURITE_KEY};` +
  `BlobEndpoint=http://${serverIp(i)}:${AZURITE_PORT}/${AZURITE_ACCOUNT}`;

function inClient(
  i: number,
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn('ip', ['netns', 'exec', clientNs(i), process.execPath, CLI, ...args], {
      cwd: dir,
      env: { ...ONE_RUN, PATH: process.env.PATH ?? '', HOME: dir, BLOB_CACHER_RUN_STORE: runStore(i) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d));
    child.stderr.on('data', (d: Buffer) => (stderr += d));
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

/** K clients, each on its own rate-limited link, sharing RANGES ranges of the one file; the merge. */
async function scaleOut(k: number) {
  const runId = `netns-${process.pid}-k${k}`;
  const exits = await Promise.all(
    Array.from({ length: k }, (_, i) =>
      inClient(i, [
        'download',
        '--url',
        `http://${serverIp(i)}:${NGINX_PORT}/x`,
        '--source-method',
        'chunked',
        '--concurrency',
        String(RANGES),
        '--sink',
        'discard',
        '--parallelism',
        String(k),
        '--index',
        String(i),
        '--run-id',
        runId,
        '--start-lead',
        '2s',
        '--barrier-timeout',
        '60s',
        '--results',
        join(dir, `${runId}-${i}.json`),
        '--log-level',
        'warn',
      ]),
    ),
  );
  for (const e of exits) expect(e.code, e.stderr).toBe(0);
  const collected = await inClient(0, ['collect', '--run-id', runId, '--format', 'json']);
  expect(collected.code, collected.stderr).toBe(0);
  return JSON.parse(collected.stdout);
}

describe('scale-out throughput under kernel rate limits (one veth + tc tbf per client)', () => {
  it.skipIf(skipReason !== undefined)(
    `K = ${K} clients on ${K} links merge to at least 2.5 x one client on one (${RATE_MBIT} Mbit/s each)`,
    async () => {
      const one = await scaleOut(1);
      const three = await scaleOut(K);
      const mbit = (m: { overlap: { throughputMiBps: number } }) =>
        (m.overlap.throughputMiBps * 1024 * 1024 * 8) / 1e6;
      console.log(
        `K=1: ${mbit(one).toFixed(1)} Mbit/s over ${one.overlap.durationMs.toFixed(0)} ms; K=${K}: ` +
          `${mbit(three).toFixed(1)} Mbit/s over the ${three.overlap.durationMs.toFixed(0)} ms ` +
          `overlap, start spread ${three.startSpreadMs.toFixed(1)} ms; ratio ` +
          `${(mbit(three) / mbit(one)).toFixed(2)}`,
      );
      expect(one.totals.bytes).toBe(SIZE);
      expect(three.totals.bytes).toBe(SIZE);
      expect(three.totals.requests).toBe(RANGES);
      expect(three.startSpreadMs).toBeLessThan(100);
      expect(mbit(three)).toBeGreaterThanOrEqual(2.5 * mbit(one));
    },
    180_000,
  );
});
