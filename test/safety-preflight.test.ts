// A target that never answers: a blob preflight against a server that accepts
// and stays silent ends within 2 x --timeout (exit 2, one line), a signal stops it (130) and
// --deadline bounds it (124); a signal during a plain URL's preflight is an interrupt too. Every
// CLI here is killed at a limit well under what the unbounded wait would take: a hang fails.
import net from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startCli, type CliRun } from './helpers/cli.js';

const KEY = Buffer.from('not a real key, 32 bytes long!!!').toString('base64');
let silent: net.Server;
let port = 0;
const held = new Set<net.Socket>();
let accepted = 0;

beforeAll(async () => {
  silent = net.createServer((socket) => {
    accepted++;
    held.add(socket);
    socket.on('close', () => held.delete(socket));
    socket.on('error', () => {});
  });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  port = (silent.address() as net.AddressInfo).port;
});
afterEach(() => {
  for (const s of held) s.destroy();
});
afterAll(() => new Promise<void>((r) => silent.close(() => r())));

let cwd = '';
beforeAll(async () => {
  cwd = await mkdtemp(join(tmpdir(), 'safety-preflight-'));
});
afterAll(() => rm(cwd, { recursive: true, force: true }));

const account = (...more: string[]) => [
  'download',
  '--account',
  'devstoreaccount1',
  '--endpoint',
  `http://127.0.0.1:${port}/devstoreaccount1`,
  '--key',
  KEY,
  '--results',
  'r.json',
  ...more,
];

/**
 * Waits (bounded) until the CLI is in its preflight: it has said which target (its stop handlers are
 * set by then) and the silent server has a connection from it.
 */
async function preflightWaiting(cli: CliRun, before: number): Promise<void> {
  expect(await cli.waitFor(/info: target: /), cli.stderr()).toBe(true);
  for (let i = 0; i < 500 && accepted <= before; i++) await new Promise((r) => setTimeout(r, 20));
  expect(accepted).toBeGreaterThan(before);
}

describe('a blob preflight against a silent server is bounded', () => {
  it('ends by itself within 2 x --timeout, exit 2, one line naming --timeout', async () => {
    const cli = startCli(account('--timeout', '500ms', '--log-level', 'warn'), { cwd, limitMs: 20_000 });
    const run = await cli.exited;
    expect(run.killedAtLimit, run.stderr).toBe(false);
    expect(run.code, run.stderr).toBe(2);
    expect(run.stderr.trimEnd().split('\n')).toEqual([
      expect.stringMatching(/did not answer within 1 s \(twice --timeout\)/),
    ]);
  });

  it('SIGINT stops it at once (exit 130), long before 2 x the default --timeout', async () => {
    const before = accepted;
    const cli = startCli(account(), { cwd, limitMs: 15_000 });
    await preflightWaiting(cli, before);
    cli.child.kill('SIGINT');
    const run = await cli.exited;
    expect(run.killedAtLimit, run.stderr).toBe(false);
    expect(run.code, run.stderr).toBe(130);
    expect(run.stderr).not.toMatch(/again, exiting without waiting/);
  });

  it('--deadline bounds it (exit 124)', async () => {
    const cli = startCli(account('--deadline', '1s'), { cwd, limitMs: 15_000 });
    const run = await cli.exited;
    expect(run.killedAtLimit, run.stderr).toBe(false);
    expect(run.code, run.stderr).toBe(124);
  });
});

describe('a signal during a plain URL preflight is an interrupt', () => {
  it('SIGINT during a plain-URL preflight exits 130, not 2 with "cannot reach … (cancelled)"', async () => {
    const before = accepted;
    const cli = startCli(
      ['download', '--url', `http://127.0.0.1:${port}/blob.bin`, '--results', 'r14.json'],
      { cwd, limitMs: 15_000 },
    );
    await preflightWaiting(cli, before);
    cli.child.kill('SIGINT');
    const run = await cli.exited;
    expect(run.killedAtLimit, run.stderr).toBe(false);
    expect(run.code, run.stderr).toBe(130);
    expect(run.stderr).not.toMatch(/cannot reach/);
  });
});
