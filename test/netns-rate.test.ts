// Throughput against a ground truth the kernel enforces: a token-bucket (tc tbf) limit on the
// loopback of a network namespace made for this test, with server and client inside it, so all
// traffic stays on 127.0.0.1. Needs root, `ip` and `tc`; otherwise skipped with the reason printed.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const NS = `bc-rate-${process.pid}`;
const RATE_MBIT = 40;
const SIZE = 20 * 1024 * 1024;
// tbf counts whole frames; on a 1500-byte MTU loopback a frame of 1514 bytes carries 1448 of payload.
const GOODPUT_MBIT = (RATE_MBIT * 1448) / 1514;

function why(): string | undefined {
  if (process.platform !== 'linux') return 'not Linux';
  if (process.getuid?.() !== 0) return 'not root: network namespaces need CAP_NET_ADMIN';
  try {
    execFileSync('ip', ['netns', 'add', NS], { stdio: 'pipe' });
  } catch (err) {
    return `cannot create a network namespace: ${String((err as { stderr?: Buffer }).stderr ?? err).trim()}`;
  }
  try {
    const exec = (...args: string[]) => execFileSync('ip', ['netns', 'exec', NS, ...args], { stdio: 'pipe' });
    exec('ip', 'link', 'set', 'lo', 'mtu', '1500', 'up');
    exec('tc', 'qdisc', 'add', 'dev', 'lo', 'root', 'tbf', 'rate', `${RATE_MBIT}mbit`, 'burst', '32kb', 'latency', '100ms');
    try {
      exec('ethtool', '-K', 'lo', 'gso', 'off', 'tso', 'off', 'gro', 'off');
    } catch {
      // Without ethtool the MTU alone keeps frames small enough for tbf.
    }
  } catch (err) {
    return `tc tbf is not available: ${String((err as { stderr?: Buffer }).stderr ?? err).trim()}`;
  }
  return undefined;
}

const skipReason = why();
if (skipReason) console.log(`netns rate test skipped: ${skipReason}`);
let server: ChildProcess | undefined;

beforeAll(async () => {
  if (skipReason) return;
  const dir = mkdtempSync(join(tmpdir(), 'bc-ns-'));
  const script = join(dir, 'server.mjs');
  writeFileSync(script, `import http from 'node:http';
const SIZE = ${SIZE}; const body = Buffer.alloc(SIZE, 7);
http.createServer((req, res) => {
  res.writeHead(200, { 'content-length': SIZE });
  res.end(req.method === 'HEAD' ? undefined : body);
}).listen(18080, '127.0.0.1', () => console.log('ready'));`);
  server = spawn('ip', ['netns', 'exec', NS, process.execPath, script], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((r) => server!.stdout!.once('data', () => r()));
});

afterAll(() => {
  server?.kill();
  if (!skipReason) execFileSync('ip', ['netns', 'del', NS], { stdio: 'ignore' });
});

describe('throughput under a kernel rate limit', () => {
  it.skipIf(skipReason !== undefined)(`a single GET is reported within 3% of a ${RATE_MBIT} Mbit/s tbf limit`, async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'bc-ns-run-'));
    execFileSync('ip', ['netns', 'exec', NS, process.execPath, join(root, 'dist/cli.js'), 'download', '--url', 'http://127.0.0.1:18080/x',
      '--source-method', 'single', '--sink', 'discard', '--results', 'r.json', '--log-level', 'warn'], { cwd, stdio: 'pipe', env: { PATH: process.env.PATH ?? '' } });
    const run = JSON.parse(readFileSync(join(cwd, 'r.json'), 'utf8')).strategies[0];
    expect(run.verified).toBe(true);
    expect(run.bytes).toBe(SIZE);
    // The body's rate (bytes over the download phase) is what the limit governs; the whole
    // duration also holds connection set-up and first byte, which are reported as their own phases.
    const columns = (await import('../dist/results/schema.js')).RECORD_COLUMNS as readonly string[];
    const downloadMs = run.records[0][columns.indexOf('download')] as number;
    const reportedMbit = (run.bytes * 8) / 1e6 / (downloadMs / 1000);
    const wallMbit = (run.bytes * 8) / 1e6 / (run.wallMs / 1000);
    console.log(`tbf ${RATE_MBIT} Mbit/s (goodput ${GOODPUT_MBIT.toFixed(2)}): body ${reportedMbit.toFixed(2)} Mbit/s, whole request ${wallMbit.toFixed(2)} Mbit/s`);
    expect(Math.abs(reportedMbit / GOODPUT_MBIT - 1)).toBeLessThan(0.03);
  });
});
