// `blob-cacher emulate` against hostile use, through the built CLI: any request line leaves it
// serving, it holds its objects once and refuses what memory cannot hold, it stops on the first
// signal with a request cut mid-stall counted as abandoned, and bad object names and straggler
// specs are refused with one line.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectOneLine, runCliIn } from './helpers/bad-input.js';
import { CLI_JS, startCli, type CliRun } from './helpers/cli.js';
import { startEmulatedTarget } from '../src/emulate/server.js';
import { availableMemoryBytes, checkObjectsFit, EMULATE_MEMORY_SHARE } from '../src/cli/machine-fit.js';

const MiB = 1024 * 1024;
let tmp: string;

beforeAll(() => {
  if (!existsSync(CLI_JS)) throw new Error(`${CLI_JS} is missing; build first: npm run build`);
  tmp = mkdtempSync(join(tmpdir(), 'blob-cacher-emulate-'));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Starts `emulate --port 0 …` and resolves with its origin once it listens. */
async function emulate(args: readonly string[], limitMs = 60_000): Promise<{ run: CliRun; origin: string }> {
  const run = startCli(['emulate', '--port', '0', ...args], { cwd: tmp, limitMs });
  const origin = await new Promise<string>((resolve, reject) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d;
      const m = /at (http:\/\/127\.0\.0\.1:\d+)\//.exec(out);
      if (m) resolve(m[1]!);
    };
    run.child.stdout!.on('data', onData);
    void run.exited.then((e) => reject(new Error(`emulate exited first (${e.code}): ${e.stderr}`)));
  });
  return { run, origin };
}

interface Answer {
  status: number;
  body: Buffer;
}

function get(url: string, init: { method?: string; body?: Buffer } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: init.method ?? 'GET', agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks) }));
      // A body cut part-way (the server stopped) ends in an error, not in 'end'.
      res.on('error', reject);
      res.on('close', () => (res.complete ? undefined : reject(new Error('the answer was cut'))));
    });
    req.setTimeout(10_000, () => req.destroy(new Error('no answer in 10 s')));
    req.on('error', reject);
    req.end(init.body);
  });
}

/** Writes `bytes` on a fresh connection, then ends it (a half line: closes it), and waits for the close. */
function junk(port: number, bytes: Buffer, halfThenClose: boolean): Promise<void> {
  return new Promise((resolve) => {
    const s = net.connect(port, '127.0.0.1');
    s.setTimeout(5_000, () => s.destroy());
    s.on('error', () => {});
    s.on('close', () => resolve());
    s.on('data', () => {});
    s.on('connect', () => {
      s.write(bytes);
      if (halfThenClose) s.destroy();
      else s.end();
    });
  });
}

const BAD_PATHS = ['%', '%zz', '%E0%A4%A', 'a%', '%%41'];
const BAD_METHODS = ['GARBAGE', 'G\u00e9T', '123', '', 'GET GET'];

/** Deterministic malformed request lines of five kinds, by `i`. */
function malformed(i: number): { bytes: Buffer; half: boolean } {
  const k = Math.floor(i / 5);
  const line = (text: string) => ({ bytes: Buffer.from(text), half: false });
  switch (i % 5) {
    case 0:
      return line(`GET /${BAD_PATHS[k % 5]} HTTP/1.1\r\nHost: x\r\n\r\n`);
    case 1:
      return line(`${BAD_METHODS[k % 5]} /x HTTP/1.1\r\nHost: x\r\n\r\n`);
    case 2:
      return line(`GET /${'a'.repeat(20_000 + (k % 7) * 1000)} HTTP/1.1\r\n\r\n`);
    case 3:
      return {
        bytes: Buffer.from(Array.from({ length: 64 + (k % 200) }, (_, j) => (i * 31 + j * 17) & 0xff)),
        half: false,
      };
    default:
      return { bytes: Buffer.from('GET /large.bin HTTP/1.1\r\nHost: x\r\nRange: by'), half: true };
  }
}

describe('emulate: hostile requests', () => {
  it('10,000 malformed request lines (bad %-encoding, bad methods, long lines, binary, half lines) ' +
    'leave it serving', async () => {
    const { run, origin } = await emulate(['--objects', 'large.bin=64KiB'], 120_000);
    try {
      expect((await get(`${origin}/%`)).status).toBe(400);
      const port = Number(new URL(origin).port);
      const total = 10_000;
      let next = 0;
      // 50 connections at a time, each with one malformed request; bounded by the CLI's limit.
      await Promise.all(
        Array.from({ length: 50 }, async () => {
          while (next < total && run.child.exitCode === null) {
            const { bytes, half } = malformed(next++);
            await junk(port, bytes, half);
          }
        }),
      );
      expect(next).toBe(total);
      expect(run.child.exitCode).toBeNull();
      const ok = await get(`${origin}/large.bin`);
      expect(ok.status).toBe(200);
      expect(ok.body.length).toBe(64 * 1024);
    } finally {
      run.child.kill('SIGTERM');
      await run.exited;
    }
  }, 150_000);
});

describe('emulate: memory', () => {
  it('objects summing past the memory available are refused at the start with one line', () => {
    const many = Array.from({ length: 200 }, (_, i) => `o${i}.bin=16GiB`).join(',');
    const args = [CLI_JS, 'emulate', '--port', '0', '--objects', many];
    const line = expectOneLine(runCliIn(tmp, args, {}, 20_000));
    expect(line).toContain('--objects');
    expect(line).toMatch(/memory/);
  });

  it('the budget is a share of the memory given, objects and PUT bodies together', () => {
    const GiB = 1024 * MiB;
    expect(checkObjectsFit([3 * GiB, 1 * GiB], 10 * GiB)).toBe(Math.floor(EMULATE_MEMORY_SHARE * 10 * GiB));
    expect(() => checkObjectsFit([3 * GiB, 3 * GiB], 6 * GiB)).toThrow(
      /--objects: the objects sum to 6 GiB, held in memory, more than 80% of the 6 GiB available here/,
    );
    // Node's reading of what is available counts a cgroup's limit, where a container has one.
    expect(availableMemoryBytes()).toBeLessThanOrEqual(process.constrainedMemory() || Infinity);
  });

  it('holds an object once: a 256 MiB object does not take twice its size to start', async () => {
    const { run } = await emulate(['--objects', 'a.bin=256MiB']);
    try {
      const status = readFileSync(`/proc/${run.child.pid}/status`, 'utf8');
      const peakKiB = Number(/VmHWM:\s+(\d+) kB/.exec(status)![1]);
      // Node itself is ~50–80 MiB; twice the object would be 512 MiB or more.
      expect(peakKiB * 1024).toBeLessThan(256 * MiB + 200 * MiB);
    } finally {
      run.child.kill('SIGTERM');
      await run.exited;
    }
  }, 60_000);

  it('a PUT body past what it may hold is answered 413 with a line, and it goes on serving', async () => {
    const t = await startEmulatedTarget({ storeBytes: 1 * MiB });
    try {
      const small = await get(`${t.url}/small`, { method: 'PUT', body: Buffer.alloc(512 * 1024, 1) });
      expect(small.status).toBe(201);
      const big = await get(`${t.url}/big`, { method: 'PUT', body: Buffer.alloc(768 * 1024, 2) });
      expect(big.status).toBe(413);
      expect(big.body.toString()).toMatch(/more than/);
      expect(t.files.has('/big')).toBe(false);
      expect(t.log.refused).toBe(1);
      // Replacing an object frees its old size first.
      const again = await get(`${t.url}/small`, { method: 'PUT', body: Buffer.alloc(900 * 1024, 3) });
      expect(again.status).toBe(204);
      expect((await get(`${t.url}/small`)).body.length).toBe(900 * 1024);
    } finally {
      await t.close();
    }
  });
});

describe('emulate: stopping', () => {
  it('stops on the first SIGTERM while a request is stalled, and counts the cut one abandoned', async () => {
    const { run, origin } = await emulate(['--objects', 'x.bin=64KiB', '--straggle', '1:60s']);
    const cut = get(`${origin}/x.bin`).catch((e: Error) => e);
    // The request has arrived once the server has stalled it; give it a moment to be in flight.
    await new Promise((r) => setTimeout(r, 500));
    const signalled = performance.now();
    run.child.kill('SIGTERM');
    const exited = await run.exited;
    expect(exited.killedAtLimit).toBe(false);
    expect(exited.code).toBe(0);
    // Bounded: a stall of 60 s does not hold it up.
    expect(performance.now() - signalled).toBeLessThan(10_000);
    expect(exited.stderr).toMatch(/1 stalled, 1 abandoned/);
    expect(await cut).toBeInstanceOf(Error);
  }, 60_000);

  it('stops on the first SIGINT while a GET and a PUT are paced, and counts both as abandoned', async () => {
    const { run, origin } = await emulate(
      ['--objects', 'x.bin=1MiB', '--rate-per-connection', '1KiB'],
      20_000,
    );
    const put = { method: 'PUT', body: Buffer.alloc(1 * MiB, 7) };
    const answers = [get(`${origin}/x.bin`), get(`${origin}/y.bin`, put)];
    const cut = answers.map((p) => p.catch((e: Error) => e));
    await new Promise((r) => setTimeout(r, 700));
    const signalled = performance.now();
    run.child.kill('SIGINT');
    const exited = await run.exited;
    expect(exited.killedAtLimit, exited.stderr).toBe(false);
    expect(exited.code).toBe(0);
    // At 1 KiB/s either would take over 15 minutes.
    expect(performance.now() - signalled).toBeLessThan(10_000);
    expect(exited.stderr).toMatch(
      /served 2 requests \(1 (GET|PUT), 1 (GET|PUT)\); 0 throttled, 0 stalled, 2 abandoned/,
    );
    for (const c of await Promise.all(cut)) expect(c).toBeInstanceOf(Error);
  }, 60_000);
});

describe('emulate: bad specs, one line each', () => {
  it.each([
    { args: ['--objects', '../x=1KiB'], option: '--objects' },
    { args: ['--objects', 'a/./b=1KiB'], option: '--objects' },
    { args: ['--objects', 'a//b=1KiB'], option: '--objects' },
    { args: ['--straggle', '5:1s:mid-body:x'], option: '--straggle' },
  ])('$args', ({ args, option }) => {
    const line = expectOneLine(runCliIn(tmp, [CLI_JS, 'emulate', '--port', '0', ...args], {}, 15_000));
    expect(line).toContain(option);
  });
});
