// The traced transport against a real http server: which phases a request has, that they add up,
// and that injected delays land in the phase that owns them.
import http from 'node:http';
import https from 'node:https';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CONNECTION_PHASES, PHASES } from '../src/transport/phases.js';
import type { TracedResult } from '../src/transport/http-client.js';
import { createAgent, tracedRequest } from '../src/transport/request.js';
import { close, listen, refusingUrl } from './helpers/http-servers.js';
import { requires } from './helpers/requires.js';
import { startTlsServer, type TlsServer } from './helpers/tls.js';

const SLOW_MS = 100;
const HOLD_HEADERS_MS = 60;
const BETWEEN_PARTS_MS = 80;

let server: http.Server;
let base: string;
const agents: http.Agent[] = [];

beforeAll(async () => {
  server = http.createServer((req, res) => {
    switch (req.url) {
      case '/slow':
        setTimeout(() => res.end('slow'), SLOW_MS);
        return;
      case '/hold-headers':
        setTimeout(() => res.end('late'), HOLD_HEADERS_MS);
        return;
      case '/two-parts':
        // Headers and the first part go out at once; the rest follows later.
        res.writeHead(200, { 'content-length': 8 });
        res.write('part');
        setTimeout(() => res.end('two!'), BETWEEN_PARTS_MS);
        return;
      default:
        res.end('hello');
    }
  });
  base = await listen(server);
});

afterEach(() => {
  for (const a of agents.splice(0)) a.destroy();
});

afterAll(() => close(server));

function agentFor(url: URL, maxSockets: number): http.Agent {
  const agent = createAgent(url, maxSockets);
  agents.push(agent);
  return agent;
}

const get = (url: URL, agent: http.Agent) => tracedRequest({ url, method: 'GET', headers: {}, agent });

function expectPhasesAddUp(r: TracedResult): void {
  let sum = 0;
  for (const p of PHASES) {
    const ms = r.phases[p];
    if (ms === undefined) continue;
    expect(ms, p).toBeGreaterThanOrEqual(0);
    sum += ms;
  }
  expect(Math.abs(sum - r.totalMs)).toBeLessThan(0.01);
}

describe('tracedRequest phases', () => {
  it(
    'times a fresh connection to an IP: tcp but no dns, in PHASES order, adding up ' + 'to the total',
    async () => {
      const url = new URL(`${base}/`);
      const r = await get(url, agentFor(url, 1));

      expect(r.error).toBeUndefined();
      expect(r.status).toBe(200);
      expect(r.bytes).toBe(5);
      expect(r.reused).toBe(false);
      // An IP literal needs no lookup and plain http no handshake: the keys are absent, not zero.
      expect(r.phases).not.toHaveProperty('dns');
      expect(r.phases).not.toHaveProperty('tls');
      expect(Object.keys(r.phases)).toEqual(['wait', 'tcp', 'send', 'firstByte', 'download']);
      expectPhasesAddUp(r);
    },
  );

  it('marks a second sequential request reused, with no connection phases at all', async () => {
    const url = new URL(`${base}/`);
    const agent = agentFor(url, 1);
    const first = await get(url, agent);
    const second = await get(url, agent);

    expect(first.reused).toBe(false);
    expect(first.phases).toHaveProperty('tcp');
    expect(second.error).toBeUndefined();
    expect(second.reused).toBe(true);
    for (const p of CONNECTION_PHASES) expect(second.phases).not.toHaveProperty(p);
    expect(Object.keys(second.phases)).toEqual(['wait', 'send', 'firstByte', 'download']);
    expectPhasesAddUp(second);
  });

  it('counts the time queued behind a busy socket as wait', async () => {
    const url = new URL(`${base}/slow`);
    const agent = agentFor(url, 1);
    const [first, second] = await Promise.all([get(url, agent), get(url, agent)]);

    expect(first.error).toBeUndefined();
    expect(second.error).toBeUndefined();
    expect(first.reused).toBe(false);
    // The second waited for the first's whole response, then took over its socket.
    expect(second.reused).toBe(true);
    expect(second.phases.wait).toBeGreaterThanOrEqual(SLOW_MS * 0.8);
    expect(second.startEpochMs + second.phases.wait!).toBeGreaterThanOrEqual(
      first.startEpochMs + first.totalMs - 1,
    );
    expectPhasesAddUp(first);
    expectPhasesAddUp(second);
  });

  it('puts a server holding its headers in firstByte', async () => {
    const url = new URL(`${base}/hold-headers`);
    const r = await get(url, agentFor(url, 1));

    expect(r.error).toBeUndefined();
    expect(r.phases.firstByte).toBeGreaterThanOrEqual(HOLD_HEADERS_MS - 10);
    expectPhasesAddUp(r);
  });

  it('puts a pause between body parts in download', async () => {
    const url = new URL(`${base}/two-parts`);
    const r = await get(url, agentFor(url, 1));

    expect(r.error).toBeUndefined();
    expect(r.bytes).toBe(8);
    expect(r.phases.download).toBeGreaterThanOrEqual(BETWEEN_PARTS_MS - 10);
    expectPhasesAddUp(r);
  });

  it('returns a refused connection as an error value with status 0', async () => {
    const url = new URL(`${await refusingUrl()}/`);
    const r = await get(url, agentFor(url, 1));

    expect(r.status).toBe(0);
    expect(r.bytes).toBe(0);
    expect(r.error).toMatch(/ECONNREFUSED/);
    // The time went into a connect attempt that failed: it is tcp, and nothing was sent or answered.
    expect(r.phases).toHaveProperty('tcp');
    expect(r.phases).not.toHaveProperty('firstByte');
    expect(r.phases).not.toHaveProperty('download');
    expectPhasesAddUp(r);
  });

  it('fails the request, not the process, when the body sink throws', async () => {
    const url = new URL(`${base}/`);
    const r = await tracedRequest({
      url,
      method: 'GET',
      headers: {},
      agent: agentFor(url, 1),
      onData: () => {
        throw new Error('sink full');
      },
    });

    expect(r.status).toBe(200);
    expect(r.error).toBe('sink: sink full');
    expectPhasesAddUp(r);
  });

  // On the only chunk 'end' arrives before the sink settles; on the first of two the body stalls.
  it.each([
    ['the last chunk', '/'],
    ['a chunk with more to come', '/two-parts'],
  ])('reports a sink that rejects on %s as the sink error', async (_, path) => {
    const url = new URL(`${base}${path}`);
    const r = await tracedRequest({
      url,
      method: 'GET',
      headers: {},
      agent: agentFor(url, 1),
      onData: () => Promise.reject(new Error('disk full')),
    });

    expect(r.status).toBe(200);
    expect(r.error).toBe('sink: disk full');
    expectPhasesAddUp(r);
  });
});

requires('openssl').describe('traced transport over TLS', () => {
  let tls: TlsServer | undefined;
  let why = '';

  beforeAll(async () => {
    const started = await startTlsServer((_req, res) => res.end('secure hello'));
    if (typeof started === 'string') why = started;
    else tls = started;
  });

  afterAll(() => tls?.stop());

  it(
    'https: dns, tcp and tls phases on a fresh socket, in that order; none on the ' + 'reused one',
    async (ctx) => {
      if (!tls) {
        process.stdout.write(`skipped: ${why}\n`);
        return ctx.skip();
      }
      const agent = new https.Agent({ keepAlive: true, maxSockets: 1, ca: tls.ca });
      try {
        const url = new URL(`${tls.base}/`);
        const first = await tracedRequest({ url, method: 'GET', headers: {}, agent });
        expect(first.error).toBeUndefined();
        expect(first.reused).toBe(false);
        // localhost is a name: it is looked up, then connected, then the handshake.
        expect(first.phases.dns).toBeGreaterThanOrEqual(0);
        expect(first.phases.tcp).toBeGreaterThanOrEqual(0);
        expect(first.phases.tls).toBeGreaterThan(0);
        expectPhasesAddUp(first);
        const second = await tracedRequest({ url, method: 'GET', headers: {}, agent });
        expect(second.error).toBeUndefined();
        expect(second.reused).toBe(true);
        for (const p of CONNECTION_PHASES) expect(second.phases[p], p).toBeUndefined();
        expectPhasesAddUp(second);
      } finally {
        agent.destroy();
      }
    },
  );
});
