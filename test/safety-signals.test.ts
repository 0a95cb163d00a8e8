// Issue 27, how a run is stopped (#7, #12, #13): one stop sent twice in a moment (timeout(1) signals
// the process, then its group) is one stop; SIGHUP stops as SIGTERM does, with partial results; and
// a coordinator killed with SIGKILL leaves no scratch behind in the temp directory.
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCli } from './helpers/cli.js';
import { close, deterministicBuffer, listen } from './helpers/http-servers.js';
import { alive, childPids } from './helpers/processes.js';
import { freshDirs } from './helpers/temp-dirs.js';

const SIZE = 2 * 1024 * 1024;
const body = deterministicBuffer(SIZE);
let server: http.Server;
let url: string;

// Serves ranges slowly (64 KiB every 40 ms): a run is still in flight when the test acts.
beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.method === 'HEAD') return void res.writeHead(200, { 'content-length': SIZE }).end();
    const m = /bytes=(\d+)-(\d+)/.exec(req.headers.range ?? '');
    const [start, end] = m ? [Number(m[1]), Number(m[2])] : [0, SIZE - 1];
    res.writeHead(m ? 206 : 200, { 'content-length': end - start + 1, ...(m ? { 'content-range': `bytes ${start}-${end}/${SIZE}` } : {}) });
    let at = start;
    const timer = setInterval(() => {
      if (res.destroyed) return clearInterval(timer);
      const next = Math.min(end + 1, at + 64 * 1024);
      res.write(body.subarray(at, next));
      at = next;
      if (at > end) {
        clearInterval(timer);
        res.end();
      }
    }, 40);
  });
  url = `${await listen(server)}/blob.bin`;
});
afterAll(() => close(server));

const fresh = freshDirs('safety-signals-');
const RUNNING = /request\(s\) over \d+ process/;

describe('#7 and #12: signals', () => {
  it('#7: SIGTERM to the process and then to its group, as timeout(1) sends it, is one stop: exit 143 with partial results (3 trials)', async () => {
    for (let trial = 0; trial < 3; trial++) {
      const cwd = await fresh();
      const cli = startCli(['download', '--url', url, '--source-method', 'chunked', '--processes', '2', '--results', 'r.json', '--log-level', 'info'], { cwd, detached: true, limitMs: 30_000 });
      expect(await cli.waitFor(RUNNING), cli.stderr()).toBe(true);
      cli.child.kill('SIGTERM');
      process.kill(-cli.child.pid!, 'SIGTERM');
      const run = await cli.exited;
      expect(run.killedAtLimit, run.stderr).toBe(false);
      expect(run.stderr).not.toMatch(/again, exiting without waiting/);
      expect(run.code, run.stderr).toBe(143);
      const doc = JSON.parse(await readFile(join(cwd, 'r.json'), 'utf8')) as { interrupted?: string; complete: boolean };
      expect(doc).toMatchObject({ interrupted: 'SIGTERM', complete: false });
    }
  });

  it('#12: SIGHUP to the group (a closed terminal) stops as SIGTERM does: exit 129, interrupted results, no temporary file', async () => {
    const cwd = await fresh();
    const cli = startCli(['download', '--url', url, '--source-method', 'chunked', '--processes', '2', '--results', 'r.json', '--log-level', 'info'], { cwd, detached: true, limitMs: 30_000 });
    expect(await cli.waitFor(RUNNING), cli.stderr()).toBe(true);
    process.kill(-cli.child.pid!, 'SIGHUP');
    const run = await cli.exited;
    expect(run.killedAtLimit, run.stderr).toBe(false);
    expect(run.code, run.stderr).toBe(129);
    expect(run.stderr).toContain('SIGHUP: no new requests');
    expect(JSON.parse(await readFile(join(cwd, 'r.json'), 'utf8'))).toMatchObject({ interrupted: 'SIGHUP', complete: false });
    expect((await readdir(cwd)).filter((f) => f.includes('.tmp-'))).toEqual([]);
  });
});

describe('#13: scratch of a killed coordinator', () => {
  it('#13: SIGKILL of the coordinator mid-run leaves no blob-cacher-<pid>-* scratch (its sink file) in TMPDIR', async () => {
    const tmp = await mkdtemp(join(tmpdir(), 'safety-signals-tmp-'));
    try {
      const cli = startCli(['download', '--url', url, '--source-method', 'chunked', '--processes', '2', '--sink', 'sparse-file', '--results', join(tmp, '..', `r-${process.pid}.json`), '--log-level', 'info'], {
        cwd: tmp, env: { TMPDIR: tmp }, limitMs: 30_000,
      });
      expect(await cli.waitFor(RUNNING), cli.stderr()).toBe(true);
      const workers = childPids(cli.child.pid!);
      expect((await readdir(tmp)).filter((n) => n.startsWith('blob-cacher-'))).toHaveLength(1);
      cli.child.kill('SIGKILL');
      await cli.exited;
      // The workers notice their coordinator is gone and take its scratch with them (bounded wait).
      for (let i = 0; i < 250 && (workers.some(alive) || (await readdir(tmp)).some((n) => n.startsWith('blob-cacher-'))); i++) await new Promise((r) => setTimeout(r, 20));
      expect(workers.filter(alive)).toEqual([]);
      expect((await readdir(tmp)).filter((n) => n.startsWith('blob-cacher-'))).toEqual([]);
    } finally {
      await rm(tmp, { recursive: true, force: true });
      await rm(join(tmp, '..', `r-${process.pid}.json`), { force: true });
    }
  });
});
