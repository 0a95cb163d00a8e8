// Deadlines: a server that trickles a byte at a time never trips the idle timeout, so
// preflight has a deadline of its own (twice --timeout) and --deadline bounds the whole session.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { close, deterministicBuffer, listen } from './helpers/http-servers.js';
import { ONE_RUN } from './helpers/cli-env.js';
import { freshDirs } from './helpers/temp-dirs.js';

const root = resolve(import.meta.dirname, '..');

// Each command in a directory of its own, all removed after the file so none is left in /tmp.
const tempDir = freshDirs('bc-deadline-');

async function cli(
  args: string[],
): Promise<{ code: number | null; stdout: string; stderr: string; ms: number; cwd: string }> {
  const cwd = await tempDir();
  const started = performance.now();
  const child = spawn(process.execPath, [join(root, 'dist/cli.js'), ...args], {
    cwd,
    env: { ...ONE_RUN, PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  return new Promise((r) =>
    child.on('exit', (code) => r({ code, stdout, stderr, ms: performance.now() - started, cwd })),
  );
}

// Answers with a status line a byte every 100 ms, and never finishes it.
let trickle: net.Server;
let trickleUrl: string;
// Serves a 2 MiB body in 64 KiB steps every 40 ms: each run takes about 1.3 s.
let slow: http.Server;
let slowUrl: string;

beforeAll(async () => {
  trickle = net.createServer((socket) => {
    const line = Buffer.from('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n');
    let at = 0;
    const timer = setInterval(() => {
      if (socket.destroyed) return clearInterval(timer);
      socket.write(line.subarray(at % line.length, (at % line.length) + 1));
      at++;
    }, 100);
    socket.on('close', () => clearInterval(timer));
    socket.on('error', () => {});
  });
  await new Promise<void>((r) => trickle.listen(0, '127.0.0.1', r));
  trickleUrl = `http://127.0.0.1:${(trickle.address() as net.AddressInfo).port}/x`;
  const size = 2 * 1024 * 1024;
  const body = deterministicBuffer(size);
  slow = http.createServer((req, res) => {
    if (req.method === 'HEAD') return res.writeHead(200, { 'content-length': size }).end();
    res.writeHead(200, { 'content-length': size });
    let at = 0;
    const timer = setInterval(() => {
      if (res.destroyed) return clearInterval(timer);
      res.write(body.subarray(at, at + 64 * 1024));
      at += 64 * 1024;
      if (at >= size) {
        clearInterval(timer);
        res.end();
      }
    }, 40);
  });
  slowUrl = `${await listen(slow)}/x`;
});
afterAll(async () => {
  await close(slow);
  await new Promise((r) => trickle.close(r));
});

describe('deadlines', () => {
  it(
    'preflight against a server that trickles a byte at a time ends at twice --timeout with one ' +
      'line, exit 2',
    async () => {
      const r = await cli(['download', '--url', trickleUrl, '--timeout', '300ms', '--results', 'r.json']);
      expect(r.code, r.stderr).toBe(2);
      expect(r.stderr.trim().split('\n').at(-1)).toMatch(
        new RegExp(
          String.raw`^blob-cacher: HEAD http:\/\/127\.0\.0\.1:\d+\/x did not ` +
            String.raw`finish within 0\.6 s \(twice --timeout\): .*raise --timeout$`,
        ),
      );
      expect(r.ms).toBeLessThan(5_000);
    },
  );

  it(
    '--deadline stops the session as a signal would, and is called a deadline: ' +
      'partial results, exit 124',
    async () => {
      const r = await cli([
        'download',
        '--url',
        slowUrl,
        '--source-method',
        'single',
        '--runs',
        '50',
        '--deadline',
        '2s',
        '--results',
        'r.json',
      ]);
      expect(r.code, r.stderr).toBe(124);
      expect(r.stderr).toMatch(/--deadline of 2 s reached/);
      expect(r.stdout).toContain('STOPPED at the --deadline');
      expect(r.stdout + r.stderr).not.toMatch(/signal/i);
      expect(r.stderr).toContain('(partial: stopped at the --deadline)');
      expect(r.ms).toBeLessThan(8_000);
      const doc = JSON.parse(readFileSync(join(r.cwd, 'r.json'), 'utf8'));
      expect(doc.complete).toBe(false);
      expect(doc.interrupted).toBe('deadline');
      expect(doc.runs.length).toBeGreaterThanOrEqual(1);
      expect(doc.runs.length).toBeLessThan(50);
    },
  );
});
